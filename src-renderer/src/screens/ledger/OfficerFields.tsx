/**
 * The fields of an officer act: the registered officer (filled in when there is only one) and the passphrase, which
 * travels with the request and is never kept (the field is cleared after each act).
 */
import { useId } from 'react'
import { useChanges } from '../../api/changes'
import { useQuery } from '../../api/hooks'
import { SelectField, TextField } from '../../components/Fields'
import { href } from '../../sections'

export interface OfficerInput {
  officer: string
  passphrase: string
}

export interface Officers {
  names: string[]
  loaded: boolean
  error: string | null
  /** An empty choice resolved to the only officer registered. */
  name: (typed: string) => string
}

/** The registered officers (reloaded when an officer is registered anywhere in the page). */
export function useOfficers(): Officers {
  const version = useChanges('officers')
  const q = useQuery('officer/list', {}, [version])
  const names = (q.data ?? []).map((o) => o.name)
  return { names, loaded: q.data !== null, error: q.error, name: (typed) => typed.trim() || (names.length === 1 ? names[0] : '') }
}

/** Where the first officer is set up (the Ledger screen's "Privacy officers" panel). */
export const OFFICER_SETUP_HREF = href('ledger', 'officers')

export const NO_OFFICER_WHY = 'No privacy officer is registered yet: set one up first under “Privacy officers” on the Ledger screen.'

/** Why an officer act cannot be submitted yet (null: it can). */
export function officerWhy(o: Officers, v: OfficerInput): string | null {
  if (!o.loaded) return 'Loading the registered officers…'
  if (o.names.length === 0) return NO_OFFICER_WHY
  if (o.name(v.officer) === '') return 'Choose the officer.'
  if (v.passphrase === '') return 'Give the officer’s passphrase: the act is signed with the officer’s key.'
  return null
}

/** Said where an officer act is offered and no officer exists yet: the way to set one up, before the form is filled. */
export function NoOfficerNotice(props: { act: string; officers: Officers; testId?: string }) {
  if (!props.officers.loaded || props.officers.names.length > 0) return null
  return (
    <p className="notice warn" data-testid={props.testId ?? 'no-officer'}>
      {props.act} is signed by a privacy officer, and none is registered in this workspace yet.{' '}
      <a href={OFFICER_SETUP_HREF}>Set up the privacy officer</a> first (a name and a passphrase; it takes a minute).
    </p>
  )
}

export function OfficerFields(props: {
  officers: Officers
  value: OfficerInput
  onChange: (v: OfficerInput) => void
  testIdPrefix: string
  /** Labels where "Officer" and "Passphrase" alone would be ambiguous (e.g. beside a new officer's passphrase). */
  labels?: { officer: string; passphrase: string }
}) {
  const id = useId()
  const { officers, value, onChange, testIdPrefix } = props
  const labels = props.labels ?? { officer: 'Officer', passphrase: 'Passphrase' }
  return (
    <>
      {officers.names.length > 1 ? (
        <SelectField
          label={labels.officer}
          value={value.officer}
          onChange={(officer) => onChange({ ...value, officer })}
          options={[{ value: '', label: 'Choose…' }, ...officers.names.map((n) => ({ value: n, label: n }))]}
          testId={`${testIdPrefix}-officer`}
        />
      ) : (
        <TextField
          label={labels.officer}
          value={officers.name(value.officer)}
          onChange={(officer) => onChange({ ...value, officer })}
          testId={`${testIdPrefix}-officer`}
        />
      )}
      <div className="field narrow">
        <label htmlFor={`${id}-passphrase`}>{labels.passphrase}</label>
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
