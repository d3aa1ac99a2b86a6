/**
 * `npm run bench -- alarms`: an hourly alarm over the NAB NYC taxi series (resources/data/nab/nyc_taxi.csv: 10,320
 * half-hours of ride counts, summed to 5,160 hours), "is the city's hourly ride count at or over T?".
 *
 * 1. Lifetime epsilon of one unit over the whole stream, per mode, from the alarm planner the officer signs with
 *    (services/alarms/plan.ts): row-level (each ride its own row: one period's price for ever), per-period (person-hour:
 *    the honest lifetime figure is the sum of the periods' charges), when-fires (sparse vector, c fires per instance:
 *    instances x eps, the instances counted by simulating the stream), beside today's re-release of the same threshold
 *    question every hour at person level (each hour a full release).
 * 2. Detection on the series' high-traffic anomaly windows (combined_windows.json windows whose hourly count reaches
 *    T): the share of seeded when-fires runs that fire at least once inside the window, and the share of over-T hours
 *    inside the windows that fire; fires outside the windows split into true (count >= T) and false (count < T - alpha).
 * 3. Time from a period's close (end + grace) to its fire reaching a webhook: one service with its alarm clock on
 *    (watch/alarm-clock.ts), cadence 250 ms, and an HTTPS receiver on loopback; `runs` alarms in turn, each with a period
 *    that closes 15 s after the run starts (the first includes starting the alarm runner thread).
 * Env: ALARMS_BENCH_SEEDS (when-fires runs, default 200), ALARMS_BENCH_LATENCY_RUNS (default 3).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { type Server, createServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { openStore } from '../../src-main/services/store/store'
import { createServices } from '../../src-main/services'
import { planAlarm } from '../../src-main/services/alarms/plan'
import { createAlarm } from '../../src-main/services/alarms/create'
import { recordPrivacyUnit } from '../../src-main/services/catalog/unit-record'
import { setBudget } from '../../src-main/services/ledger/budgets'
import { addWebhook } from '../../src-main/services/webhooks/webhook-store'
import { httpsSender } from '../../src-main/services/webhooks/delivery'
import { simulateWhenFires } from '../../src-worker/engine/alarms/simulate'
import { seededRng } from '../../src-worker/engine/random'
import type { CreateAlarmRequest } from '../../src-main/contract/alarms'
import { craftDataset, saveQuery } from '../integration/ledger/fixtures'
import { officerAct } from '../integration/officer-fixture'
import { tempWorkspace } from '../integration/helpers'
import { makeTestPki } from '../support/tls'
import { report, round } from './timing'

const HOUR = 3_600_000
const T = 57_000
const ALPHA = 2_000
const BETA = 0.05
const FIRES = 3
/** Person-level: at most this many rides of one person count in an hour. */
const CAP = 2
const seeds = Number(process.env.ALARMS_BENCH_SEEDS ?? 200)
const latencyRuns = Number(process.env.ALARMS_BENCH_LATENCY_RUNS ?? 3)

const nab = join(__dirname, '..', '..', 'resources', 'data', 'nab')

function hourlySeries(): { hours: number[]; counts: number[] } {
  const lines = readFileSync(join(nab, 'nyc_taxi.csv'), 'utf8').trim().split('\n').slice(1)
  const byHour = new Map<number, number>()
  for (const l of lines) {
    const [ts, v] = l.split(',')
    const t = Date.parse(`${ts.replace(' ', 'T')}Z`)
    const h = Math.floor(t / HOUR) * HOUR
    byHour.set(h, (byHour.get(h) ?? 0) + Number(v))
  }
  const hours = [...byHour.keys()].sort((a, b) => a - b)
  return { hours, counts: hours.map((h) => byHour.get(h)!) }
}

function windows(): Array<[number, number]> {
  const w = JSON.parse(readFileSync(join(nab, 'combined_windows.json'), 'utf8'))['realKnownCause/nyc_taxi.csv'] as Array<[string, string]>
  return w.map(([a, b]) => [Date.parse(`${a.slice(0, 19).replace(' ', 'T')}Z`), Date.parse(`${b.slice(0, 19).replace(' ', 'T')}Z`)])
}

/** A workspace with the taxi question on a row-level and a person-level dataset (no rows: planning reads none). */
function plans(periods: number) {
  const ws = tempWorkspace('qa-bench-alarms-')
  const store = openStore(ws.db)
  try {
    const db = store.db
    const cols = [
      { name: 'city', type: 'text' as const },
      { name: 'at', type: 'timestamp' as const },
      { name: 'person', type: 'text' as const }
    ]
    const rowDs = craftDataset(db, 'taxi rides', cols, [])
    const personDs = craftDataset(db, 'taxi riders', cols, [])
    db.transaction(() => recordPrivacyUnit(db, personDs, 'person'))()
    const q = (ds: number, count: object) =>
      saveQuery(db, ds, 'city rides over T', {
        kind: 'threshold',
        groupBy: ['city'],
        groups: [['NYC']],
        count,
        threshold: { kind: 'constant', value: T }
      } as never)
    const rowQ = q(rowDs, { kind: 'rows' })
    const personQ = q(personDs, { kind: 'persons', personColumn: 'person', cap: CAP })
    const base = { timeColumn: 'at', period: 'hour' as const, start: '2014-07-01T00:00:00Z', beta: BETA, alpha: ALPHA }
    const rowLevel = planAlarm(db, { ...base, queryId: rowQ }).preview
    const perPeriod = planAlarm(db, { ...base, queryId: personQ, mode: 'per-period' }).preview
    const whenFires = planAlarm(db, { ...base, queryId: personQ, mode: 'when-fires', fires: FIRES }).preview
    return { rowLevel, perPeriod, whenFires, periods }
  } finally {
    store.close()
    ws.cleanup()
  }
}

function detection(hours: number[], counts: number[], split: { eps1: number; eps2: number; shift: number }) {
  const wins = windows().filter(([a, b]) => hours.some((h, i) => h >= a && h <= b && counts[i] >= T))
  const inWindow = (h: number) => wins.some(([a, b]) => h >= a && h <= b)
  const overInWindows = hours.map((h, i) => i).filter((i) => inWindow(hours[i]) && counts[i] >= T)
  const periods = counts.map((c) => ({ counts: [c], thresholds: [T] }))
  const params = { eps1: split.eps1, eps2: split.eps2, c: FIRES, sensitivity: CAP, shift: split.shift, monotone: true }
  let windowHits = 0
  let hourHits = 0
  let instances = 0
  let trueOutside = 0
  let falseFires = 0
  let firesTotal = 0
  for (let s = 0; s < seeds; s++) {
    const run = simulateWhenFires(seededRng(`alarms-bench-${s}`), periods, params, 1e9)
    instances += run.instances
    const fired = new Set(run.fired.flatMap((f, p) => (f.length > 0 ? [p] : [])))
    firesTotal += fired.size
    for (const [a, b] of wins) if (hours.some((h, i) => h >= a && h <= b && fired.has(i))) windowHits++
    for (const i of overInWindows) if (fired.has(i)) hourHits++
    for (const p of fired) {
      if (inWindow(hours[p])) continue
      if (counts[p] >= T) trueOutside++
      else if (counts[p] < T - ALPHA) falseFires++
    }
  }
  return {
    highTrafficWindows: wins.map(([a, b]) => [new Date(a).toISOString(), new Date(b).toISOString()]),
    hoursAtOrOverTInWindows: overInWindows.length,
    hoursAtOrOverTOutsideWindows: counts.filter((c, i) => c >= T && !inWindow(hours[i])).length,
    windowDetectionRate: round(windowHits / (seeds * wins.length), 4),
    hourDetectionRateInWindows: round(hourHits / (seeds * overInWindows.length), 4),
    meanFires: round(firesTotal / seeds, 2),
    meanFiresOutsideWindowsAtOrOverT: round(trueOutside / seeds, 2),
    meanFalseFiresBelowTMinusAlpha: round(falseFires / seeds, 3),
    meanInstances: round(instances / seeds, 2),
    seeds
  }
}

async function latency(): Promise<{ runs: number; msFromCloseToWebhook: number[]; cadenceMs: number }> {
  const pki = makeTestPki(['127.0.0.1'])
  const arrivals: number[] = []
  const server: Server = createServer({ key: pki.key, cert: pki.cert }, (req, res) => {
    req.resume()
    req.on('end', () => {
      arrivals.push(Date.now())
      res.end()
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const out: number[] = []
  const cadenceMs = 250
  try {
    // One service, as deployed: the first period's time includes starting the alarm runner (a worker thread); the
    // later ones find it running.
    const ws = tempWorkspace('qa-bench-alarm-latency-')
    const s = createServices({
      mode: 'headless',
      deployment: 'service',
      cadenceMs,
      dbPath: ws.db,
      poolSize: 1,
      watch: { deliver: { send: httpsSender({ ca: pki.ca }) }, log: () => undefined }
    })
    try {
      const db = s.context.store.db
      addWebhook(db, { url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, createdBy: 'bench', now: new Date(0) })
      for (let run = 0; run < latencyRuns; run++) {
        // Period 0 closes 15 s from now, [close - 1 h, close): the officer's acts below (a key derivation each) take seconds.
        const before = arrivals.length
        const close = Math.ceil((Date.now() + 15_000) / 1000) * 1000
        const start = close - HOUR
        const rows: Array<Array<string | number>> = []
        for (let i = 0; i < 400; i++) rows.push(['NYC', start + HOUR / 2, `p${i}`])
        const ds = craftDataset(
          db,
          `rides ${run}`,
          [
            { name: 'city', type: 'text' },
            { name: 'at', type: 'timestamp' },
            { name: 'person', type: 'text' }
          ],
          rows
        )
        db.transaction(() => recordPrivacyUnit(db, ds, 'person'))()
        const queryId = saveQuery(db, ds, `city over 200 (${run})`, {
          kind: 'threshold',
          groupBy: ['city'],
          groups: [['NYC']],
          count: { kind: 'persons', personColumn: 'person', cap: 1 },
          threshold: { kind: 'constant', value: 200 }
        } as never)
        setBudget(db, { datasetId: ds, epsilon: '100', reason: 'bench', ...officerAct(db) })
        const req = {
          queryId,
          timeColumn: 'at',
          period: 'hour',
          start: new Date(start).toISOString(),
          mode: 'when-fires',
          beta: 0.05,
          alpha: 50,
          fires: 1,
          reason: 'bench',
          ...officerAct(db)
        } as CreateAlarmRequest
        createAlarm(db, req)
        // The clock armed before the alarm existed: wake it, as a create through the door would, so it arms for the close.
        await s.alarmClock!.wake()
        if (Date.now() >= close) throw new Error('the alarm was signed after its period closed: raise the margin')
        const until = Date.now() + 90_000
        while (arrivals.length === before && Date.now() < until) await new Promise((r) => setTimeout(r, 20))
        if (arrivals.length > before) out.push(arrivals[arrivals.length - 1] - close)
      }
    } finally {
      await s.close()
      ws.cleanup()
    }
  } finally {
    await new Promise<void>((r) => server.close(() => r()))
    pki.cleanup()
  }
  return { runs: latencyRuns, msFromCloseToWebhook: out, cadenceMs }
}

async function main() {
  const { hours, counts } = hourlySeries()
  const p = plans(hours.length)
  const n = hours.length
  const split = p.whenFires.split!
  const det = detection(hours, counts, split)
  const lat = await latency()
  const perPeriodLifetime = p.perPeriod.charge * n
  report({
    stream: { halfHours: 10_320, hourlyPeriods: n, threshold: T, alpha: ALPHA, beta: BETA, fires: FIRES, personCap: CAP },
    lifetimeEpsilon: {
      reReleaseEveryPeriod: { perPeriod: p.perPeriod.charge, lifetime: round(perPeriodLifetime, 4), unit: 'person (each hour a full release)' },
      rowLevel: { perPeriod: p.rowLevel.charge, lifetime: p.rowLevel.charge, unit: p.rowLevel.unit },
      perPeriod: {
        perPeriod: p.perPeriod.charge,
        lifetime: round(perPeriodLifetime, 4),
        unit: p.perPeriod.unit,
        note: 'per person-hour; a person in every hour loses the sum'
      },
      whenFires: {
        perInstance: split.epsilon,
        meanInstances: det.meanInstances,
        lifetime: round(split.epsilon * det.meanInstances, 4),
        unit: p.whenFires.unit,
        ratioToReRelease: round((split.epsilon * det.meanInstances) / perPeriodLifetime, 6)
      }
    },
    detection: det,
    latency: lat
  })
}

main().then(
  () => process.exit(0),
  (e) => {
    process.stderr.write(`${(e as Error).stack}\n`)
    process.exit(1)
  }
)
