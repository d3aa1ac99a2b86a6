/**
 * The release runner: a worker thread of its own that runs each release whole (validate, charge, the data read, the
 * kind's computation with a fresh secure generator, store) on its own connection to the workspace, one at a time.
 * The services' thread only sends the request and receives the record, so no release's data read (SQLite, or DuckDB
 * and PostgreSQL behind their blocking bridge) or computation holds any other call, and no sweep batch queues before
 * a release: this thread is reserved for releases.
 *
 * `flight` (shared with the services' thread) holds the id of the release being answered, written inside the charge's
 * transaction and cleared once the answer or failure is stored: the services show it as running meanwhile, and fail it
 * if this thread is lost.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { isUserError } from '../platform/errors'
import { asCaller } from '../platform/caller'
import { openStore } from '../store/store'
import { runRelease } from './release-service'
import { noteHead } from '../ledger/head-record'
import { answerTimeOf } from './answer-time'
import type { RunnerData, RunnerReply, RunnerRequest } from './release-lane'

const data = workerData as RunnerData
const port = parentPort!
let store: ReturnType<typeof openStore> | null = null

port.on('message', (m: RunnerRequest) => {
  let reply: RunnerReply
  try {
    // A second connection of a process that has the workspace open already: no migration, no staging clean-up.
    store ??= openStore(data.dbPath, { projectRoot: data.projectRoot, secondary: true })
    const db = store.db
    const record = asCaller(m.caller, () =>
      runRelease(db, m.req, {
        charging: (id) => Atomics.store(data.flight, 0, id),
        answerStepMs: data.answerStepMs,
        answerTimeFor: data.answerTimes ? (datasetId) => answerTimeOf(db, datasetId) : undefined,
        afterCharge: () => {
          if (data.headRecord) noteHead(db, data.headRecord)
          if (data.holdAfterCharge) {
            // Tests only: the release stays within its run until the test lets it go (a data read as long as it likes).
            Atomics.store(data.holdAfterCharge!, 0, 1)
            Atomics.notify(data.holdAfterCharge!, 0)
            Atomics.wait(data.holdAfterCharge!, 0, 1)
          }
        }
      })
    )
    reply = { id: m.id, ok: true, record }
  } catch (e) {
    if (isUserError(e)) {
      const releaseId = (e as { releaseId?: unknown }).releaseId
      reply = { id: m.id, ok: false, message: e.message, code: e.code, ...(typeof releaseId === 'number' ? { releaseId } : {}) }
    } else {
      process.stderr.write(`release failed: ${(e as Error)?.stack ?? String(e)}\n`)
      reply = { id: m.id, ok: false, message: null, code: 'internal' }
    }
  } finally {
    Atomics.store(data.flight, 0, 0)
  }
  port.postMessage(reply)
})
port.postMessage({ ready: true })
