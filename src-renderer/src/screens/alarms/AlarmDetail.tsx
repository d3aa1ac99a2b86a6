/**
 * One alarm: what it watches and what it has spent, its timeline (periods across, predicates down: the predicates that
 * fired in the periods shown, each fired cell carrying its period's accuracy sentence), the fires listed with their
 * sentences and late-row notes, and pause (officer, analyst) or resume (officer). Public fields only.
 */
import { useState } from 'react'
import type { AlarmHistory, AlarmPeriodView, AlarmView } from '../../../../src-main/contract'
import { useAction, useClient, useQuery } from '../../api/hooks'
import { useMay } from '../../api/who'
import { ErrorText, TextField } from '../../components/Fields'
import { Loading } from '../../components/Loading'
import { ScrollRegion } from '../../components/ScrollRegion'
import { formatDate, formatExact } from '../../format'
import { burnedText, statusText } from './alarmText'
import { timelineOf } from './timelineDefinition'

/** The newest periods the timeline shows (the CLI's `alarm history` lists them all). */
const TIMELINE_PERIODS = 168

export function AlarmDetail(props: { alarmId: number; reloadKey: string; onChanged: () => void; onClose: () => void }) {
  const history = useQuery('alarms/history', { alarmId: props.alarmId, limit: TIMELINE_PERIODS }, [props.alarmId, props.reloadKey])
  const h = history.data
  return (
    <section className="panel" aria-labelledby="alarm-detail-title" data-testid="alarm-detail">
      <h2 id="alarm-detail-title">{h && !history.loading ? `Alarm “${h.alarm.name}”` : `Alarm ${props.alarmId}`}</h2>
      <ErrorText error={history.error} testId="alarm-detail-error" />
      {h === null && history.loading && <Loading what="the alarm’s periods" />}
      {h && (
        <>
          <AlarmFacts alarm={h.alarm} />
          <PauseResume alarm={h.alarm} onChanged={props.onChanged} />
          <Timeline history={h} />
        </>
      )}
      <p>
        <button type="button" className="secondary small" onClick={props.onClose} data-testid="alarm-detail-close">
          Close the timeline
        </button>
      </p>
    </section>
  )
}

function AlarmFacts(props: { alarm: AlarmView }) {
  const a = props.alarm
  return (
    <dl className="facts" data-testid="alarm-facts">
      <dt>Watches</dt>
      <dd>
        “{a.queryName}” of “{a.datasetName}”, by its column “{a.timeColumn}”, every {a.period} from {formatDate(a.start)}
        {a.graceSeconds > 0 ? `, each evaluated ${a.graceSeconds} s after it ends` : ''}
      </dd>
      <dt>Status</dt>
      <dd data-testid="alarm-detail-status">{statusText(a)}</dd>
      <dt>Mode</dt>
      <dd data-testid="alarm-detail-mode">
        {a.mode}: {a.modeText}
      </dd>
      <dt>Accuracy</dt>
      <dd>{a.guarantee}</dd>
      <dt>Budget burned</dt>
      <dd data-testid="alarm-detail-burned">
        {burnedText(a)} (per {a.unit}; {a.mode === 'when-fires' ? 'each instance' : 'each period'} charges ε {formatExact(a.chargeExact)})
        {a.projection && <span className="hint block-line">{a.projection}</span>}
      </dd>
      {a.instance && (
        <>
          <dt>Instance</dt>
          <dd>
            {a.instance.ordinal}, with {a.instance.firesLeft} {a.instance.firesLeft === 1 ? 'fire' : 'fires'} left before the next instance is charged
          </dd>
        </>
      )}
      <dt>Next period</dt>
      <dd>{a.status === 'watching' ? `evaluated at ${formatDate(a.nextDueAt)}` : 'none while the alarm is not watching'}</dd>
      <dt>Signed</dt>
      <dd>
        by {a.signedBy} (ledger entry {a.ledgerSeq}), {formatDate(a.createdAt)}: {a.reason}
      </dd>
      <dt>Late rows</dt>
      <dd>{a.lateRowsText}</dd>
    </dl>
  )
}

function PauseResume(props: { alarm: AlarmView; onChanged: () => void }) {
  const client = useClient()
  const mayPause = useMay('alarms/pause')
  const mayResume = useMay('alarms/resume')
  const act = useAction()
  const [reason, setReason] = useState('')
  const a = props.alarm
  if (a.status === 'ended') return null
  if (a.status === 'watching' && mayPause)
    return (
      <form
        className="row"
        aria-label={`Pause ${a.name}`}
        onSubmit={(e) => {
          e.preventDefault()
          void act.run(async () => {
            await client.call('alarms/pause', { alarmId: a.alarmId, reason: reason.trim() === '' ? undefined : reason.trim() })
            setReason('')
            props.onChanged()
          })
        }}
      >
        <TextField label="Why pause (recorded, optional)" value={reason} onChange={setReason} testId="alarm-pause-reason" width="wide" />
        <div className="field actions">
          <button type="submit" className="secondary" disabled={act.busy} data-testid="alarm-pause">
            {act.busy ? 'Pausing…' : 'Pause'}
          </button>
        </div>
        <ErrorText error={act.error} testId="alarm-pause-error" />
      </form>
    )
  if (a.status === 'paused' && mayResume)
    return (
      <div className="stack-tight">
        <p className="hint">Resuming evaluates the periods missed while paused, in order, each once.</p>
        <p>
          <button
            type="button"
            disabled={act.busy}
            onClick={() =>
              void act.run(async () => {
                await client.call('alarms/resume', { alarmId: a.alarmId })
                props.onChanged()
              })
            }
            data-testid="alarm-resume"
          >
            {act.busy ? 'Resuming…' : 'Resume watching'}
          </button>
        </p>
        <ErrorText error={act.error} testId="alarm-resume-error" />
      </div>
    )
  return null
}

/** "18 Mar 14:00" of a period's start, in UTC (the periods are UTC). */
function periodLabel(p: AlarmPeriodView): string {
  const d = new Date(p.from)
  const month = d.toLocaleString('en-GB', { month: 'short', timeZone: 'UTC' })
  return `${d.getUTCDate()} ${month} ${String(d.getUTCHours()).padStart(2, '0')}:${String(d.getUTCMinutes()).padStart(2, '0')}`
}

function Timeline(props: { history: AlarmHistory }) {
  const { periods, total } = props.history
  if (periods.length === 0) return <p className="empty-state">No period has been evaluated yet.</p>
  const t = timelineOf(periods)
  const fires = t.periods.filter((p) => p.fired.length > 0)
  return (
    <>
      <h3>Timeline</h3>
      <p className="hint">
        {total > periods.length ? `The newest ${periods.length} of ${total} evaluated periods` : `All ${total} evaluated periods`}, oldest first
        (times in UTC). A marked cell: the predicate fired in that period.
      </p>
      <ScrollRegion label="The alarm’s timeline: periods across, predicates down" testId="alarm-timeline">
        <table className="compact timeline">
          <thead>
            <tr>
              <th scope="col">Predicate</th>
              {t.periods.map((p) => (
                <th scope="col" key={p.period} className={p.status === 'failed' ? 'failed' : undefined}>
                  {periodLabel(p)}
                  {p.status === 'failed' && <span className="hint block-line">failed</span>}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {t.predicates.length === 0 && (
              <tr>
                <th scope="row">Every predicate</th>
                {t.periods.map((p) => (
                  <td key={p.period} className="quiet">
                    <span aria-hidden="true">·</span>
                    <span className="sr-only">quiet</span>
                  </td>
                ))}
              </tr>
            )}
            {t.predicates.map((label, row) => (
              <tr key={label}>
                <th scope="row">{label}</th>
                {t.periods.map((p, col) =>
                  t.fired[row][col] ? (
                    <td key={p.period} className="fired" title={p.accuracy} data-testid={`alarm-cell-fired-${p.period}`}>
                      <span aria-hidden="true">●</span>
                      <span className="sr-only">fired: {p.accuracy}</span>
                    </td>
                  ) : (
                    <td key={p.period} className="quiet">
                      <span aria-hidden="true">·</span>
                      <span className="sr-only">quiet</span>
                    </td>
                  )
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollRegion>
      <h3>Fires</h3>
      {fires.length === 0 ? (
        <p className="empty-state">No predicate fired in these periods. {t.periods[0]?.accuracy}</p>
      ) : (
        <ul className="stack-tight" data-testid="alarm-fires">
          {fires.map((p) => (
            <li key={p.period} data-testid={`alarm-fire-${p.period}`}>
              <strong>
                {formatDate(p.from)} to {formatDate(p.to)}
              </strong>
              : {p.fired.join('; ')}. {p.accuracy}
              {p.instance !== null && ` (instance ${p.instance})`}
              <span className="hint block-line">{p.lateRowsNote}</span>
            </li>
          ))}
        </ul>
      )}
    </>
  )
}
