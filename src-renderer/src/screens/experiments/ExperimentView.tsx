import { useEffect, useState } from 'react'
import type { ExperimentDetail } from '../../../../src-main/contract'
import { useAction, useClient, useEvent, useJob } from '../../api/hooks'
import { SimulationBadge } from '../../components/Badges'
import { ErrorText } from '../../components/Fields'
import { JobPanel } from '../../components/JobPanel'
import { downloadText } from '../../download'
import { formatCount, formatDate } from '../../format'
import { ExperimentCharts } from './ExperimentCharts'
import { ResultsTable } from './ResultsTable'

/** While a sweep runs, its stored cells are re-read this often (charts redraw at most this often too). */
const POLL_MS = 1000

const STATUS_TEXT: Record<ExperimentDetail['status'], string> = {
  running: 'running',
  done: 'done',
  partial: 'partly done (some cells failed)',
  cancelled: 'cancelled: resume to compute the missing cells',
  failed: 'failed',
  interrupted: 'interrupted (the app stopped): resume to compute the missing cells'
}

export function ExperimentView(props: { experimentId: string; onDeleted: () => void; onChanged: () => void }) {
  const client = useClient()
  const [detail, setDetail] = useState<ExperimentDetail | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [jobId, setJobId] = useState<string | null>(null)
  const [tick, setTick] = useState(0)
  const act = useAction()
  const job = useJob(jobId)
  const running = detail?.status === 'running'

  useEffect(() => {
    let live = true
    client.call('experiments/get', { experimentId: props.experimentId }).then(
      (d) => {
        if (!live) return
        setDetail(d)
        setError(null)
        if (d.jobId) setJobId(d.jobId)
      },
      (e: Error) => live && setError(e.message)
    )
    return () => {
      live = false
    }
  }, [client, props.experimentId, tick])

  useEffect(() => {
    if (!running) return
    const t = setInterval(() => setTick((x) => x + 1), POLL_MS)
    return () => clearInterval(t)
  }, [running])

  useEvent('job/state', (j) => {
    if (j.jobId === jobId && j.state !== 'running') {
      setTick((x) => x + 1)
      props.onChanged()
    }
  })

  const resume = () =>
    void act.run(async () => {
      const r = await client.call('experiments/resume', { experimentId: props.experimentId })
      setJobId(r.jobId)
      setTick((x) => x + 1)
      props.onChanged()
    })

  const exportCsv = () =>
    void act.run(async () => {
      const r = await client.call('experiments/export-csv', { experimentId: props.experimentId })
      downloadText(r.fileName, r.csv)
    })

  const remove = () =>
    void act.run(async () => {
      await client.call('experiments/delete', { experimentId: props.experimentId })
      props.onDeleted()
    })

  if (error) return <ErrorText error={error} />
  if (!detail) return <p className="hint">Loading the experiment…</p>
  const canResume = !running && detail.cellsDone < detail.cellsTotal

  return (
    <div className="stack" data-testid="experiment-view">
      <section className="panel sim-band" aria-labelledby="exp-title">
        <div className="panel-head">
          <h2 id="exp-title">{detail.name}</h2>
          <SimulationBadge />
        </div>
        <p>
          <span data-testid="experiment-status" data-status={detail.status}>
            Status: <strong>{STATUS_TEXT[detail.status]}</strong>
          </span>{' '}
          · {formatCount(detail.cellsDone)} of {formatCount(detail.cellsTotal)} cells done
          {detail.cellsFailed > 0 ? `, ${formatCount(detail.cellsFailed)} failed` : ''} · engine {detail.engine} · {formatCount(detail.spec.trials)}{' '}
          trials per cell · seed <code>{detail.seed}</code> · started {formatDate(detail.createdAt)}
        </p>
        {detail.workloads.length > 0 && (
          <p className="hint">
            Workloads (ground truth):{' '}
            {detail.workloads
              .map(
                (w) =>
                  `${w.label} (${Object.entries(w.facts)
                    .slice(0, 4)
                    .map(([k, v]) => `${k} ${typeof v === 'number' ? formatCount(Math.round(v * 1000) / 1000) : v}`)
                    .join(', ')})`
              )
              .join('; ')}
          </p>
        )}
        {jobId && (running || job.info) && (
          <JobPanel jobId={jobId} info={job.info} progress={job.progress} label={`Simulating ${detail.name}`} doneText="Sweep finished" />
        )}
        <div className="button-row">
          {canResume && (
            <button type="button" onClick={resume} disabled={act.busy} data-testid="experiment-resume">
              {act.busy ? 'Resuming…' : 'Resume'}
            </button>
          )}
          <button
            type="button"
            className="secondary"
            onClick={exportCsv}
            disabled={act.busy || detail.cellsDone === 0}
            data-testid="experiment-export"
          >
            Export CSV
          </button>
          {!running && (
            <button type="button" className="secondary danger-text" onClick={remove} disabled={act.busy}>
              Delete experiment
            </button>
          )}
        </div>
        <ErrorText error={act.error} testId="experiment-error" />
      </section>
      {detail.cellsDone > 0 ? (
        <>
          <ExperimentCharts detail={detail} />
          <ResultsTable detail={detail} />
        </>
      ) : (
        <p className="panel empty-state">No cell has finished yet; the charts appear as soon as the first cells are computed.</p>
      )}
    </div>
  )
}
