/**
 * Privacy officers, in the app: set up the first officer of the workspace (a name and a passphrase, the rules said
 * before it is typed), list who is registered, and add another officer (an act of a registered one). Nothing here needs
 * a terminal. `#/ledger/officers` scrolls here.
 */
import { useEffect, useId, useRef, useState } from 'react'
import type { ResponseOf } from '../../../../src-main/contract'
import { OFFICER_PASSPHRASE_RULES } from '../../../../src-main/contract/officer-passphrase'
import { announceChange, useChanges } from '../../api/changes'
import { useAction, useClient, useQuery } from '../../api/hooks'
import { ErrorText, TextField } from '../../components/Fields'
import { Loading } from '../../components/Loading'
import { formatDate } from '../../format'
import { href } from '../../sections'
import { useFirstRun } from '../datasets/FirstRunGuide'
import { OfficerFields, type Officers, officersFrom } from './OfficerFields'
import { type RegisterOfficerForm, emptyRegisterOfficerForm, resolveRegisterOfficer } from './registerOfficerState'
import { ScrollRegion } from '../../components/ScrollRegion'
import { useMay } from '../../api/who'

type Registered = ResponseOf<'officer/register'>

export function OfficersPanel(props: { focus: boolean }) {
  const version = useChanges('officers')
  const list = useQuery('officer/list', {}, [version])
  const [adding, setAdding] = useState(false)
  /** Registering an officer is an officer account's act (the workbench's user holds every role). */
  const mayRegister = useMay('officer/register')
  // Once officers exist the panel is a line (who is registered), opened to see their keys or add one.
  const [expanded, setExpanded] = useState(props.focus)
  const [done, setDone] = useState<Registered | null>(null)
  const ref = useRef<HTMLElement>(null)
  useEffect(() => {
    if (props.focus) {
      setExpanded(true)
      ref.current?.scrollIntoView({ block: 'start' })
      ref.current?.focus()
    }
  }, [props.focus])
  const officers = list.data ?? []
  const names = officers.map((o) => o.name)
  const asOfficers: Officers = officersFrom(list.data, list.error)
  const registered = (r: Registered) => {
    setDone(r)
    setAdding(false)
    announceChange('officers')
  }
  return (
    <section
      className="panel officer stack-tight"
      id="officers"
      tabIndex={-1}
      ref={ref}
      aria-labelledby="officers-title"
      data-testid="officers-panel"
    >
      <h2 id="officers-title">Privacy officers</h2>
      <p className="hint" hidden={officers.length > 0 && !expanded}>
        The privacy officer sets budgets, declares datasets public, unlocks sealed costs and signs checkpoints. Each act is signed with the officer’s
        own key, which a passphrase protects: verify can then tell the officer’s acts from anything written around the app.
      </p>
      <ErrorText error={list.error} />
      {list.loading && list.data === null && <Loading what="the registered officers" />}
      {list.data !== null && officers.length === 0 && (
        <>
          <p data-testid="officers-none">
            <strong>No privacy officer yet.</strong> Set up the first one now: until then no budget can be set, so every release is denied.
          </p>
          {mayRegister ? (
            <RegisterOfficerFormView officers={asOfficers} onRegistered={registered} />
          ) : (
            <p className="hint">Setting up the privacy officer is the officer’s act.</p>
          )}
        </>
      )}
      {officers.length > 0 && !expanded && (
        <div className="panel-line" data-testid="officers-summary">
          <span>
            Registered: {names.join(', ')}. {officers.length === 1 ? 'Their key signs' : 'Their keys sign'} every officer act.
          </span>
          <button type="button" className="secondary small" onClick={() => setExpanded(true)} data-testid="officers-expand" aria-expanded={false}>
            {mayRegister ? 'Keys and adding an officer…' : 'Keys…'}
          </button>
        </div>
      )}
      {officers.length > 0 && expanded && (
        <>
          <ScrollRegion label="Registered officers">
            <table className="compact" data-testid="officers-list">
              <thead>
                <tr>
                  <th scope="col">Officer</th>
                  <th scope="col">Key id (keep it elsewhere)</th>
                  <th scope="col">Registered</th>
                  <th scope="col">Added by</th>
                </tr>
              </thead>
              <tbody>
                {officers.map((o) => (
                  <tr key={o.keyId} data-testid={`officer-${o.name}`}>
                    <td>{o.name}</td>
                    <td>
                      <code>{fingerprint(o.keyId)}</code>
                    </td>
                    <td>{formatDate(o.createdAt)}</td>
                    <td>{o.addedByName === o.name ? 'the first officer' : o.addedByName}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </ScrollRegion>
          {!mayRegister ? null : adding ? (
            <RegisterOfficerFormView officers={asOfficers} onRegistered={registered} onCancel={() => setAdding(false)} />
          ) : (
            <div className="button-row">
              <button type="button" className="secondary" onClick={() => setAdding(true)} data-testid="officer-add-open">
                Add an officer…
              </button>
            </div>
          )}
        </>
      )}
      {done && (
        <div className="notice ok-box" role="status" data-testid="officer-registered">
          <p>
            <strong>
              Officer “{done.name}” registered{done.addedByName === done.name ? ' (the first officer of this workspace)' : ` by ${done.addedByName}`}.
            </strong>{' '}
            Key id <code data-testid="officer-key-id">{done.fingerprint}</code>: write it down somewhere else; verify names the key behind every
            signature. The passphrase cannot be recovered.
          </p>
          <NextStep version={version} />
        </div>
      )}
    </section>
  )
}

/** After an officer is set up: the first run's next step, linked (or the way back to "Getting started"). */
function NextStep(props: { version: number }) {
  const run = useFirstRun(props.version)
  if (run === 'loading') return null
  const next = run === 'unknown' ? null : run.next
  return (
    <p data-testid="officer-next-step">
      {next ? (
        <>
          Next step: <a href={next.href}>{next.title}</a> ({next.who}
          {next.href === href('datasets') ? ', under “Getting started” on Datasets' : ''}).
          {next.href !== href('datasets') && (
            <>
              {' '}
              <a href={href('datasets')}>Back to “Getting started”</a>
            </>
          )}
        </>
      ) : (
        <a href={href('datasets')}>Back to the datasets</a>
      )}
    </p>
  )
}

function fingerprint(keyId: string): string {
  return keyId.match(/.{1,4}/g)?.join(' ') ?? keyId
}

function RegisterOfficerFormView(props: { officers: Officers; onRegistered: (r: Registered) => void; onCancel?: () => void }) {
  const client = useClient()
  const id = useId()
  const act = useAction()
  const [form, setForm] = useState<RegisterOfficerForm>(emptyRegisterOfficerForm)
  const set = (patch: Partial<RegisterOfficerForm>) => setForm((f) => ({ ...f, ...patch }))
  const { request, why, first } = resolveRegisterOfficer(form, props.officers.names)
  const submit = () => {
    if (!request) return
    void act
      .run(() => client.call('officer/register', request))
      .then((r) => {
        // Passphrases are never kept, whatever the outcome.
        setForm((f) => ({ ...emptyRegisterOfficerForm, name: r ? '' : f.name, byOfficer: f.byOfficer }))
        if (r) props.onRegistered(r)
      })
  }
  return (
    <form
      className="stack-tight"
      data-testid="officer-register-form"
      aria-labelledby={`${id}-title`}
      onSubmit={(e) => {
        e.preventDefault()
        submit()
      }}
    >
      <h3 id={`${id}-title`}>{first ? 'Set up the privacy officer' : 'Add an officer'}</h3>
      <ul className="hint rules" data-testid="officer-passphrase-rules">
        {OFFICER_PASSPHRASE_RULES.map((r) => (
          <li key={r}>{r}</li>
        ))}
      </ul>
      <div className="row">
        <TextField
          label="Officer’s name"
          value={form.name}
          onChange={(name) => set({ name })}
          testId="officer-new-name"
          placeholder="e.g. Dana Ortiz, DPO"
        />
        <div className="field">
          <label htmlFor={`${id}-pass`}>New passphrase</label>
          <input
            id={`${id}-pass`}
            type="password"
            autoComplete="new-password"
            value={form.passphrase}
            onChange={(e) => set({ passphrase: e.target.value })}
            data-testid="officer-new-passphrase"
          />
        </div>
        <div className="field">
          <label htmlFor={`${id}-repeat`}>Repeat the passphrase</label>
          <input
            id={`${id}-repeat`}
            type="password"
            autoComplete="new-password"
            value={form.repeated}
            onChange={(e) => set({ repeated: e.target.value })}
            data-testid="officer-new-repeated"
          />
        </div>
      </div>
      {!first && (
        <div className="row" data-testid="officer-added-by">
          <p className="hint field full">Added by a registered officer, whose key signs the new officer’s registration:</p>
          <OfficerFields
            officers={props.officers}
            value={{ officer: form.byOfficer, passphrase: form.byPassphrase }}
            onChange={(v) => set({ byOfficer: v.officer, byPassphrase: v.passphrase })}
            testIdPrefix="officer-by"
            labels={{ officer: 'Added by', passphrase: 'Their passphrase' }}
          />
        </div>
      )}
      <div className="button-row">
        <button type="submit" disabled={request === null || act.busy} title={why ?? undefined} data-testid="officer-register">
          {act.busy ? 'Creating the key…' : first ? 'Set up the privacy officer' : 'Add the officer'}
        </button>
        {props.onCancel && (
          <button type="button" className="secondary" onClick={props.onCancel}>
            Cancel
          </button>
        )}
      </div>
      {why && (
        <p className="hint" data-testid="officer-register-why">
          {why}
        </p>
      )}
      <ErrorText error={act.error} testId="officer-register-error" />
    </form>
  )
}
