import { useState } from 'react'
import type { AccountInfo, DatasetInfo, DatasetLedger, PrivacyNotion } from '../../../../src-main/contract'
import { useAction, useClient, useQuery } from '../../api/hooks'
import { ErrorText, NumberField, SelectField, TextField, parseNumber } from '../../components/Fields'
import { formatExact } from '../../format'
import { href } from '../../sections'
import { NOTION_OPTIONS, budgetName, notionName } from './notions'
import { Loading } from '../../components/Loading'
import { useFocusTarget } from '../../components/focusTarget'
import { NoOfficerNotice, OfficerFields, officerWhy, useOfficers } from './OfficerFields'

/** `#/ledger/budget` leads to the form (the first run's budget step, a denial's "raise the budget"). */
export const BUDGET_PARAM = 'budget'

/** Privacy officer: set or change a budget. The reason is required and goes into the ledger. */
export function BudgetForm(props: {
  /** null while loading. */
  datasets: DatasetInfo[] | null
  datasetsError: string | null
  datasetId: number | null
  ledgers: DatasetLedger[]
  onSet: () => void
  focus?: boolean
}) {
  const client = useClient()
  const target = useFocusTarget<HTMLElement>(props.focus === true)
  const [datasetId, setDatasetId] = useState<string>(props.datasetId ? String(props.datasetId) : '')
  const [notion, setNotion] = useState<PrivacyNotion | 'all'>('all')
  const [epsilon, setEpsilon] = useState('')
  const [reason, setReason] = useState('')
  const [freeze, setFreeze] = useState(false)
  // '' = the dataset's own budget (every analyst's charges together); else an analyst account's id.
  const [analyst, setAnalyst] = useState('')
  const analysts = useAnalystAccounts()
  const officers = useOfficers()
  const [cred, setCred] = useState({ officer: '', passphrase: '' })
  const [done, setDone] = useState<string | null>(null)
  const act = useAction()
  const list = props.datasets ?? []
  const ds = datasetId || (props.datasetId ? String(props.datasetId) : list[0] ? String(list[0].id) : '')
  const eps = parseNumber(epsilon)
  // What is already spent where this budget applies: a budget below it is refused (the service refuses it too).
  const ledger = props.ledgers.find((l) => String(l.datasetId) === ds) ?? null
  const account = notion === 'all' ? null : (ledger?.accounts.find((a) => a.notion === notion) ?? null)
  const analystSpend = analyst === '' ? null : (ledger?.byAnalyst.find((a) => String(a.accountId) === analyst) ?? null)
  // An analyst's budget is held against their own charges (per notion: the service checks that part).
  const spent =
    analyst !== ''
      ? notion === 'all'
        ? (analystSpend?.spentPerUnit ?? 0)
        : 0
      : notion === 'all'
        ? (ledger?.spentPerUnit ?? 0)
        : (account?.spent ?? 0)
  const spentExact =
    analyst !== ''
      ? notion === 'all'
        ? (analystSpend?.spentPerUnitExact ?? '0')
        : '0'
      : notion === 'all'
        ? (ledger?.spentPerUnitExact ?? '0')
        : (account?.spentExact ?? '0')
  const why = budgetWhy({ ds, epsilon, eps, freeze, spent, spentExact, reason }) ?? officerWhy(officers, cred)
  const valid = why === null

  const submit = () =>
    void act
      .run(async () => {
        setDone(null)
        const r = await client.call('budgets/set', {
          datasetId: Number(ds),
          epsilon: freeze ? spentExact : epsilon.trim(),
          notion: notion === 'all' ? undefined : notion,
          reason: reason.trim(),
          ...(freeze ? { freeze: true } : {}),
          ...(analyst === '' ? {} : { analyst: Number(analyst) }),
          officer: officers.name(cred.officer),
          passphrase: cred.passphrase
        })
        const whose = r.entry.analyst
          ? `Analyst “${r.entry.analyst.name}”’s own budget on “${r.entry.datasetName}”`
          : `Budget of “${r.entry.datasetName}”`
        setDone(
          `${whose} set to ε ${formatExact(r.entry.epsilonExact)} ${
            r.entry.notion ? `as an extra cap on ${notionName(r.entry.notion)}` : `as the ${budgetName(ledger?.unitKind ?? unitOfList(list, ds))}`
          } (ledger entry ${r.entry.seq}).`
        )
        setReason('')
        setFreeze(false)
        props.onSet()
      })
      .finally(() => setCred((c) => ({ ...c, passphrase: '' })))

  if (props.datasets === null) {
    return (
      <section className="panel" data-testid="budget-form-loading">
        <h2>Set a budget</h2>
        {props.datasetsError ? <ErrorText error={props.datasetsError} /> : <Loading what="the datasets" />}
      </section>
    )
  }
  if (list.length === 0) {
    return (
      <section className="panel empty-state" data-testid="budget-no-dataset">
        <h2>Budgets</h2>
        <p>
          <a href={href('datasets')}>Import a dataset</a> first; then set its privacy budget here.
        </p>
      </section>
    )
  }
  return (
    <section className="panel" id="budget" tabIndex={-1} ref={target.ref} aria-labelledby="budget-title" data-testid="budget-form">
      <h2 id="budget-title">Set a budget</h2>
      <p className="hint">
        For the privacy officer. The budget per person (or row, on a row-level dataset) bounds what one person may lose, summed over every notion; a
        notion may also get its own, smaller cap. Without a budget every release on the dataset is denied. Each change is a ledger entry with its
        reason, signed with the officer’s key (the passphrase is not kept).
      </p>
      <NoOfficerNotice act="A budget" officers={officers} testId="budget-no-officer" />
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault()
          if (valid) submit()
        }}
      >
        <SelectField
          label="Dataset"
          value={ds}
          onChange={setDatasetId}
          options={list.map((d) => ({ value: String(d.id), label: d.name }))}
          testId="budget-dataset"
        />
        {analysts.length > 0 && (
          <SelectField
            label="Whose budget"
            value={analyst}
            onChange={setAnalyst}
            options={[
              { value: '', label: 'The dataset’s (every analyst together)' },
              ...analysts.map((a) => ({ value: String(a.id), label: `Analyst ${a.name}’s own, within the dataset’s` }))
            ]}
            testId="budget-analyst"
            width="wide"
          />
        )}
        <SelectField
          label="Privacy notion"
          value={notion}
          onChange={setNotion}
          options={[
            { value: 'all', label: `The ${budgetName(ledger?.unitKind ?? unitOfList(list, ds))}, all notions summed` },
            ...NOTION_OPTIONS.map((o) => ({ ...o, label: `Extra cap on ${o.label}` }))
          ]}
          testId="budget-notion"
          width="wide"
        />
        <NumberField
          label="Budget ε"
          value={freeze ? spentExact : epsilon}
          onChange={setEpsilon}
          testId="budget-epsilon"
          invalid={!freeze && epsilon !== '' && (eps === null || eps < 0 || eps < spent)}
          hint={spent > 0 ? <>Already spent: ε {formatExact(spentExact)}</> : undefined}
        />
        <TextField
          label="Reason (recorded)"
          value={reason}
          onChange={setReason}
          testId="budget-reason"
          width="wide"
          placeholder="e.g. quarterly allowance approved by the board"
        />
        {spent > 0 && (
          <div className="field full" data-testid="budget-freeze">
            <label className="check">
              <input type="checkbox" checked={freeze} onChange={(e) => setFreeze(e.target.checked)} />
              Freeze: no further releases (the budget becomes exactly what is spent, ε {formatExact(spentExact)}; say why in the reason)
            </label>
          </div>
        )}
        <OfficerFields officers={officers} value={cred} onChange={setCred} testIdPrefix="budget" />
        <div className="field actions">
          <button type="submit" disabled={!valid || act.busy} title={why ?? undefined} data-testid="budget-set">
            {act.busy ? 'Signing…' : freeze ? 'Freeze' : 'Set budget'}
          </button>
        </div>
      </form>
      {why && (
        <p className="hint" data-testid="budget-why">
          {why}
        </p>
      )}
      <ErrorText error={officers.error} />
      <ErrorText error={act.error} testId="budget-error" />
      {done && (
        <p className="ok" role="status" data-testid="budget-done">
          {done}
        </p>
      )}
    </section>
  )
}

function unitOfList(list: DatasetInfo[], ds: string): 'person' | 'row' | null {
  return list.find((d) => String(d.id) === ds)?.unit.kind ?? null
}

/**
 * The analyst accounts in force (the service's officer, or a workbench preparing a service's workspace): an officer may
 * give each their own budget within the dataset's. Empty when there are none, or when the caller may not list accounts.
 */
function useAnalystAccounts(): AccountInfo[] {
  const accounts = useQuery('accounts/list', {})
  return (accounts.data ?? []).filter((a) => a.role === 'analyst' && a.status === 'active')
}

/** Why the budget cannot be set yet (null: it can), in one sentence; the officer's part is checked after this. */
export function budgetWhy(f: {
  ds: string
  epsilon: string
  eps: number | null
  freeze: boolean
  spent: number
  spentExact: string
  reason: string
}): string | null {
  if (f.ds === '') return 'Choose a dataset.'
  if (!f.freeze) {
    if (f.epsilon.trim() === '') return 'Give the budget ε (a number, 0 or more).'
    if (f.eps === null || f.eps < 0) return `The budget ε must be a number, 0 or more (got “${f.epsilon.trim()}”).`
    if (f.eps < f.spent)
      return `ε ${f.epsilon.trim()} is below what is already spent (ε ${formatExact(f.spentExact)}), and a spend cannot be undone: set at least that much, or freeze (no further releases).`
  }
  if (f.reason.trim() === '')
    return f.freeze ? 'Give the reason for the freeze: it is recorded in the ledger.' : 'Give a reason: it is recorded in the ledger.'
  return null
}
