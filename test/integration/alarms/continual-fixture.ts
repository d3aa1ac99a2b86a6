/**
 * A watched stream for the alarm tests: a row-level (or person-level) dataset of visits (room, at[, person]) over hourly
 * periods, a saved threshold question over listed rooms with a constant threshold, a budget, and the officer.
 * Counts are planted per (hour, room) so that the truth of every predicate in every period is known.
 */
import type Database from 'better-sqlite3'
import { craftDataset, saveQuery } from '../ledger/fixtures'
import { setBudget } from '../../../src-main/services/ledger/budgets'
import { recordPrivacyUnit } from '../../../src-main/services/catalog/unit-record'
import { officerAct } from '../officer-fixture'
import { createAlarm } from '../../../src-main/services/alarms/create'
import type { CreateAlarmRequest } from '../../../src-main/contract/alarms'

export const START = Date.parse('2026-01-01T00:00:00Z')
export const HOUR = 3_600_000

export interface Stream {
  datasetId: number
  queryId: number
  rooms: string[]
  /** planted[h][r]: the true count of room r in hour h */
  planted: number[][]
}

/**
 * `hours` x `rooms` cells with count `quiet` each, except the cells `over(h, r)` says, which get `high`. Rows sit at
 * the middle of their hour. Person-level: each row is its own person (person column "person").
 */
export function plantStream(
  db: Database.Database,
  o: {
    hours: number
    rooms: number
    quiet: number
    high: number
    threshold: number
    over: (h: number, r: number) => boolean
    personLevel?: boolean
    budget?: string
  }
): Stream {
  const rooms = Array.from({ length: o.rooms }, (_, i) => `R${i + 1}`)
  const planted: number[][] = []
  const rows: Array<Array<string | number | null>> = []
  let person = 0
  for (let h = 0; h < o.hours; h++) {
    planted.push([])
    for (let r = 0; r < o.rooms; r++) {
      const n = o.over(h, r) ? o.high : o.quiet
      planted[h].push(n)
      for (let i = 0; i < n; i++) {
        const at = START + h * HOUR + HOUR / 2
        rows.push(o.personLevel ? [rooms[r], at, `p${person++}`] : [rooms[r], at])
      }
    }
  }
  const columns: Array<{ name: string; type: 'text' | 'timestamp' }> = [
    { name: 'room', type: 'text' },
    { name: 'at', type: 'timestamp' }
  ]
  if (o.personLevel) columns.push({ name: 'person', type: 'text' })
  const datasetId = craftDataset(db, 'visits', columns, rows)
  if (o.personLevel) db.transaction(() => recordPrivacyUnit(db, datasetId, 'person'))()
  const queryId = saveQuery(db, datasetId, 'rooms over capacity', {
    kind: 'threshold',
    groupBy: ['room'],
    groups: rooms.map((r) => [r]),
    count: o.personLevel ? { kind: 'persons', personColumn: 'person', cap: 1 } : { kind: 'rows' },
    threshold: { kind: 'constant', value: o.threshold }
  })
  setBudget(db, { datasetId, epsilon: o.budget ?? '1000', reason: 'alarm tests', ...officerAct(db) })
  return { datasetId, queryId, rooms, planted }
}

/** Adds `n` rows for room `room` at time `at` (late rows). */
export function addRows(db: Database.Database, datasetId: number, room: string, at: number, n: number): void {
  const t = db.prepare('SELECT table_name FROM datasets WHERE id = ?').get(datasetId) as { table_name: string }
  const cols = (db.prepare('SELECT COUNT(*) AS n FROM dataset_columns WHERE dataset_id = ?').get(datasetId) as { n: number }).n
  const ins = db.prepare(`INSERT INTO ${t.table_name} VALUES (${Array.from({ length: cols }, () => '?').join(', ')})`)
  db.transaction(() => {
    for (let i = 0; i < n; i++) ins.run(...(cols === 3 ? [room, at, `late${i}`] : [room, at]))
  })()
}

/** The smallest k with P(Binomial(n, p) >= k) <= alpha: more misses than k - 1 refute "miss rate <= p" at level alpha. */
export function binomialUpper(n: number, p: number, alpha: number): number {
  let tail = 1
  let pmf = Math.pow(1 - p, n)
  for (let k = 0; k <= n; k++) {
    if (tail <= alpha) return k
    tail -= pmf
    pmf = (pmf * (n - k) * p) / ((k + 1) * (1 - p))
  }
  return n + 1
}

/** An hourly alarm on the planted stream's `at` column from START (beta 0.05, alpha 10 unless `extra` says otherwise), signed by the test officer. */
export function createHourlyAlarm(db: Database.Database, queryId: number, extra: Partial<CreateAlarmRequest> = {}) {
  return createAlarm(db, {
    queryId,
    timeColumn: 'at',
    period: 'hour',
    start: new Date(START).toISOString(),
    beta: 0.05,
    alpha: 10,
    reason: 'watch the rooms every hour',
    ...officerAct(db),
    ...extra
  })
}
