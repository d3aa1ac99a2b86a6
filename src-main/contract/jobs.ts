/** Long-running work (imports, sweeps, reports, self-checks): state and progress as the UI sees them. */
export type JobState = 'queued' | 'running' | 'done' | 'failed' | 'cancelled'

export interface JobProgress {
  jobId: string
  kind: string
  /** Units done and total (rows, trials, cells...), and what a unit is. */
  done: number
  total: number
  unit: string
  /**
   * Units per second that the time left stands for (units left / seconds left: the two always agree); absent while the
   * time left is unknown, and in the service (a rate would date the event finer than its cadence).
   */
  rate?: number
  /** Seconds left (rounded as shown), or null when unknown (from the bytes when `detail` is given). */
  etaSeconds: number | null
  /** Byte-level progress of jobs that read a file (imports): the unit total may be an estimate, the bytes are exact. */
  detail?: JobProgressDetail
}

export interface JobProgressDetail {
  bytesDone: number
  bytesTotal: number
  /** Bytes per second since the job started (absent in the service, as `rate`). */
  bytesPerSecond?: number
}

export interface JobInfo {
  jobId: string
  kind: string
  label: string
  state: JobState
  startedAt: string
  finishedAt: string | null
  progress: JobProgress | null
  /** One clear sentence when failed. */
  error: string | null
  /** The job's result once done (its shape depends on `kind`). */
  result: unknown
}
