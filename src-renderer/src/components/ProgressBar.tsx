import type { JobProgress, JobState } from '../../../src-main/contract'
import { formatCount, formatDuration } from '../format'

/** A progress bar with counts, rate and time left, and an optional Cancel button. */
export function ProgressBar(props: { progress: JobProgress | null; label: string; onCancel?: () => void; finished?: JobState }) {
  const p = props.progress
  const fraction = props.finished === 'done' ? 1 : p && p.total > 0 ? Math.min(1, p.done / p.total) : 0
  const text = p
    ? props.finished
      ? `${formatCount(p.done)} of ${formatCount(p.total)} ${p.unit}`
      : `${formatCount(p.done)} of ${formatCount(p.total)} ${p.unit} · ${formatCount(Math.round(p.rate))} ${p.unit}/s · ${
          p.etaSeconds === null ? 'time left unknown' : `${formatDuration(p.etaSeconds)} left`
        }`
    : props.finished
      ? ''
      : 'Starting…'
  return (
    <div className={`progress ${props.finished ? `finished ${props.finished}` : ''}`} role="group" aria-label={props.label}>
      <div className="progress-head">
        <span>{props.label}</span>
        {props.onCancel && (
          <button type="button" className="secondary" onClick={props.onCancel}>
            Cancel
          </button>
        )}
      </div>
      <div
        className="progress-track"
        role="progressbar"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={Math.round(fraction * 100)}
        aria-label={props.label}
      >
        <div className="progress-fill" style={{ width: `${(fraction * 100).toFixed(1)}%` }} />
      </div>
      {text && (
        <div className="progress-text" data-testid="progress-text">
          {text}
        </div>
      )}
    </div>
  )
}
