/**
 * Where a denial's "ask the privacy officer to raise the budget" leads: an officer (the workbench's user is one) to
 * "Set a budget" on the Ledger screen; an analyst of the service to who the officers are and where they do it.
 */
import { useCan } from '../../api/who'
import { href } from '../../sections'
import { BUDGET_PARAM } from './BudgetForm'
import { useOfficers } from './OfficerFields'

export function RaiseBudget(props: { verb: 'raise' | 'set'; testId?: string }) {
  const officer = useCan('officer')
  const officers = useOfficers()
  const verb = props.verb
  if (officer) {
    return (
      <span data-testid={props.testId ?? 'raise-budget'}>
        As a privacy officer you can {verb} it: <a href={href('ledger', BUDGET_PARAM)}>Ledger → Set a budget</a>.
      </span>
    )
  }
  const names = officers.names
  return (
    <span data-testid={props.testId ?? 'raise-budget'}>
      Only a privacy officer can {verb} it
      {names.length > 0 ? ` (this workspace’s: ${names.join(', ')})` : ''}, under Ledger → Set a budget; ask them with the figures above.
    </span>
  )
}
