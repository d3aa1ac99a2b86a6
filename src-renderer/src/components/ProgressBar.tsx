import type { JobProgress, JobState } from '../../../src-main/contract'
import { formatBytes, formatBytesOf, formatCount, formatDuration } from '../format'

/** The services' shared estimate (jobs/time-left.ts: smoothed, from cost-weighted work, already rounded): said as "about". */
function timeLeft(p: JobProgress): string {
  return p.etaSeconds === null ? 'time left unknown' : `about ${formatDuration(p.etaSeconds)} left`
}

/**
 * What the bar says under it. Jobs that read a file (imports) also give bytes: "rows · MB of MB · rate · time left".
 * The service sends no rates (they would date each event): the rate part is left out there.
 */
export function progressText(p: JobProgress, finished: JobState | undefined): string {
  const d = p.detail
  const rate = p.rate
  if (d) {
    if (finished) return `${formatCount(p.done)} ${p.unit} · ${formatBytesOf(finished === 'done' ? d.bytesTotal : d.bytesDone, d.bytesTotal)}`
    const bytesRate = d.bytesPerSecond === undefined ? '' : ` (${formatBytes(d.bytesPerSecond)}/s)`
    return [
      `${formatCount(p.done)} ${p.unit}`,
      formatBytesOf(d.bytesDone, d.bytesTotal),
      ...(rate === undefined ? [] : [`${formatCount(Math.round(rate))} ${p.unit}/s${bytesRate}`]),
      timeLeft(p)
    ].join(' · ')
  }
  if (p.unit === 'bytes') {
    const done = formatBytesOf(p.done, p.total)
    return finished ? done : [done, ...(rate === undefined ? [] : [`${formatBytes(rate)}/s`]), timeLeft(p)].join(' · ')
  }
  if (finished) return `${formatCount(p.done)} of ${formatCount(p.total)} ${p.unit}`
  return [
    `${formatCount(p.done)} of ${formatCount(p.total)} ${p.unit}`,
    ...(rate === undefined ? [] : [`${formatCount(Math.round(rate))} ${p.unit}/s`]),
    timeLeft(p)
  ].join(' · ')
}

/** How full the bar is: by bytes when the job gives them (exact where a unit total may be an estimate). */
export function progressFraction(p: JobProgress | null, finished: JobState | undefined): number {
  if (finished === 'done') return 1
  if (!p) return 0
  const d = p.detail
  if (d && d.bytesTotal > 0) return Math.min(1, d.bytesDone / d.bytesTotal)
  return p.total > 0 ? Math.min(1, p.done / p.total) : 0
}

/** A progress bar with counts, rate and time left, and an optional Cancel button. */
export function ProgressBar(props: { progress: JobProgress | null; label: string; onCancel?: () => void; finished?: JobState }) {
  const p = props.progress
  const fraction = progressFraction(p, props.finished)
  const text = p ? progressText(p, props.finished) : props.finished ? '' : 'Starting…'
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
        aria-valuetext={text || undefined}
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
