import { type FormEvent, useState } from 'react'
import { useClient, useJob, useQuery } from '../api/hooks'
import { ProgressBar } from '../components/ProgressBar'
import { formatDate } from '../format'
import type { SelfCheckResult } from '../../../src-main/contract'
import type { ScreenProps } from '.'
import { type WorkspaceSwitch, workspaceSwitch } from './settings/workspaceSwitch'

/** Why Apply is disabled, in one sentence; null when the value can be applied. */
export function workersWhy(value: string, size: number | undefined): string | null {
  const t = value.trim()
  if (t === '') return 'Type the number of worker threads you want (1 to 32) to change it.'
  const n = Number(t)
  if (!Number.isInteger(n) || n < 1 || n > 32) return `Worker threads must be a whole number from 1 to 32 (got “${t}”).`
  if (n === size) return `There ${n === 1 ? 'is' : 'are'} already ${n} worker thread${n === 1 ? '' : 's'}.`
  return null
}

function WorkerPoolPanel(props: { size: number | undefined; onChanged: () => void }) {
  const client = useClient()
  const [value, setValue] = useState('')
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null)
  const [busy, setBusy] = useState(false)
  const why = workersWhy(value, props.size)
  const apply = async (e: FormEvent) => {
    e.preventDefault()
    setMessage(null)
    setBusy(true)
    try {
      const pool = await client.call('app/set-workers', { workers: Number(value) })
      setMessage({ ok: true, text: `Now ${pool.size} ${pool.size === 1 ? 'worker' : 'workers'}; remembered for the next start.` })
      setValue('')
      props.onChanged()
    } catch (err) {
      setMessage({ ok: false, text: (err as Error).message })
    } finally {
      setBusy(false)
    }
  }
  return (
    <section className="panel">
      <h2>Worker pool</h2>
      <p>
        Simulations and sweeps run on <strong data-testid="settings-workers">{props.size ?? '…'}</strong>{' '}
        {props.size === 1 ? 'worker thread' : 'worker threads'} (default: processor cores minus one). A change applies at once when no job is running,
        and is remembered in this workspace; <code>--workers N</code> at start overrides it for that session.
      </p>
      <form className="inline-form" onSubmit={apply}>
        <label>
          Worker threads
          <input
            type="number"
            min={1}
            max={32}
            step={1}
            value={value}
            placeholder={props.size !== undefined ? String(props.size) : ''}
            onChange={(e) => setValue(e.target.value)}
            data-testid="settings-workers-input"
          />
        </label>
        <button
          type="submit"
          disabled={busy || why !== null}
          data-testid="settings-workers-apply"
          aria-describedby={why ? 'settings-workers-why' : undefined}
          title={why ?? undefined}
        >
          {busy ? 'Applying…' : 'Apply'}
        </button>
      </form>
      {why && (
        <p className="hint todo" id="settings-workers-why" data-testid="settings-workers-why">
          {why}
        </p>
      )}
      {message && (
        <p className={message.ok ? 'ok' : 'error'} data-testid="settings-workers-message">
          {message.text}
        </p>
      )}
    </section>
  )
}

function WorkspaceSwitchHint(props: { how: WorkspaceSwitch }) {
  const how = props.how
  return (
    <p className="hint" data-testid="settings-workspace-switch" data-mode={how.kind}>
      {how.text}
      {how.kind === 'headless' && (
        <>
          {' '}
          <code>{how.command}</code>.
        </>
      )}
    </p>
  )
}

export function SettingsScreen(_props: ScreenProps) {
  const client = useClient()
  const status = useQuery('app/status', {})
  const [jobId, setJobId] = useState<string | null>(null)
  const [error, setError] = useState<string | null>(null)
  const job = useJob(jobId)
  const running = job.info?.state === 'running' || (jobId !== null && job.info === null)
  const result = (job.info?.state === 'done' ? (job.info.result as SelfCheckResult) : null) ?? status.data?.lastSelfCheck ?? null

  const start = async () => {
    setError(null)
    try {
      const { jobId } = await client.call('diagnostics/self-check', { batches: 8, samplesPerBatch: 50_000 })
      setJobId(jobId)
    } catch (e) {
      setError((e as Error).message)
    }
  }

  return (
    <div className="stack" data-testid="screen-settings">
      <section className="panel">
        <h2>Workspace</h2>
        {status.data?.deployment === 'service' ? (
          <p data-testid="settings-service">
            All datasets, queries, releases and the ledger live in the service&apos;s workspace on your organisation&apos;s host; its custodian
            manages it there.
          </p>
        ) : (
          <p>
            All datasets, queries, releases and the ledger live in one SQLite file on this machine:
            <br />
            <code data-testid="settings-db-path">{status.data?.databasePath ?? '…'}</code>
          </p>
        )}
        {status.data && <WorkspaceSwitchHint how={workspaceSwitch(client.transport.kind, status.data.deployment)} />}
      </section>
      <WorkerPoolPanel size={status.data?.pool.size} onChanged={status.reload} />
      <section className="panel">
        <h2>Sampler self-check</h2>
        <p>
          Draws 400,000 seeded Laplace samples on the worker pool and tests them against the Laplace distribution (Kolmogorov-Smirnov, α = 0.001). A
          simulation: nothing is released or charged.
        </p>
        <button type="button" onClick={start} disabled={running} data-testid="self-check-start">
          Run self-check
        </button>
        {running && <ProgressBar label="Self-check" progress={job.progress} onCancel={() => jobId && void client.call('jobs/cancel', { jobId })} />}
        {job.info?.state === 'cancelled' && <p className="hint">Self-check cancelled.</p>}
        {job.info?.state === 'failed' && <p className="error">{job.info.error}</p>}
        {error && <p className="error">{error}</p>}
        {result && !running && (
          <p className={result.passed ? 'ok' : 'error'} data-testid="self-check-result">
            {result.passed ? 'Passed' : 'Failed'}: KS distance {result.ksDistance.toFixed(5)} vs critical {result.ksCritical.toFixed(5)} over{' '}
            {result.samples.toLocaleString('en-US')} samples on {result.workersUsed} {result.workersUsed === 1 ? 'worker' : 'workers'} (
            {formatDate(result.at)}).
          </p>
        )}
      </section>
    </div>
  )
}
