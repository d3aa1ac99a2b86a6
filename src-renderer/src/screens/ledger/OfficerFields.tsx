/**
 * The fields of an officer act on the Ledger screen (issue 15): the registered officer (filled in when there is only
 * one) and the passphrase, which travels with the request and is never kept (the field is cleared after each act).
 */
import { useId } from 'react'
import { useQuery } from '../../api/hooks'
import { SelectField, TextField } from '../../components/Fields'

export interface OfficerInput {
  officer: string
  passphrase: string
}

/** The registered officers; `name` resolves an empty choice to the only one registered. */
export function useOfficers(): { names: string[]; loaded: boolean; error: string | null; name: (typed: string) => string } {
  const q = useQuery('officer/list', {})
  const names = (q.data ?? []).map((o) => o.name)
  return { names, loaded: q.data !== null, error: q.error, name: (typed) => typed.trim() || (names.length === 1 ? names[0] : '') }
}

/** Why an officer act cannot be submitted yet (null: it can). */
export function officerWhy(o: ReturnType<typeof useOfficers>, v: OfficerInput): string | null {
  if (o.loaded && o.names.length === 0)
    return 'No privacy officer is registered in this workspace: register one first with “quiet-alarm officer init --name NAME”.'
  if (o.name(v.officer) === '') return 'Choose the officer.'
  if (v.passphrase === '') return 'Give the officer’s passphrase: the act is signed with the officer’s key.'
  return null
}

export function OfficerFields(props: {
  officers: ReturnType<typeof useOfficers>
  value: OfficerInput
  onChange: (v: OfficerInput) => void
  testIdPrefix: string
}) {
  const id = useId()
  const { officers, value, onChange, testIdPrefix } = props
  return (
    <>
      {officers.names.length > 1 ? (
        <SelectField
          label="Officer"
          value={value.officer}
          onChange={(officer) => onChange({ ...value, officer })}
          options={[{ value: '', label: 'Choose…' }, ...officers.names.map((n) => ({ value: n, label: n }))]}
          testId={`${testIdPrefix}-officer`}
        />
      ) : (
        <TextField
          label="Officer"
          value={officers.name(value.officer)}
          onChange={(officer) => onChange({ ...value, officer })}
          testId={`${testIdPrefix}-officer`}
        />
      )}
      <div className="field narrow">
        <label htmlFor={`${id}-passphrase`}>Passphrase</label>
        <input
          id={`${id}-passphrase`}
          type="password"
          autoComplete="current-password"
          value={value.passphrase}
          onChange={(e) => onChange({ ...value, passphrase: e.target.value })}
          data-testid={`${testIdPrefix}-passphrase`}
        />
      </div>
    </>
  )
}
