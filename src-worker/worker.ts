/**
 * Worker thread entry: exposes `runBatch` over Comlink. Progress goes back as plain messages (throttled), so a
 * progress report never waits on a round trip.
 */
import { parentPort, threadId } from 'node:worker_threads'
import * as Comlink from 'comlink'
import nodeEndpoint from 'comlink/dist/umd/node-adapter'
import { type TaskKind, type TaskPayload, type TaskResult, isTaskKind, tasks } from './tasks'
import { runDiagnostic } from './tasks/diagnostics'
import type { TaskContext } from './tasks/types'

export interface WorkerApi {
  runBatch<K extends TaskKind>(kind: K, payload: TaskPayload<K>, batchId: number): Promise<TaskResult<K>>
  ping(): number
}

const PROGRESS_EVERY_MS = 100

const api: WorkerApi = {
  async runBatch(kind, payload, batchId) {
    let last = 0
    const ctx: TaskContext = {
      progress(done: number) {
        const now = Date.now()
        if (now - last >= PROGRESS_EVERY_MS) {
          last = now
          parentPort!.postMessage({ qaProgress: true, batchId, done })
        }
      }
    }
    if (!isTaskKind(kind)) return runDiagnostic(kind, payload) as TaskResult<typeof kind>
    // The map's entry for `kind` takes that kind's payload; TypeScript cannot follow the pairing through the lookup.
    const fn = tasks[kind] as (p: typeof payload, c: TaskContext) => TaskResult<typeof kind>
    return fn(payload, ctx)
  },
  ping() {
    return threadId
  }
}

if (!parentPort) throw new Error('worker.ts must run in a worker thread')
Comlink.expose(api, nodeEndpoint(parentPort))
// Tells the pool this worker loaded: a worker that dies before this is a start-up failure, not a batch crash.
parentPort.postMessage({ qaReady: true })
