/**
 * A pool of worker threads behind Comlink.
 *
 * - Work goes in batches (many trials per message). Idle workers take the next queued batch.
 * - Progress: workers post `{ qaProgress, batchId, done }`; the pool sums the units of all batches of a run.
 * - Cancellation (AbortSignal): queued batches are dropped, workers busy with the run are terminated and replaced,
 *   and the run rejects with CancelledError at once.
 * - A worker that dies mid-batch (exit, uncaught error, or over `batchTimeoutMs`) is replaced and the batch is retried
 *   once; a second failure fails that batch with a clear message. With `failFast` (default) the whole run rejects.
 * - Comlink proxies are held in the worker record for the worker's whole life (a proxy collected mid-call hangs).
 */
import { Worker } from 'node:worker_threads'
import { availableParallelism } from 'node:os'
import * as Comlink from 'comlink'
import nodeEndpoint from 'comlink/dist/umd/node-adapter'
import type { WorkerApi } from '../../../src-worker/worker'
import type { TaskKind, TaskPayload, TaskResult } from '../../../src-worker/tasks'
import type { PoolStatus } from '../../contract'
import { CancelledError } from './errors'

/** One message of work: a task kind of src-worker/tasks (`TaskMap`) with a payload of that kind's type. */
export type Batch<K extends TaskKind = TaskKind> = {
  [P in K]: {
    kind: P
    payload: TaskPayload<P>
    /** Work units in this batch (trials, samples...) for progress. */
    units: number
    /** Estimated cost of the batch (e.g. trials weighted by a per-cell cost model) for time left; default `units`. */
    cost?: number
    /** Extra estimated cost when this batch is the first with `key` on its worker (code compiled on first use). */
    warmUp?: WarmUp
  }
}[K]

/** A batch's extra cost on a worker that has not yet run a batch with this key (time left only). */
export interface WarmUp {
  key: string
  cost: number
}

/** A batch of `kind` (the pairing of kind and payload checked where the kind is a type parameter). */
export function batchOf<K extends TaskKind>(kind: K, payload: TaskPayload<K>, units: number, cost?: number, warmUp?: WarmUp): Batch<K> {
  return { kind, payload, units, ...(cost === undefined ? {} : { cost }), ...(warmUp === undefined ? {} : { warmUp }) } as Batch<K>
}

/**
 * Estimated work done and total over a run (batches' `cost`, in-flight batches pro rata of their units done), plus the
 * `warmUp` cost of every batch that started on a worker new to its key (added to the total when it starts).
 */
export interface RunWork {
  done: number
  total: number
}

const costOf = (b: { units: number; cost?: number }): number => b.cost ?? b.units

/**
 * Why a batch failed, for callers that word it themselves (the outcome's `error` is the pool's whole sentence):
 * the task threw (a deterministic failure, not retried), or its worker died or overran its time limit twice.
 */
export type BatchFailure = { kind: 'task-threw'; message: string } | { kind: 'worker-lost'; reason: string }

export type BatchOutcome<T = unknown> = { ok: true; value: T } | { ok: false; error: string; failure: BatchFailure }

export interface RunOptions<T = unknown> {
  signal?: AbortSignal
  /** Called (throttled by the workers) with units done over the whole run, and the estimated work (batches' cost). */
  onProgress?: (done: number, total: number, work: RunWork) => void
  /** Called when each batch finishes (for storing results as they come, e.g. sweep cells). */
  onBatchDone?: (index: number, outcome: BatchOutcome<T>) => void
  /** Reject the whole run on the first failed batch (default true); otherwise failed batches are reported as outcomes. */
  failFast?: boolean
  /** A batch running longer than this is treated like a crash (worker terminated, batch retried once). */
  batchTimeoutMs?: number
  /**
   * Run each batch at most once: no retry after a lost worker and no time-out (`batchTimeoutMs` ignored). For releases:
   * a retry would draw the noise twice, and a time-out that depends on the data's run time would be a signal.
   */
  once?: boolean
}

export interface WorkerScript {
  /** Path of the worker entry (built `worker.js`, or `src-worker/worker.ts` with a TypeScript loader). */
  path: string
  execArgv?: string[]
  env?: NodeJS.ProcessEnv
}

export class BatchFailedError extends Error {
  constructor(
    message: string,
    /** Set when one batch's failure failed the run (absent when the workers cannot start at all). */
    readonly failure?: BatchFailure
  ) {
    super(message)
    this.name = 'BatchFailedError'
  }
}

interface Slot {
  id: number
  worker: Worker
  remote: Comlink.Remote<WorkerApi>
  task: Task | null
  timer: NodeJS.Timeout | null
  exited: boolean
  /** The worker said it loaded. */
  ready: boolean
  /** Why the pool is stopping this worker (set before terminate, reported instead of the exit code). */
  stopReason: string | null
  /** The `warmUp` keys of the batches this worker has started. */
  warm: Set<string>
}

/** Workers that die before loading, in a row, before the pool stops respawning them. */
const MAX_STARTUP_FAILURES = 3

interface Task {
  run: RunState
  index: number
  batch: Batch
  attempts: number
  done: number
  batchId: number
  /** The warm-up cost this attempt counts (its worker had not run the batch's `warmUp` key), else 0. */
  warmUpCost: number
}

interface RunState {
  batches: readonly Batch[]
  outcomes: Array<BatchOutcome | undefined>
  remaining: number
  total: number
  finishedUnits: number
  totalCost: number
  finishedCost: number
  inFlight: Set<Task>
  options: RunOptions
  settled: boolean
  resolve: (o: BatchOutcome[]) => void
  reject: (e: Error) => void
}

export function defaultPoolSize(): number {
  return Math.max(1, availableParallelism() - 1)
}

let nextBatchId = 1

export class WorkerPool {
  readonly size: number
  private slots: Slot[] = []
  private queue: Task[] = []
  private restarts = 0
  private stopped = false
  private startupFailures = 0
  /** Set when workers cannot even start: every run is refused with this sentence. */
  private broken: string | null = null
  private nextSlotId = 1

  constructor(
    private readonly script: WorkerScript,
    size = defaultPoolSize()
  ) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`pool size must be a whole number >= 1 (got ${size})`)
    this.size = size
    for (let i = 0; i < size; i++) this.slots.push(this.spawn())
  }

  status(): PoolStatus {
    const busy = this.slots.filter((s) => s.task).length
    return {
      size: this.size,
      busy,
      queuedBatches: this.queue.length,
      state: this.stopped || this.broken ? 'stopped' : busy > 0 ? 'busy' : 'idle',
      restarts: this.restarts
    }
  }

  /** Thread ids of the live workers (diagnostics and tests). */
  threadIds(): number[] {
    return this.slots.map((s) => s.worker.threadId)
  }

  /** Terminate the worker currently running a batch (tests of crash recovery). Returns false if none is busy. */
  async killBusyWorker(): Promise<boolean> {
    const s = this.slots.find((x) => x.task)
    if (!s) return false
    await s.worker.terminate()
    return true
  }

  run<K extends TaskKind>(batches: ReadonlyArray<Batch<K>>, options: RunOptions<TaskResult<K>> = {}): Promise<Array<BatchOutcome<TaskResult<K>>>> {
    if (this.stopped) return Promise.reject(new Error('The worker pool has been shut down'))
    if (this.broken) return Promise.reject(new BatchFailedError(this.broken))
    if (options.signal?.aborted) return Promise.reject(new CancelledError())
    return new Promise<Array<BatchOutcome<TaskResult<K>>>>((resolve, reject) => {
      const run: RunState = {
        batches: batches as readonly Batch[],
        outcomes: new Array(batches.length),
        remaining: batches.length,
        total: batches.reduce((a, b) => a + b.units, 0),
        finishedUnits: 0,
        totalCost: batches.reduce((a, b) => a + costOf(b), 0),
        finishedCost: 0,
        inFlight: new Set(),
        options: { failFast: true, ...(options as RunOptions) },
        settled: false,
        resolve: resolve as (o: BatchOutcome[]) => void,
        reject
      }
      if (batches.length === 0) {
        run.settled = true
        resolve([])
        return
      }
      options.signal?.addEventListener('abort', () => this.cancelRun(run), { once: true })
      run.batches.forEach((batch, index) => this.queue.push({ run, index, batch, attempts: 0, done: 0, batchId: nextBatchId++, warmUpCost: 0 }))
      this.dispatch()
    })
  }

  async shutdown(): Promise<void> {
    this.stopped = true
    for (const t of this.queue) this.settle(t.run, new Error('The worker pool was shut down'))
    this.queue = []
    await Promise.all(
      this.slots.map(async (s) => {
        s.exited = true
        if (s.timer) clearTimeout(s.timer)
        if (s.task) this.settle(s.task.run, new Error('The worker pool was shut down'))
        s.remote[Comlink.releaseProxy]()
        await s.worker.terminate()
      })
    )
  }

  // ---------------------------------------------------------------------------------------------------------

  private spawn(): Slot {
    const worker = new Worker(this.script.path, {
      execArgv: this.script.execArgv,
      env: this.script.env ?? process.env,
      stderr: false
    })
    worker.unref()
    const remote = Comlink.wrap<WorkerApi>(nodeEndpoint(worker))
    const slot: Slot = {
      id: this.nextSlotId++,
      worker,
      remote,
      task: null,
      timer: null,
      exited: false,
      ready: false,
      stopReason: null,
      warm: new Set()
    }
    worker.on('message', (m: { qaProgress?: boolean; qaReady?: boolean; batchId?: number; done?: number }) => {
      if (m?.qaReady) {
        slot.ready = true
        this.startupFailures = 0
        return
      }
      if (!m || !m.qaProgress) return
      const t = slot.task
      if (t && t.batchId === m.batchId && typeof m.done === 'number') {
        t.done = Math.min(m.done, t.batch.units)
        this.reportProgress(t.run)
      }
    })
    let lastError: string | null = null
    worker.on('error', (e) => {
      lastError = e instanceof Error ? e.message : String(e)
    })
    worker.on('exit', (code) => {
      if (slot.exited) return
      slot.exited = true
      this.onWorkerDied(
        slot,
        slot.stopReason ?? (lastError ? `the worker failed: ${lastError}` : `the worker stopped unexpectedly (exit code ${code})`)
      )
    })
    return slot
  }

  private dispatch(): void {
    if (this.stopped) return
    for (const slot of this.slots) {
      if (slot.task || slot.exited) continue
      const task = this.queue.shift()
      if (!task) return
      if (task.run.settled) continue
      this.start(slot, task)
    }
  }

  private start(slot: Slot, task: Task): void {
    slot.task = task
    task.done = 0
    task.run.inFlight.add(task)
    const warmUp = task.batch.warmUp
    task.warmUpCost = warmUp && !slot.warm.has(warmUp.key) && warmUp.cost > 0 ? warmUp.cost : 0
    if (warmUp) slot.warm.add(warmUp.key)
    task.run.totalCost += task.warmUpCost
    const timeout = task.run.options.once ? undefined : task.run.options.batchTimeoutMs
    if (timeout && timeout > 0) {
      slot.timer = setTimeout(() => {
        slot.timer = null
        if (slot.task !== task) return
        slot.stopReason = `it ran longer than its time limit of ${timeout} ms and was stopped`
        void slot.worker.terminate()
      }, timeout)
    }
    slot.remote.runBatch(task.batch.kind, task.batch.payload, task.batchId).then(
      (value) => {
        if (slot.task !== task) return
        this.release(slot)
        this.finishTask(task, { ok: true, value })
        this.dispatch()
      },
      (e: unknown) => {
        if (slot.task !== task) return
        // An exception thrown by the task itself: a deterministic failure, not retried.
        this.release(slot)
        const message = e instanceof Error ? e.message : String(e)
        this.finishTask(task, {
          ok: false,
          error: `Batch ${task.index + 1} of ${task.run.batches.length} (${task.batch.kind}) failed: ${message}`,
          failure: { kind: 'task-threw', message }
        })
        this.dispatch()
      }
    )
  }

  private release(slot: Slot): void {
    if (slot.timer) clearTimeout(slot.timer)
    slot.timer = null
    if (slot.task) slot.task.run.inFlight.delete(slot.task)
    slot.task = null
  }

  private onWorkerDied(slot: Slot, reason: string): void {
    const task = slot.task
    this.release(slot)
    slot.remote[Comlink.releaseProxy]()
    const i = this.slots.indexOf(slot)
    if (!slot.ready && ++this.startupFailures >= MAX_STARTUP_FAILURES && !this.broken) {
      // Workers cannot even load (e.g. a missing or broken bundle): stop respawning, refuse work with the reason.
      this.broken = `The worker threads cannot start (${reason}). Reinstall with "npm ci" or rebuild with "npm run build", then restart.`
      this.failEverything(this.broken)
    }
    if (!this.stopped && !this.broken && i >= 0) {
      this.slots[i] = this.spawn()
      this.restarts++
    } else if (i >= 0) {
      this.slots.splice(i, 1)
    }
    if (task && !task.run.settled) {
      task.run.totalCost -= task.warmUpCost
      task.warmUpCost = 0
      task.attempts++
      if (task.attempts < 2 && !task.run.options.once) {
        // Retry once, ahead of the rest of the queue.
        task.batchId = nextBatchId++
        this.queue.unshift(task)
      } else {
        this.finishTask(task, {
          ok: false,
          error: `Batch ${task.index + 1} of ${task.run.batches.length} (${task.batch.kind}) failed${task.run.options.once ? '' : ' twice'}: ${reason}`,
          failure: { kind: 'worker-lost', reason }
        })
      }
    }
    this.dispatch()
  }

  private failEverything(message: string): void {
    const runs = new Set<RunState>([...this.queue.map((t) => t.run), ...this.slots.filter((x) => x.task).map((x) => x.task!.run)])
    this.queue = []
    for (const run of runs) this.settle(run, new BatchFailedError(message))
  }

  private finishTask(task: Task, outcome: BatchOutcome): void {
    const run = task.run
    if (run.settled || run.outcomes[task.index]) return
    run.outcomes[task.index] = outcome
    run.remaining--
    run.finishedUnits += task.batch.units
    run.finishedCost += costOf(task.batch) + task.warmUpCost
    task.done = 0
    try {
      run.options.onBatchDone?.(task.index, outcome)
    } catch {
      /* a listener's failure must not break the pool */
    }
    this.reportProgress(run)
    if (!outcome.ok && run.options.failFast) {
      this.cancelRun(run, new BatchFailedError(outcome.error, outcome.failure))
      return
    }
    if (run.remaining === 0) {
      run.settled = true
      run.resolve(run.outcomes as BatchOutcome[])
    }
  }

  private reportProgress(run: RunState): void {
    if (run.settled || !run.options.onProgress) return
    let done = run.finishedUnits
    let work = run.finishedCost
    for (const t of run.inFlight) {
      done += t.done
      if (t.batch.units > 0) work += ((costOf(t.batch) + t.warmUpCost) * t.done) / t.batch.units
    }
    try {
      run.options.onProgress(done, run.total, { done: work, total: run.totalCost })
    } catch {
      /* ignore listener failures */
    }
  }

  private settle(run: RunState, error: Error): void {
    if (run.settled) return
    run.settled = true
    run.reject(error)
  }

  /** Drop the run's queued batches, stop its running ones (terminate + replace those workers), reject it. */
  private cancelRun(run: RunState, error: Error = new CancelledError()): void {
    if (run.settled) return
    this.settle(run, error)
    this.queue = this.queue.filter((t) => t.run !== run)
    for (const slot of this.slots) {
      if (slot.task && slot.task.run === run) {
        slot.exited = true
        this.release(slot)
        slot.remote[Comlink.releaseProxy]()
        void slot.worker.terminate()
        const i = this.slots.indexOf(slot)
        this.slots[i] = this.spawn()
      }
    }
    this.dispatch()
  }
}
