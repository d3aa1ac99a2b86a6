/**
 * The fields of an officer act: the registered officer, chosen from a list of the registered officers (the only one is
 * preselected; a name is typed only while none is registered, beside the way to set one up), and the passphrase, which
 * travels with the request and is never kept (the field is cleared after each act).
 */
import { useEffect, useId } from 'react'
import { useChanges } from '../../api/changes'
import { useQuery } from '../../api/hooks'
import { SelectField, TextField } from '../../components/Fields'
import { href } from '../../sections'
import { officerChoices, resolveOfficerName } from './officerChoices'

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

/**
 * The registered officers: read when the form using them mounts, and again when `opened` changes (a panel that stays
 * mounted passes its open state), when an officer is registered anywhere in the page, and when the window gets the
 * focus back (an officer may have been registered outside the app: the CLI, another browser).
 */
export function useOfficers(opened?: boolean): Officers {
  const version = useChanges('officers')
  const q = useQuery('officer/list', {}, [version, opened])
  const { reload } = q
  useEffect(() => {
    const onFocus = () => reload()
    const onVisible = () => document.visibilityState === 'visible' && reload()
    window.addEventListener('focus', onFocus)
    document.addEventListener('visibilitychange', onVisible)
    return () => {
      window.removeEventListener('focus', onFocus)
      document.removeEventListener('visibilitychange', onVisible)
    }
  }, [reload])
  return officersFrom(q.data, q.error)
}

/** The officers as a form uses them, from the list the services gave (null: not loaded yet). */
export function officersFrom(list: ReadonlyArray<{ name: string }> | null, error: string | null): Officers {
  const names = (list ?? []).map((o) => o.name)
  return { names, loaded: list !== null, error, name: (typed) => resolveOfficerName(names, typed) }
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
  const choice = officerChoices(officers.names, value.officer)
  return (
    <>
      {choice.kind === 'select' ? (
        <SelectField
          label={labels.officer}
          value={choice.value}
          onChange={(officer) => onChange({ ...value, officer })}
          options={choice.options}
          testId={`${testIdPrefix}-officer`}
        />
      ) : (
        <TextField
          label={labels.officer}
          value={value.officer}
          onChange={(officer) => onChange({ ...value, officer })}
          testId={`${testIdPrefix}-officer`}
          hint={
            officers.loaded ? (
              <span data-testid={`${testIdPrefix}-officer-none`}>
                No officer is registered yet: <a href={OFFICER_SETUP_HREF}>Set up the privacy officer</a>.
              </span>
            ) : undefined
          }
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
