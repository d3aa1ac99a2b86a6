import type { JobInfo, JobProgress } from '../../../src-main/contract'
import { useClient } from '../api/hooks'
import { formatBytes, formatCount, formatDuration } from '../format'
import { ProgressBar } from './ProgressBar'

/**
 * One long job: a progress bar with counts, rate and time left and a Cancel while it runs; the final state after.
 * The bar stays (full) when the job is done so the user sees what happened.
 */
export function JobPanel(props: { jobId: string; info: JobInfo | null; progress: JobProgress | null; label: string; doneText?: string }) {
  const client = useClient()
  const state = props.info?.state ?? 'running'
  const running = state === 'running' || state === 'queued'
  const p = props.progress
  return (
    <div className="job" data-testid="job" data-state={state}>
      <ProgressBar
        label={props.label}
        progress={p}
        onCancel={running ? () => void client.call('jobs/cancel', { jobId: props.jobId }) : undefined}
        finished={!running ? state : undefined}
      />
      {state === 'done' && (
        <p className="ok" data-testid="job-done">
          {props.doneText ?? 'Done'}
          {p ? ` · ${formatCount(p.done)} ${p.unit}${p.detail ? ` (${formatBytes(p.detail.bytesTotal)})` : ''}` : ''}
          {props.info?.finishedAt && props.info.startedAt
            ? ` in ${formatDuration((Date.parse(props.info.finishedAt) - Date.parse(props.info.startedAt)) / 1000)}`
            : ''}
        </p>
      )}
      {state === 'cancelled' && (
        <p className="hint" data-testid="job-cancelled">
          Cancelled.
        </p>
      )}
      {state === 'failed' && (
        <p className="error" role="alert" data-testid="job-error">
          {props.info?.error ?? 'The job failed.'}
        </p>
      )}
    </div>
  )
}
