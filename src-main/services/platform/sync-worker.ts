/**
 * A promise-based client behind a synchronous call: DuckDB (`duckdb-sync.ts`), PostgreSQL (`pg-sync.ts`) and
 * ClickHouse (`clickhouse-sync.ts`) are asynchronous, but a release reads its aggregates inside its `execute` (after the
 * charge), which is synchronous; the officer's key derivation (`trust/kdf-worker.ts`) runs on a thread of its own while
 * the calling thread works.
 *
 * The client runs in one dedicated worker thread (started on first use, unref'd so it never keeps the process alive).
 * A call posts its request, then blocks on `Atomics.wait` until the worker has posted the answer, which is taken with
 * `receiveMessageOnPort`. While the worker works it moves a heartbeat counter; a worker silent for `stallMs` (dead or
 * stuck) makes the call give up instead of waiting forever. `begin` posts a request and returns, so that the caller's
 * thread works while the worker does; its `wait` then blocks as a call does (a worker that died meanwhile is silent).
 *
 * The worker's code is a small CommonJS string (no bundling needed) that defines `async function handle(request)` and
 * may use `workerData`; `SERVE` below wraps it into the message loop.
 */
import { MessageChannel, type MessagePort, Worker, receiveMessageOnPort } from 'node:worker_threads'

/** The message loop appended to a worker's code: it calls the code's `handle(request)` for each call. */
const SERVE = `
;require('node:worker_threads').parentPort.on('message', async ({ port, flag, request }) => {
  let msg
  // Heartbeat: the caller blocks on flag[0]; flag[1] moves while this thread is alive.
  const beat = setInterval(() => Atomics.add(flag, 1, 1), 200)
  try {
    msg = { ok: true, value: await handle(request) }
  } catch (e) {
    msg = { ok: false, error: String(e && e.message ? e.message : e), code: e && typeof e.code === 'string' ? e.code : null }
  }
  clearInterval(beat)
  port.postMessage(msg)
  port.close()
  Atomics.store(flag, 0, 1)
  Atomics.notify(flag, 0)
})
`

/** The worker's `handle` threw: `message` comes from the client library (it may quote data); `code` is its error code. */
export class SyncWorkerError extends Error {
  constructor(
    message: string,
    readonly code: string | null
  ) {
    super(message)
  }
}

export interface SyncWorkerOptions {
  /** CommonJS source defining `async function handle(request)`. */
  code: string
  /** Passed to the worker as `workerData` (computed when the worker starts). */
  workerData: () => unknown
  /** How long the worker may be silent (no heartbeat) before a call gives up on it. */
  stallMs: number
  /** Builds the error thrown when the worker stops answering or gives no answer. */
  stalled: (what: 'stopped answering' | 'gave no answer') => Error
  /** Builds the error thrown for a failure inside `handle`. */
  failed: (message: string, code: string | null) => Error
}

/** A request the worker runs while the caller does other work: `wait()` takes its answer. */
export interface PendingCall<T> {
  /** Waits for the answer (blocking the calling thread) and returns it, or throws, as `call` would; the same outcome every time. */
  wait(): T
}

export interface SyncWorker {
  /** Runs one request in the worker and waits for its answer (blocking the calling thread). */
  call<T>(request: unknown): T
  /**
   * Posts one request and returns at once; the worker runs it meanwhile. The worker runs one request at a time: a later
   * `call` or `begin` first waits for this one (its outcome is kept for `wait()`).
   */
  begin<T>(request: unknown): PendingCall<T>
  /** Stops the worker (tests, shutdown). The next call starts a new one. */
  close(): Promise<void>
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: Error }

export function syncWorker(opts: SyncWorkerOptions): SyncWorker {
  let worker: Worker | null = null
  /** The request posted and not yet taken, if any (at most one); `lost` when its worker was stopped by `close`. */
  let inFlight: { settle: () => Outcome; lost: boolean } | null = null
  const get = (): Worker => {
    if (worker) return worker
    const w = new Worker(opts.code + SERVE, { eval: true, workerData: opts.workerData() })
    w.unref()
    const forget = () => {
      if (worker === w) worker = null
    }
    w.on('error', forget)
    w.on('exit', forget)
    worker = w
    return w
  }
  const post = (request: unknown): { settle: () => Outcome; lost: boolean } => {
    if (inFlight) inFlight.settle()
    const w = get()
    const { port1, port2 } = new MessageChannel()
    const flag = new Int32Array(new SharedArrayBuffer(8))
    w.postMessage({ port: port2, flag, request }, [port2 as unknown as MessagePort])
    let outcome: Outcome | null = null
    const take = (): Outcome => {
      // The worker's events cannot reach this thread while it waits: a worker that died is seen by its silent heartbeat.
      let beat = -1
      let quietSince = Date.now()
      while (Atomics.load(flag, 0) === 0) {
        if (pending.lost) {
          port1.close()
          return { ok: false, error: opts.stalled('gave no answer') }
        }
        Atomics.wait(flag, 0, 0, 1000)
        const now = Atomics.load(flag, 1)
        if (now !== beat) {
          beat = now
          quietSince = Date.now()
        } else if (Date.now() - quietSince > opts.stallMs) {
          port1.close()
          void w.terminate()
          if (worker === w) worker = null
          return { ok: false, error: opts.stalled('stopped answering') }
        }
      }
      const got = receiveMessageOnPort(port1)
      port1.close()
      if (!got) return { ok: false, error: opts.stalled('gave no answer') }
      const m = got.message as { ok: true; value: unknown } | { ok: false; error: string; code: string | null }
      return m.ok ? m : { ok: false, error: opts.failed(m.error, m.code) }
    }
    const pending = {
      lost: false,
      settle: (): Outcome => {
        if (outcome === null) {
          outcome = take()
          if (inFlight === pending) inFlight = null
        }
        return outcome
      }
    }
    inFlight = pending
    return pending
  }
  const answer = <T>(o: Outcome): T => {
    if (!o.ok) throw o.error
    return o.value as T
  }
  return {
    call<T>(request: unknown): T {
      return answer<T>(post(request).settle())
    },
    begin<T>(request: unknown): PendingCall<T> {
      const pending = post(request)
      return { wait: () => answer<T>(pending.settle()) }
    },
    async close() {
      const w = worker
      worker = null
      if (inFlight) inFlight.lost = true
      inFlight = null
      if (w) await w.terminate()
    }
  }
}
