/**
 * Long-running jobs: each gets an id, an AbortController, throttled progress events (time left, and the rate it stands for) and a final
 * state event. Jobs never throw into the caller: their failure is recorded as one sentence.
 *
 * In the service (`cadenceMs` set) nothing a job shows is dated finer than the cadence: no rates (units or bytes per
 * second since the start), and start and finish times, and every time in its result, floored to a tick.
 */
import { randomUUID } from 'node:crypto'
import type { JobInfo, JobProgress, JobProgressDetail } from '../../contract'
import { CancelledError, isUserError } from './errors'
import { callingAccount } from './caller'
import type { EventHub } from './events'
import { TimeLeftEstimator, rateForTimeLeft, roundedTimeLeft } from './time-left'
import { coarseTimes, shownTime } from './shown-time'

/** Byte-level progress a job may add to its unit counts (imports: bytes of the file read so far). */
export interface ProgressBytes {
  bytesDone: number
  bytesTotal: number
}

/** Estimated work (units of the job's own cost model) that time left follows when the units differ in cost. */
export interface ProgressWork {
  workDone: number
  workTotal: number
}

export interface JobContext {
  signal: AbortSignal
  /**
   * Throttled: an event at most every PROGRESS_INTERVAL_MS (and always when done >= total). Time left follows the bytes
   * when given (imports), else the work when given (sweeps: trials weighted by cell cost), else done / total.
   */
  progress(done: number, total: number, detail?: ProgressBytes, work?: ProgressWork): void
}

const PROGRESS_INTERVAL_MS = 150
const KEEP_FINISHED = 200

interface Entry {
  info: JobInfo
  controller: AbortController
  startedMs: number
  lastEmit: number
  unit: string
  promise: Promise<void>
  timeLeft: TimeLeftEstimator
  /** The service account that started the job (null: the workbench's local user). */
  owner: number | null
}

export interface JobRegistryOptions {
  /** The service's public cadence (ms); null or absent in the workbench. */
  cadenceMs?: number | null
}

export class JobRegistry {
  private jobs = new Map<string, Entry>()
  private readonly cadenceMs: number | null

  constructor(
    private readonly events: EventHub,
    options: JobRegistryOptions = {}
  ) {
    this.cadenceMs = options.cadenceMs ?? null
  }

  /** A time as jobs show it: to the millisecond in the workbench, floored to the cadence in the service. */
  private shownTime(ms: number): string {
    return shownTime(ms, this.cadenceMs)
  }

  start<T>(kind: string, label: string, unit: string, fn: (ctx: JobContext) => Promise<T>): JobInfo {
    const jobId = randomUUID()
    const controller = new AbortController()
    const info: JobInfo = {
      jobId,
      kind,
      label,
      state: 'running',
      startedAt: this.shownTime(Date.now()),
      finishedAt: null,
      progress: null,
      error: null,
      result: null
    }
    const startedMs = Date.now()
    const entry: Entry = {
      info,
      controller,
      startedMs,
      lastEmit: 0,
      unit,
      promise: Promise.resolve(),
      timeLeft: new TimeLeftEstimator(startedMs),
      owner: callingAccount()?.id ?? null
    }
    this.jobs.set(jobId, entry)
    this.prune()
    this.events.emit('job/state', { ...info })
    const ctx: JobContext = {
      signal: controller.signal,
      progress: (done, total, detail, work) => this.progress(entry, done, total, false, detail, work)
    }
    entry.promise = (async () => {
      try {
        const result = await fn(ctx)
        if (controller.signal.aborted) throw new CancelledError()
        // A result's own times (a self-check's `at`, an experiment's cells) are shown like the job's.
        info.result = coarseTimes(result, this.cadenceMs)
        info.state = 'done'
        if (info.progress) {
          const d = info.progress.detail
          this.progress(entry, info.progress.total, info.progress.total, true, d ? { bytesDone: d.bytesTotal, bytesTotal: d.bytesTotal } : undefined)
        }
      } catch (e) {
        if (e instanceof CancelledError || controller.signal.aborted) {
          info.state = 'cancelled'
          info.error = 'Cancelled by the user'
        } else {
          info.state = 'failed'
          info.error = isUserError(e) || (e as Error)?.name === 'BatchFailedError' ? (e as Error).message : 'An internal error stopped this job'
          if (!isUserError(e)) process.stderr.write(`job ${kind} failed: ${(e as Error)?.stack ?? String(e)}\n`)
        }
      } finally {
        info.finishedAt = this.shownTime(Date.now())
        this.events.emit('job/state', { ...info })
      }
    })()
    return { ...info }
  }

  get(jobId: string): JobInfo | undefined {
    const e = this.jobs.get(jobId)
    return e ? { ...e.info } : undefined
  }

  list(): JobInfo[] {
    return [...this.jobs.values()].map((e) => ({ ...e.info })).reverse()
  }

  /** The service account that started a job: null for the workbench's local user, undefined for no such job. */
  ownerOf(jobId: string): number | null | undefined {
    return this.jobs.get(jobId)?.owner
  }

  cancel(jobId: string): boolean {
    const e = this.jobs.get(jobId)
    if (!e || e.info.state !== 'running') return false
    e.controller.abort()
    return true
  }

  /** Resolves when the job has finished (any final state). */
  async settled(jobId: string): Promise<JobInfo | undefined> {
    const e = this.jobs.get(jobId)
    if (!e) return undefined
    await e.promise
    return { ...e.info }
  }

  /** Cancels every running job a service account started (its revocation); returns how many. */
  cancelOwnedBy(accountId: number): number {
    let n = 0
    for (const e of this.jobs.values())
      if (e.owner === accountId && e.info.state === 'running') {
        e.controller.abort()
        n++
      }
    return n
  }

  cancelAll(): void {
    for (const e of this.jobs.values()) if (e.info.state === 'running') e.controller.abort()
  }

  private progress(entry: Entry, done: number, total: number, force = false, bytes?: ProgressBytes, work?: ProgressWork): void {
    const now = Date.now()
    const rates = this.cadenceMs === null
    let workDone = done
    let workTotal = total
    let detail: JobProgressDetail | undefined
    if (bytes && Number.isFinite(bytes.bytesDone) && Number.isFinite(bytes.bytesTotal)) {
      const bytesDone = Math.max(0, bytes.bytesDone)
      const bytesTotal = Math.max(bytesDone, bytes.bytesTotal)
      detail = { bytesDone, bytesTotal }
      // The bytes are exact where the unit total may be an estimate: time left follows them.
      workDone = bytesDone
      workTotal = bytesTotal
    } else if (work && Number.isFinite(work.workDone) && work.workTotal > 0) {
      workDone = work.workDone
      workTotal = work.workTotal
    }
    const left = entry.timeLeft.update(now, workDone, workTotal)
    const etaSeconds = left === null ? null : roundedTimeLeft(left)
    // Rates shown beside the time left are the ones it stands for (what is left / time left): they always agree.
    const rate = rates ? rateForTimeLeft(left, total - done) : undefined
    if (rates && detail) {
      const elapsed = Math.max(1e-3, (now - entry.startedMs) / 1000)
      detail.bytesPerSecond = rateForTimeLeft(left, detail.bytesTotal - detail.bytesDone) ?? detail.bytesDone / elapsed
    }
    const p: JobProgress = {
      jobId: entry.info.jobId,
      kind: entry.info.kind,
      done,
      total,
      unit: entry.unit,
      ...(rate === undefined ? {} : { rate }),
      etaSeconds,
      ...(detail ? { detail } : {})
    }
    entry.info.progress = p
    if (force || now - entry.lastEmit >= PROGRESS_INTERVAL_MS || done >= total) {
      entry.lastEmit = now
      this.events.emit('job/progress', p)
    }
  }

  private prune(): void {
    const finished = [...this.jobs.values()].filter((e) => e.info.state !== 'running')
    for (const e of finished.slice(0, Math.max(0, finished.length - KEEP_FINISHED))) this.jobs.delete(e.info.jobId)
  }
}
