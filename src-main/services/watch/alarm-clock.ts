/**
 * Where alarms run while a process holds the workspace: the service process (no analyst connected) and the workbench
 * app. The clock wakes when the next watching alarm's next period closes (its end plus the grace: public schedule),
 * when a queued webhook delivery is due, and at least every `checkMs`; each wake is put on a tick (the service's public
 * cadence, else whole seconds). At a wake it
 * 1. has the alarm runner (alarm-runner.ts, a worker thread with its own connection) evaluate every due period, and
 *    forwards the run's public events (`alarm:evaluated`, `alarm:fired`) to the event stream;
 * 2. queues the new fires for the webhooks and sends what is due (webhooks/delivery.ts).
 * A period is evaluated once whoever evaluates it (the runner, `alarm run-due` from cron, a second process): the
 * evaluation's (alarm, period) key decides, so the clock needs no lock of its own.
 */
import { Worker } from 'node:worker_threads'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type Database from 'better-sqlite3'
import type { RunDueResult } from '../../contract/alarms'
import type { EvaluateOptions } from '../alarms/evaluate'
import { PERIOD_MS } from '../../../src-worker/engine/alarms/periods'
import { type DeliverOptions, type DeliveryReport, deliverDue, queueFires } from '../webhooks/delivery'

type Db = Database.Database
type AlarmEvent = Parameters<NonNullable<EvaluateOptions['emit']>>[0]

export interface AlarmRunnerData {
  dbPath: string
  projectRoot?: string
}
export interface AlarmRunnerRequest {
  id: number
  nowMs: number
}
export type AlarmRunnerReply = { id: number; ok: true; result: RunDueResult; events: AlarmEvent[] } | { id: number; ok: false; message: string }

export interface RunnerScript {
  path: string
  execArgv?: string[]
  env?: NodeJS.ProcessEnv
}

/** The runner's entry for the running build: the bundled `alarm-runner.js`, or the TypeScript source through tsx. */
export function resolveAlarmRunnerScript(env: NodeJS.ProcessEnv = process.env): RunnerScript {
  const here = fileURLToPath(import.meta.url)
  if (here.endsWith('.ts')) return { path: join(dirname(here), 'alarm-runner-from-source.cjs'), execArgv: [], env }
  for (const candidate of [join(dirname(here), 'alarm-runner.js'), join(dirname(here), '..', 'alarm-runner.js')]) {
    if (existsSync(candidate)) return { path: candidate, execArgv: [], env }
  }
  throw new Error(`The alarm runner bundle (alarm-runner.js) was not found next to ${here}; run "npm run build"`)
}

export const DEFAULT_CHECK_MS = 60_000

export interface AlarmClockOptions {
  /** The services' connection: the schedule (public) and the webhook outbox are read and written here. */
  db: Db
  dbPath: string
  projectRoot?: string
  /** The service's public cadence (ticks of every wake); null in the workbench (whole seconds). */
  cadenceMs: number | null
  /** The event stream. */
  emit: (e: AlarmEvent) => void
  /** Webhook sending (tests pass a sender trusting their authority). */
  deliver?: DeliverOptions
  checkMs?: number
  now?: () => number
  script?: RunnerScript
  /** One line per wake that did something, and per failure (the service's log; never a value). */
  log?: (line: string) => void
}

export interface WakeReport {
  at: number
  run: RunDueResult | null
  queued: number
  delivery: DeliveryReport
}

export interface AlarmClock {
  /** Wakes now (after an alarm is created or resumed, and in tests); resolves with what the wake did. */
  wake(): Promise<WakeReport>
  /** Hears each wake's report. */
  onWake(f: (r: WakeReport) => void): () => void
  stop(): Promise<void>
}

interface ScheduleRow {
  start_at: string
  period: keyof typeof PERIOD_MS
  grace_seconds: number
  last: number | null
}

/** When the next period of any watching alarm closes (ms), or null when none watches. Public: the schedule only. */
export function nextAlarmDue(db: Db): number | null {
  const rows = db
    .prepare(
      `SELECT a.start_at, a.period, a.grace_seconds, (SELECT MAX(p.period) FROM alarm_periods p WHERE p.alarm_id = a.id) AS last
         FROM alarms a WHERE a.status = 'watching'`
    )
    .all() as ScheduleRow[]
  let next: number | null = null
  for (const r of rows) {
    const p = r.last === null ? 0 : r.last + 1
    const due = Date.parse(r.start_at) + (p + 1) * PERIOD_MS[r.period] + r.grace_seconds * 1000
    if (next === null || due < next) next = due
  }
  return next
}

function nextDeliveryDue(db: Db): number | null {
  const r = db
    .prepare(
      `SELECT MIN(d.next_attempt_at) AS t FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
        WHERE w.active = 1 AND d.delivered_at IS NULL AND d.next_attempt_at IS NOT NULL`
    )
    .get() as { t: number | null }
  return r.t
}

export function startAlarmClock(o: AlarmClockOptions): AlarmClock {
  const now = o.now ?? Date.now
  const tickMs = o.cadenceMs ?? 1000
  const checkMs = o.checkMs ?? DEFAULT_CHECK_MS
  const listeners = new Set<(r: WakeReport) => void>()
  let worker: Worker | null = null
  let ready: Promise<void> | null = null
  let seq = 0
  const waiting = new Map<number, (r: AlarmRunnerReply) => void>()
  let timer: NodeJS.Timeout | null = null
  let running: Promise<WakeReport> | null = null
  let stopped = false
  /** The last evaluation failed: the next one waits for the next check instead of the next tick. */
  let failed = false

  const failAll = (message: string) => {
    for (const [id, resolve] of waiting) resolve({ id, ok: false, message })
    waiting.clear()
  }
  const runner = (): Promise<Worker> => {
    if (worker && ready) return ready.then(() => worker!)
    const script = o.script ?? resolveAlarmRunnerScript()
    const w = new Worker(script.path, {
      workerData: { dbPath: o.dbPath, projectRoot: o.projectRoot } satisfies AlarmRunnerData,
      execArgv: script.execArgv,
      env: script.env
    })
    worker = w
    ready = new Promise<void>((resolve, reject) => {
      const onMessage = (m: unknown) => {
        if ((m as { ready?: boolean }).ready) {
          w.off('message', onMessage)
          resolve()
        }
      }
      w.on('message', onMessage)
      w.once('error', reject)
    })
    w.on('message', (m: AlarmRunnerReply | { ready: true }) => {
      if ('ready' in m) return
      waiting.get(m.id)?.(m)
      waiting.delete(m.id)
    })
    const lost = (why: string) => {
      if (worker === w) {
        worker = null
        ready = null
      }
      failAll(why)
    }
    w.on('error', (e) => lost(`the alarm runner failed (${e.message})`))
    w.on('exit', () => lost('the alarm runner stopped'))
    return ready.then(() => w)
  }
  const evaluate = async (nowMs: number): Promise<RunDueResult | null> => {
    const w = await runner()
    const id = ++seq
    const reply = await new Promise<AlarmRunnerReply>((resolve) => {
      waiting.set(id, resolve)
      w.postMessage({ id, nowMs } satisfies AlarmRunnerRequest)
    })
    if (!reply.ok) {
      o.log?.(`alarms: evaluation failed, tried again at the next check: ${reply.message}`)
      return null
    }
    for (const e of reply.events) o.emit(e)
    return reply.result
  }

  const once = async (): Promise<WakeReport> => {
    const t = now()
    const due = nextAlarmDue(o.db)
    const run = due !== null && due <= t ? await evaluate(t) : null
    failed = due !== null && due <= t && run === null
    const t2 = now()
    const queued = queueFires(o.db, t2)
    const delivery = await deliverDue(o.db, t2, o.deliver)
    const report: WakeReport = { at: t, run, queued, delivery }
    if (run && run.evaluated.length > 0)
      o.log?.(`alarms: evaluated ${run.evaluated.length} period(s), ${run.evaluated.filter((e) => e.fired.length > 0).length} with fires`)
    if (delivery.attempted > 0) o.log?.(`webhooks: sent ${delivery.attempted}, delivered ${delivery.delivered}`)
    for (const f of listeners) f(report)
    return report
  }
  const wake = (): Promise<WakeReport> => {
    if (running) return running.then(() => wake())
    running = once().finally(() => {
      running = null
      arm()
    })
    return running
  }
  const arm = () => {
    if (stopped) return
    if (timer) clearTimeout(timer)
    const t = now()
    const candidates = [t + checkMs, failed ? null : nextAlarmDue(o.db), nextDeliveryDue(o.db)].filter((x): x is number => x !== null)
    const at = Math.max(t + 1, Math.min(...candidates))
    const onTick = Math.ceil(at / tickMs) * tickMs
    timer = setTimeout(
      () => {
        timer = null
        wake().catch((e) => o.log?.(`alarms: a check failed: ${(e as Error)?.message ?? String(e)}`))
      },
      Math.min(onTick - t, 2 ** 31 - 1)
    )
    timer.unref()
  }
  arm()
  return {
    wake,
    onWake(f) {
      listeners.add(f)
      return () => listeners.delete(f)
    },
    async stop() {
      stopped = true
      if (timer) clearTimeout(timer)
      timer = null
      if (running) await running.catch(() => undefined)
      const w = worker
      worker = null
      ready = null
      if (w) await w.terminate()
      failAll('the alarm clock stopped')
    }
  }
}
