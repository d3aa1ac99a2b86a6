/**
 * The alarm runner: a worker thread of its own that evaluates the due periods of the watching alarms
 * (alarms/evaluate.ts, each period's charge, read and record in one IMMEDIATE transaction) on its own connection to the
 * workspace, with a fresh secure generator per run. The services' thread only sends "now" and receives the run's
 * public result and events, so a period's data read and computation never hold the door's thread (whose writes leave
 * at the service's cadence: a busy thread would show as a missed tick).
 */
import { parentPort, workerData } from 'node:worker_threads'
import { SecureRandom } from '../../../src-worker/engine/random'
import { evaluateDueAlarms, type EvaluateOptions } from '../alarms/evaluate'
import { openStore } from '../store/store'
import type { AlarmRunnerData, AlarmRunnerReply, AlarmRunnerRequest } from './alarm-clock'

const data = workerData as AlarmRunnerData
const port = parentPort!
let store: ReturnType<typeof openStore> | null = null

port.on('message', (m: AlarmRunnerRequest) => {
  let reply: AlarmRunnerReply
  try {
    // A second connection of a process that has the workspace open already: no migration, no staging clean-up.
    store ??= openStore(data.dbPath, { projectRoot: data.projectRoot, secondary: true })
    const events: Array<Parameters<NonNullable<EvaluateOptions['emit']>>[0]> = []
    const result = evaluateDueAlarms(store.db, new Date(m.nowMs), SecureRandom.create(), { emit: (e) => events.push(e) })
    reply = { id: m.id, ok: true, result, events }
  } catch (e) {
    // A failure's message may name the workspace; the clock logs it locally and tries again at the next check.
    reply = { id: m.id, ok: false, message: (e as Error)?.message ?? String(e) }
  }
  port.postMessage(reply)
})
port.postMessage({ ready: true })
