/**
 * Create an alarm from a saved threshold question (an officer act): the schedule and the accuracy asked, then what it
 * would cost from alarms/preview (the least ε, the accounting mode in words, the lifetime figure and the warnings)
 * before the officer signs with a reason and the passphrase (which travels with the request only and is cleared).
 */
import { useEffect, useRef, useState } from 'react'
import type { AlarmMode, AlarmPeriodUnit, AlarmPreview, AlarmPreviewRequest, AlarmView } from '../../../../src-main/contract'
import { useAction, useClient, useDebounced, useQuery } from '../../api/hooks'
import { useWho } from '../../api/who'
import { ErrorText, NumberField, SelectField, TextField, parseNumber } from '../../components/Fields'
import { Loading } from '../../components/Loading'
import { formatExact, formatNumber } from '../../format'
import { NoOfficerNotice, type OfficerInput, OfficerFields, officerWhy, useOfficers } from '../ledger/OfficerFields'

const PERIOD_OPTIONS: Array<{ value: AlarmPeriodUnit; label: string }> = [
  { value: 'hour', label: 'Every hour' },
  { value: 'day', label: 'Every day' },
  { value: 'week', label: 'Every week' }
]
type ModeChoice = AlarmMode | ''
const MODE_OPTIONS: Array<{ value: ModeChoice; label: string }> = [
  { value: '', label: 'The dataset’s own (row-level, or per period for persons)' },
  { value: 'row-level', label: 'Row-level: each row lies in one period' },
  { value: 'per-period', label: 'Per period: each period charged, inside a lifetime cap' },
  { value: 'when-fires', label: 'When it fires: one charge covers quiet periods and a few fires' }
]

/** Today 00:00 UTC, as the start a new alarm is offered. */
function todayUtc(): string {
  return `${new Date().toISOString().slice(0, 10)}T00:00:00Z`
}

/** `queryId`: the saved question to start from (the address's `?watch=`; the form opens scrolled into view). */
export function CreateAlarm(props: { queryId: number | null; onCreated: (a: AlarmView) => void }) {
  const client = useClient()
  const queries = useQuery('queries/list', {})
  const datasets = useQuery('datasets/list', {})
  const officers = useOfficers()
  const act = useAction()
  const [queryId, setQueryId] = useState(props.queryId === null ? '' : String(props.queryId))
  const panel = useRef<HTMLElement>(null)
  const asked0 = props.queryId !== null
  useEffect(() => {
    if (asked0) panel.current?.scrollIntoView({ block: 'start' })
  }, [asked0])
  const [timeColumn, setTimeColumn] = useState('')
  const [period, setPeriod] = useState<AlarmPeriodUnit>('hour')
  const [start, setStart] = useState(todayUtc)
  const [grace, setGrace] = useState('0')
  const [mode, setMode] = useState<ModeChoice>('')
  const [beta, setBeta] = useState('0.05')
  const [alpha, setAlpha] = useState('')
  const [fires, setFires] = useState('1')
  const [lifetime, setLifetime] = useState('')
  const [name, setName] = useState('')
  const [reason, setReason] = useState('')
  const [cred, setCred] = useState<OfficerInput>({ officer: '', passphrase: '' })
  const [created, setCreated] = useState<AlarmView | null>(null)
  // The service: the analyst the alarm watches for (its periods are charged to that analyst's allotment).
  const inService = useWho().kind === 'account'
  const accounts = useQuery('accounts/list', inService ? {} : null)
  const analysts = (accounts.data ?? []).filter((x) => x.role === 'analyst' && x.status === 'active')
  const [analyst, setAnalyst] = useState('')
  const analystId = analysts.find((x) => String(x.id) === analyst)?.id

  const thresholdQueries = (queries.data ?? []).filter((q) => q.kind === 'threshold')
  const query = thresholdQueries.find((q) => String(q.id) === queryId) ?? thresholdQueries[0] ?? null
  const dataset = (datasets.data ?? []).find((d) => d.id === query?.datasetId) ?? null
  const timeColumns = (dataset?.columns ?? []).filter((c) => c.type === 'timestamp').map((c) => c.name)
  const column = timeColumns.includes(timeColumn) ? timeColumn : (timeColumns[0] ?? '')
  const betaN = parseNumber(beta)
  const alphaN = parseNumber(alpha)
  const firesN = parseNumber(fires)
  const graceN = parseNumber(grace)
  const whyForm =
    query === null
      ? 'Save a threshold question first (Queries screen): an alarm watches a saved one.'
      : column === ''
        ? `“${dataset?.name ?? 'The dataset'}” has no timestamp column to place a row in its period.`
        : Number.isNaN(Date.parse(start))
          ? 'Give the start of the first period as a date and time, e.g. 2026-12-01T00:00:00Z.'
          : graceN === null || !Number.isInteger(graceN) || graceN < 0
            ? 'Give the grace as whole seconds (0 or more).'
            : betaN === null || betaN <= 0 || betaN >= 0.5
              ? 'Give β, the chance of missing a predicate truly over its threshold, between 0 and 0.5.'
              : alphaN === null || alphaN <= 0
                ? 'Give α: predicates within 2α under their threshold may fire.'
                : mode === 'when-fires' && (firesN === null || !Number.isInteger(firesN) || firesN < 1)
                  ? 'Give the fires one instance covers as a whole number (1 or more).'
                  : lifetime.trim() !== '' && !/^\d+(\.\d+)?$/.test(lifetime.trim())
                    ? 'Give the lifetime cap as a number of ε, or leave it empty.'
                    : null
  const request: AlarmPreviewRequest | null =
    whyForm !== null || query === null || betaN === null || alphaN === null || graceN === null
      ? null
      : {
          queryId: query.id,
          timeColumn: column,
          period,
          start: start.trim(),
          graceSeconds: graceN,
          ...(mode === '' ? {} : { mode }),
          beta: betaN,
          alpha: alphaN,
          ...(mode === 'when-fires' && firesN !== null ? { fires: firesN } : {}),
          ...(lifetime.trim() === '' ? {} : { lifetime: lifetime.trim() }),
          ...(name.trim() === '' ? {} : { name: name.trim() })
        }
  const asked = useDebounced(request === null ? null : JSON.stringify(request), 300)
  const preview = useQuery('alarms/preview', asked === null ? null : (JSON.parse(asked) as AlarmPreviewRequest), [asked])
  const previewCurrent = asked !== null && asked === JSON.stringify(request) && preview.data !== null && !preview.loading
  const why =
    whyForm ??
    (!previewCurrent
      ? 'Wait for what the alarm would cost.'
      : reason.trim() === ''
        ? 'Give the reason (it is recorded).'
        : officerWhy(officers, cred))

  const create = () =>
    void act.run(async () => {
      if (request === null) return
      const a = await client.call('alarms/create', {
        ...request,
        ...(analystId === undefined ? {} : { analyst: analystId }),
        reason: reason.trim(),
        officer: officers.name(cred.officer) || undefined,
        passphrase: cred.passphrase
      })
      setCred({ ...cred, passphrase: '' })
      setReason('')
      setCreated(a)
      props.onCreated(a)
    })

  return (
    <section className="panel officer" aria-labelledby="alarm-create-title" data-testid="alarm-create" ref={panel}>
      <h2 id="alarm-create-title">Create an alarm</h2>
      <p className="hint">
        An alarm watches a saved threshold question every period and says which predicates fired. The privacy officer signs it once, with its
        accounting mode and caps.
      </p>
      <NoOfficerNotice act="Creating an alarm" officers={officers} testId="alarm-create-no-officer" />
      {(queries.loading || datasets.loading) && queries.data === null && <Loading what="the saved questions" />}
      <form
        className="stack-tight"
        onSubmit={(e) => {
          e.preventDefault()
          if (why === null) create()
        }}
      >
        <div className="row">
          <SelectField
            label="Saved question"
            value={query ? String(query.id) : ''}
            onChange={setQueryId}
            options={thresholdQueries.map((q) => ({
              value: String(q.id),
              label: `${q.name}${q.version > 1 ? ` (version ${q.version})` : ''}`
            }))}
            testId="alarm-create-query"
            width="wide"
          />
          <SelectField
            label="Time column"
            value={column}
            onChange={setTimeColumn}
            options={timeColumns.map((c) => ({ value: c, label: c }))}
            testId="alarm-create-time-column"
          />
          <SelectField label="Period" value={period} onChange={setPeriod} options={PERIOD_OPTIONS} testId="alarm-create-period" />
          <TextField
            label="First period starts (UTC)"
            value={start}
            onChange={setStart}
            testId="alarm-create-start"
            hint="ISO 8601; without a zone it is read as UTC"
          />
          <NumberField label="Grace (seconds)" value={grace} onChange={setGrace} testId="alarm-create-grace" hint="late rows still counted" />
        </div>
        <div className="row">
          <SelectField label="Accounting mode" value={mode} onChange={setMode} options={MODE_OPTIONS} testId="alarm-create-mode" width="wide" />
          <NumberField label="Miss at most (β)" value={beta} onChange={setBeta} testId="alarm-create-beta" />
          <NumberField label="Tolerance (α)" value={alpha} onChange={setAlpha} testId="alarm-create-alpha" />
          {mode === 'when-fires' && <NumberField label="Fires per instance" value={fires} onChange={setFires} testId="alarm-create-fires" />}
          <TextField
            label="Lifetime cap ε (optional)"
            value={lifetime}
            onChange={setLifetime}
            testId="alarm-create-lifetime"
            hint="per person (or row); empty: the dataset’s budgets bind"
          />
          <TextField
            label="Name (optional)"
            value={name}
            onChange={setName}
            testId="alarm-create-name"
            placeholder={query ? `${query.name}, every ${period}` : ''}
          />
        </div>
        {whyForm && (
          <p className="hint todo" data-testid="alarm-create-why-form">
            {whyForm}
          </p>
        )}
        {request !== null && (
          <div aria-live="polite">
            <ErrorText error={preview.error} testId="alarm-preview-error" />
            {preview.data && <PreviewText preview={preview.data} stale={!previewCurrent} />}
          </div>
        )}
        {inService && (
          <div className="row">
            <SelectField
              label="Watches for"
              value={analystId === undefined ? '' : String(analystId)}
              onChange={setAnalyst}
              options={[
                { value: '', label: 'No analyst: the officer’s own alarm' },
                ...analysts.map((x) => ({ value: String(x.id), label: `${x.name} (charged to their allotment)` }))
              ]}
              testId="alarm-create-analyst"
              width="wide"
            />
          </div>
        )}
        <div className="row">
          <TextField label="Reason (recorded)" value={reason} onChange={setReason} testId="alarm-create-reason" width="wide" />
          <OfficerFields officers={officers} value={cred} onChange={setCred} testIdPrefix="alarm-create" />
          <div className="field actions">
            <button
              type="submit"
              disabled={act.busy || why !== null}
              aria-describedby={why ? 'alarm-create-why' : undefined}
              data-testid="alarm-create-submit"
            >
              {act.busy ? 'Signing…' : 'Sign and start watching'}
            </button>
          </div>
        </div>
        {why && whyForm === null && (
          <p className="hint todo" id="alarm-create-why" data-testid="alarm-create-why">
            {why}
          </p>
        )}
      </form>
      <ErrorText error={act.error} testId="alarm-create-error" />
      {created && (
        <p className="ok" role="status" data-testid="alarm-created">
          Alarm “{created.name}” is watching (ledger entry {created.ledgerSeq}); its timeline is open above.
        </p>
      )}
    </section>
  )
}

function PreviewText(props: { preview: AlarmPreview; stale: boolean }) {
  const p = props.preview
  return (
    <div className={props.stale ? 'notice stale' : 'notice'} data-testid="alarm-preview" aria-busy={props.stale || undefined}>
      <p data-testid="alarm-preview-charge">
        <strong>
          Least ε {formatExact(p.chargeExact)} per {p.unit}
          {p.mode === 'when-fires' ? ' for each instance' : ' for each period'}
        </strong>
        : {p.chargeExplained}
      </p>
      <p data-testid="alarm-preview-mode">
        Accounting ({p.mode}): {p.modeText}
      </p>
      {p.split && (
        <p className="hint">
          The split: ε₁ {formatNumber(p.split.eps1)} for the threshold, ε₂ {formatNumber(p.split.eps2)} for the queries; a predicate fires against its
          threshold less {formatNumber(p.split.shift)}; the miss bound is {formatNumber(p.split.missBound)} (
          {p.split.bound === 'per-instance' ? 'for one instance' : `over the stream’s ${p.split.instances} instances`}).
        </p>
      )}
      <p data-testid="alarm-preview-lifetime">{p.lifetimeText}</p>
      <p>{p.guarantee}</p>
      {p.warnings.length > 0 && (
        <ul className="warnings" data-testid="alarm-preview-warnings">
          {p.warnings.map((w) => (
            <li key={w}>{w}</li>
          ))}
        </ul>
      )}
    </div>
  )
}
