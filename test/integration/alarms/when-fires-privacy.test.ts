/**
 * Empirical privacy of when-fires on the real release path (evaluateDueAlarms with the secure generator, the charge,
 * the stored instance, the period records): two neighbouring streams that differ in one person present in every period
 * (every query moves by 1, the sensitivity the charge is computed for), many independent runs of the same signed alarm
 * on each, and a Clopper-Pearson lower bound on epsilon from the released outcome (which period fired first, or none),
 * which must stay below the instance's charge. The runs use the secure generator (no seed): at alpha 1e-3 the bound
 * exceeds the charge by chance with probability at most 1e-3.
 *
 * Power: a comparison without noise fires in period 0 on one stream and never on the other; with the noise removed
 * (eps1 and eps2 set to 1e9 in evaluate.ts) the bound measured 3.67 at N = 600 runs per stream (about 3.3 at N = 400),
 * above the charge 1.47: the test fails on such a release path. It cannot see a leak much smaller than the charge.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { copyFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { SecureRandom } from '../../../src-worker/engine/random'
import { evaluateDueAlarms } from '../../../src-main/services/alarms/evaluate'
import { createAlarm } from '../../../src-main/services/alarms/create'
import { openStore } from '../../../src-main/services/store/store'
import { tempWorkspace } from '../helpers'
import { craftDataset, saveQuery } from '../ledger/fixtures'
import { setBudget } from '../../../src-main/services/ledger/budgets'
import { recordPrivacyUnit } from '../../../src-main/services/catalog/unit-record'
import { officerAct } from '../officer-fixture'
import { countEvents, epsilonLowerBoundOf, printBound } from '../privacy/dp-tester'
import { HOUR, START } from './continual-fixture'

const PERIODS = 3
const THRESHOLD = 10
const RUNS = 400
const OTHERS = THRESHOLD - 3

let ws: ReturnType<typeof tempWorkspace>
const base: Record<'with' | 'without', string> = { with: '', without: '' }
let charge = 0

/**
 * A person-level stream: OTHERS persons in room R1 every hour, plus person "P" every hour when `withP`. OTHERS = t - a - 1
 * (a = alpha / 2 = 2): without noise the stream with P fires in period 0 and the one without never does.
 */
function build(path: string, withP: boolean): number {
  const store = openStore(path)
  const db = store.db
  const rows: Array<Array<string | number>> = []
  for (let h = 0; h < PERIODS; h++) {
    const t = START + h * HOUR + HOUR / 2
    for (let i = 0; i < OTHERS; i++) rows.push(['R1', t, `h${h}-${i}`])
    if (withP) rows.push(['R1', t, 'P'])
  }
  const id = craftDataset(
    db,
    'visits',
    [
      { name: 'room', type: 'text' },
      { name: 'at', type: 'timestamp' },
      { name: 'person', type: 'text' }
    ],
    rows
  )
  db.transaction(() => recordPrivacyUnit(db, id, 'person'))()
  const q = saveQuery(db, id, 'room over capacity', {
    kind: 'threshold',
    groupBy: ['room'],
    groups: [['R1']],
    count: { kind: 'persons', personColumn: 'person', cap: 1 },
    threshold: { kind: 'constant', value: THRESHOLD }
  })
  setBudget(db, { datasetId: id, epsilon: '100', reason: 'privacy test', ...officerAct(db) })
  const alarm = createAlarm(db, {
    queryId: q,
    timeColumn: 'at',
    period: 'hour',
    start: new Date(START).toISOString(),
    mode: 'when-fires',
    beta: 0.2,
    alpha: 4,
    fires: 1,
    reason: 'empirical privacy',
    ...officerAct(db)
  })
  db.pragma('wal_checkpoint(TRUNCATE)')
  store.close()
  return alarm.charge
}

let copies = 0
/** One run: a fresh copy of the signed workspace, its due periods evaluated; the released outcome (first fire or none). */
function runOnce(path: string): number {
  const to = join(ws.dir, `run-${++copies}.qa`)
  copyFileSync(path, to)
  const store = openStore(to)
  try {
    const r = evaluateDueAlarms(store.db, new Date(START + PERIODS * HOUR), SecureRandom.create())
    const first = r.evaluated.find((e) => e.fired.length > 0)
    return first === undefined ? -1 : first.period
  } finally {
    store.close()
    for (const s of ['', '-wal', '-shm']) rmSync(to + s, { force: true })
  }
}

beforeAll(() => {
  ws = tempWorkspace('qa-alarm-dp-')
  base.with = join(ws.dir, 'with.qa')
  base.without = join(ws.dir, 'without.qa')
  charge = build(base.with, true)
  expect(build(base.without, false)).toBe(charge)
}, 120_000)
afterAll(() => ws.cleanup())

describe('when-fires: empirical privacy on the real release path', () => {
  it(`neighbouring streams (one person in every period) give a Clopper-Pearson lower bound on epsilon below the instance's charge`, () => {
    const outcomes = [-1, ...Array.from({ length: PERIODS }, (_, i) => i)]
    const counts = countEvents(
      RUNS,
      () => runOnce(base.with),
      () => runOnce(base.without),
      outcomes.map((o) => (out: number) => out === o)
    )
    const eps = epsilonLowerBoundOf(counts, 1e-3)
    printBound('when-fires alarm, one person in every period', eps, charge)
    expect(eps).toBeLessThan(charge)
  }, 600_000)
})
