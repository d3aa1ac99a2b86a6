import { useMemo, useState } from 'react'
import { notionName } from './notions'
import type { ChartData, ChartOptions } from 'chart.js'
import type { ExPostCosts, ReleaseRecord } from '../../../../src-main/contract'
import { useAction, useClient, useQuery } from '../../api/hooks'
import { ChartView, type ChartKind } from '../../components/Chart'
import { ErrorText, TextField } from '../../components/Fields'
import { Loading } from '../../components/Loading'
import { formatDate, formatEpsilon, formatExact, mechanismName } from '../../format'
import { href } from '../../sections'
import { OfficerFields, officerWhy, useOfficers } from './OfficerFields'

/**
 * The privacy officer's view of sealed ex-post costs. Nothing sealed is fetched until the officer unlocks one release
 * with a name and a reason; the service records the unlock before it answers.
 */
export function OfficerView(props: { datasetId: number | null; version: number }) {
  const releases = useQuery('releases/list', props.datasetId ? { datasetId: props.datasetId } : {}, [props.datasetId, props.version])
  const [open, setOpen] = useState(false)
  const list = releases.data ?? []
  return (
    <section className="panel officer" aria-labelledby="officer-title" data-testid="officer-view">
      <div className="panel-head">
        <h2 id="officer-title">Officer view: sealed ex-post costs</h2>
        <button type="button" className="secondary" onClick={() => setOpen(!open)} aria-expanded={open} data-testid="officer-toggle">
          {open ? 'Close officer view' : 'Open officer view'}
        </button>
      </div>
      <p className="hint">
        Releases are charged their worst case. What each actually spent depends on the data, so it is sealed (encrypted to the officers’ keys): seeing
        it needs an explicit unlock with your passphrase and a reason, and the unlock is signed and recorded in the audit log before anything is
        shown.
      </p>
      {open && (
        <>
          <ErrorText error={releases.error} />
          {releases.data === null && releases.loading && <Loading what="the releases" />}
          {releases.data && list.length === 0 && <p className="empty-state">No releases yet, so nothing is sealed.</p>}
          {list.length > 0 && (
            <ul className="release-list">
              {list.map((r) => (
                <SealedRelease key={r.releaseId} release={r} />
              ))}
            </ul>
          )}
        </>
      )}
    </section>
  )
}

function SealedRelease(props: { release: ReleaseRecord }) {
  const client = useClient()
  const r = props.release
  const [asking, setAsking] = useState(false)
  const officers = useOfficers()
  const [cred, setCred] = useState({ officer: '', passphrase: '' })
  const [reason, setReason] = useState('')
  const [costs, setCosts] = useState<ExPostCosts | null>(null)
  const act = useAction()
  const unlock = () =>
    void act
      .run(async () => {
        setCosts(
          await client.call('officer/unlock-ex-post', {
            releaseId: r.releaseId,
            officer: officers.name(cred.officer),
            passphrase: cred.passphrase,
            reason: reason.trim()
          })
        )
        setAsking(false)
      })
      .finally(() => setCred((c) => ({ ...c, passphrase: '' })))
  const why = officerWhy(officers, cred)
  return (
    <li data-testid={`sealed-${r.releaseId}`}>
      <div className="release-line">
        <span>
          <a href={href('releases', r.releaseId)}>Release {r.releaseId}</a>: {r.queryName} on {r.datasetName} · {mechanismName(r.mechanism)} · charged
          ε {formatExact(r.epsilonExact)} ({notionName(r.notion)}) · {formatDate(r.createdAt)} · {r.statusText}
        </span>
        {!costs && !asking && (
          <button type="button" className="secondary" onClick={() => setAsking(true)} data-testid="unlock-open">
            Unlock sealed costs…
          </button>
        )}
      </div>
      {asking && (
        <form
          className="row unlock-form"
          onSubmit={(e) => {
            e.preventDefault()
            unlock()
          }}
        >
          <OfficerFields officers={officers} value={cred} onChange={setCred} testIdPrefix="unlock" />
          <TextField label="Reason (recorded)" value={reason} onChange={setReason} width="wide" testId="unlock-reason" />
          <div className="field actions button-row">
            <button
              type="submit"
              disabled={act.busy || why !== null || reason.trim().length < 3}
              title={why ?? undefined}
              data-testid="unlock-confirm"
            >
              {act.busy ? 'Recording…' : 'Record and unlock'}
            </button>
            <button type="button" className="secondary" onClick={() => setAsking(false)}>
              Cancel
            </button>
          </div>
        </form>
      )}
      <ErrorText error={act.error} />
      {costs && <CostsView costs={costs} />}
    </li>
  )
}

function CostsView(props: { costs: ExPostCosts }) {
  const c = props.costs
  const per = useMemo(() => c.perPredicate ?? [], [c.perPredicate])
  const data = useMemo(
    () =>
      ({
        labels: per.map((p) => p.predicate.map((v) => (v === null ? 'empty' : String(v))).join(' · ')),
        datasets: [{ label: 'ε actually spent', data: per.map((p) => p.epsilon), backgroundColor: '#7a4cc2' }]
      }) as ChartData<ChartKind>,
    [per]
  )
  const options: ChartOptions<ChartKind> = {
    plugins: { legend: { display: false } },
    scales: { y: { beginAtZero: true, title: { display: true, text: 'ε spent' } }, x: { ticks: { autoSkip: true, maxRotation: 60 } } }
  }
  return (
    <div className="sealed-costs" data-testid="sealed-costs">
      <p>
        <strong>Unlocked (recorded).</strong> Charged ε {formatExact(c.chargedExact)}; actually spent at most ε {formatEpsilon(c.spentMax)}
        {c.queries !== undefined ? ` over ${c.queries} queries` : ''}.
      </p>
      {per.length > 0 && <ChartView type="bar" data={data} options={options} label="Epsilon actually spent per predicate" height={200} />}
    </div>
  )
}
