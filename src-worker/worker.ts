/**
 * Worker thread entry: exposes `runBatch` over Comlink. Progress goes back as plain messages (throttled), so a
 * progress report never waits on a round trip.
 */
import { parentPort, threadId } from 'node:worker_threads'
import * as Comlink from 'comlink'
import nodeEndpoint from 'comlink/dist/umd/node-adapter'
import { tasks } from './tasks'

export interface WorkerApi {
  runBatch(kind: string, payload: unknown, batchId: number): Promise<unknown>
  ping(): number
}

const PROGRESS_EVERY_MS = 100

/** Diagnostic task kinds, only when the pool was started with diagnostics on (tests of crash handling). */
function diagnostic(kind: string, payload: any): unknown {
  if (process.env.QA_DIAGNOSTICS !== '1') throw new Error(`Unknown task kind "${kind}"`)
  if (kind === 'diag/exit') process.exit(payload?.code ?? 70)
  if (kind === 'diag/sleep') {
    const until = Date.now() + (payload?.ms ?? 1000)
    while (Date.now() < until) {
      /* busy: a stuck computation */
    }
    return payload?.value ?? null
  }
  if (kind === 'diag/throw') throw new Error(payload?.message ?? 'diagnostic failure')
  throw new Error(`Unknown task kind "${kind}"`)
}

const api: WorkerApi = {
  async runBatch(kind, payload, batchId) {
    let last = 0
    const ctx = {
      progress(done: number) {
        const now = Date.now()
        if (now - last >= PROGRESS_EVERY_MS) {
          last = now
          parentPort!.postMessage({ qaProgress: true, batchId, done })
        }
      }
    }
    const fn = tasks[kind]
    if (!fn) return diagnostic(kind, payload)
    const result = fn(payload, ctx)
    if (kind === 'self-check/laplace' && result && typeof result === 'object') {
      ;(result as { threadTag: string }).threadTag = String(threadId)
    }
    return result
  },
  ping() {
    return threadId
  }
}

if (!parentPort) throw new Error('worker.ts must run in a worker thread')
Comlink.expose(api, nodeEndpoint(parentPort))
// Tells the pool this worker loaded: a worker that dies before this is a start-up failure, not a batch crash.
parentPort.postMessage({ qaReady: true })
