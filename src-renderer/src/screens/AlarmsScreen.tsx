/**
 * Alarms (UX.md "Alarms"): the list (watching, paused and why, fires, budget burned against the lifetime cap), one
 * alarm's timeline (periods across, predicates down, fired cells with their accuracy sentence), pause and resume by
 * role, and creating an alarm from a saved question (CreateAlarm.tsx). `?alarm=<id>` in the address opens that alarm's
 * timeline (alarmsAddress.ts), and the screen follows the address when it changes.
 * Everything shown is public: which predicates fired in which period, charges and sentences; never a count.
 */
import { useState } from 'react'
import type { AlarmView, RunDueResult } from '../../../src-main/contract'
import { useAction, useClient, useDebounced, useEvent, useQuery } from '../api/hooks'
import { useMay } from '../api/who'
import { ErrorText } from '../components/Fields'
import { Loading } from '../components/Loading'
import { ScrollRegion } from '../components/ScrollRegion'
import { useAddressChanges } from '../components/useAddressChanges'
import { AlarmDetail } from './alarms/AlarmDetail'
import { burnedText, statusText } from './alarms/alarmText'
import { alarmOfAddress, alarmsHref, watchOfAddress } from './alarms/alarmsAddress'
import { CreateAlarm } from './alarms/CreateAlarm'
import type { ScreenProps } from '.'

const EVENT_SETTLE_MS = 400
const PERIOD_WORDS: Record<AlarmView['period'], string> = { hour: 'every hour', day: 'every day', week: 'every week' }

export function AlarmsScreen(_props: ScreenProps) {
  const [version, setVersion] = useState(0)
  // Periods evaluated elsewhere (the app's clock, a catch-up of many periods) reload the screen once they pause for a moment.
  const [evaluated, setEvaluated] = useState(0)
  const heard = useDebounced(evaluated, EVENT_SETTLE_MS)
  const [selected, setSelected] = useState<number | null>(() => alarmOfAddress(window.location.hash))
  const [watch, setWatch] = useState<number | null>(() => watchOfAddress(window.location.hash))
  const list = useQuery('alarms/list', {}, [version, heard])
  const reload = () => setVersion((v) => v + 1)
  const mayCreate = useMay('alarms/create')
  useAddressChanges((hash) => {
    setSelected(alarmOfAddress(hash))
    setWatch(watchOfAddress(hash))
  })
  useEvent('alarm:evaluated', () => setEvaluated((n) => n + 1))
  const choose = (alarmId: number | null) => {
    setSelected(alarmId)
    const next = alarmsHref(alarmId)
    if (window.location.hash !== next) window.history.replaceState(null, '', next)
  }
  return (
    <div className="stack" data-testid="screen-alarms">
      <section className="panel" aria-labelledby="alarms-list-title" data-testid="alarms-list">
        <h2 id="alarms-list-title">Alarms</h2>
        <ErrorText error={list.error} />
        {list.data === null && list.loading && <Loading what="the alarms" />}
        {list.data && list.data.length === 0 && (
          <p className="empty-state">
            No alarm watches a question yet.{' '}
            {mayCreate ? 'Create one below from a saved threshold question.' : 'A privacy officer creates one from a saved threshold question.'}
          </p>
        )}
        {list.data && list.data.length > 0 && <AlarmsTable alarms={list.data} selected={selected} onChoose={choose} />}
        <RunDue onRun={reload} />
      </section>
      {selected !== null && <AlarmDetail alarmId={selected} reloadKey={`${version}-${heard}`} onChanged={reload} onClose={() => choose(null)} />}
      {mayCreate && (
        <CreateAlarm
          key={watch ?? 'any'}
          queryId={watch}
          onCreated={(a) => {
            reload()
            choose(a.alarmId)
          }}
        />
      )}
    </div>
  )
}

function AlarmsTable(props: { alarms: AlarmView[]; selected: number | null; onChoose: (id: number) => void }) {
  return (
    <ScrollRegion label="Alarms, their status, fires and budget burned">
      <table className="compact">
        <thead>
          <tr>
            <th scope="col">Alarm</th>
            <th scope="col">Question</th>
            <th scope="col">Period</th>
            <th scope="col">Mode</th>
            <th scope="col">Status</th>
            <th scope="col">Fired</th>
            <th scope="col">Budget burned</th>
          </tr>
        </thead>
        <tbody>
          {props.alarms.map((a) => (
            <tr key={a.alarmId} data-testid={`alarm-row-${a.alarmId}`} aria-current={a.alarmId === props.selected ? 'true' : undefined}>
              <td>
                <a
                  href={alarmsHref(a.alarmId)}
                  onClick={(e) => {
                    e.preventDefault()
                    props.onChoose(a.alarmId)
                  }}
                  data-testid={`alarm-open-${a.alarmId}`}
                >
                  {a.name}
                </a>
              </td>
              <td>
                {a.queryName}
                <span className="hint block-line">of “{a.datasetName}”</span>
              </td>
              <td>{PERIOD_WORDS[a.period]}</td>
              <td>{a.mode}</td>
              <td data-testid={`alarm-status-${a.alarmId}`}>{statusText(a)}</td>
              <td>
                {a.periodsFired} of {a.periodsEvaluated} {a.periodsEvaluated === 1 ? 'period' : 'periods'}
              </td>
              <td>
                {burnedText(a)}
                {a.projection && <span className="hint block-line">{a.projection}</span>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  )
}

/** Evaluates every closed period not yet evaluated now (the app also does so on its own clock while it runs). */
function RunDue(props: { onRun: () => void }) {
  const client = useClient()
  const may = useMay('alarms/run-due')
  const act = useAction()
  const [done, setDone] = useState<RunDueResult | null>(null)
  if (!may) return null
  const fired = done ? done.evaluated.filter((e) => e.fired.length > 0).length : 0
  return (
    <div className="stack-tight">
      <p className="hint">
        While the app runs it evaluates each period as it closes (its end plus the grace). Outside it, <code>quiet-alarm alarm run-due</code> from
        cron or a systemd timer does the same; a period is evaluated once, whoever gets to it first.
      </p>
      <p>
        <button
          type="button"
          className="secondary"
          disabled={act.busy}
          onClick={() =>
            void act.run(async () => {
              setDone(await client.call('alarms/run-due', {}))
              props.onRun()
            })
          }
          data-testid="alarms-run-due"
        >
          {act.busy ? 'Evaluating…' : 'Evaluate the due periods now'}
        </button>
      </p>
      <ErrorText error={act.error} testId="alarms-run-due-error" />
      {done && (
        <p className="ok" role="status" data-testid="alarms-run-due-done">
          {done.evaluated.length === 0
            ? 'No period was due.'
            : `${done.evaluated.length} ${done.evaluated.length === 1 ? 'period' : 'periods'} evaluated; predicates fired in ${fired}.`}
          {done.more.length > 0 && ' Some alarms have more due periods: they continue on the next run.'}
          {done.paused.map((p) => ` Alarm ${p.alarmId} paused: ${p.reason}`).join('')}
        </p>
      )}
    </div>
  )
}
