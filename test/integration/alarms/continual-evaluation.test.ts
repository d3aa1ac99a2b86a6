/**
 * Continual alarms evaluated on the real release path (services/alarms/evaluate.ts with the secure generator): each test
 * is the failure it stops. A period is never charged twice and never skipped without a word (a crash after the charge,
 * a clock set back, a catch-up over 100 missed periods, a run repeated); a late row never changes an evaluated answer;
 * the done-when: 72 hourly periods with planted over-threshold cells, a when-fires alarm finds them at beta's rate and
 * its whole charge is one instance's epsilon.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { SecureRandom } from '../../../src-worker/engine/random'
import { evaluateDueAlarms } from '../../../src-main/services/alarms/evaluate'
import { planAlarm } from '../../../src-main/services/alarms/plan'
import { alarmHistory, alarmRow } from '../../../src-main/services/alarms/alarm-store'
import { verifyLedger } from '../../../src-main/services/ledger/verify'
import { unitSpend } from '../../../src-main/services/ledger/accounts'
import { nanoToNumber } from '../../../src-main/services/chain/nano-epsilon'
import type { Store } from '../../../src-main/services/store/store'
import type { tempWorkspace } from '../helpers'
import { closeLedgerWorkspace, openLedgerWorkspace } from '../ledger/fixtures'
import { HOUR, START, addRows, binomialUpper, plantStream, createHourlyAlarm } from './continual-fixture'
import type { CreateAlarmRequest } from '../../../src-main/contract/alarms'

let ws: ReturnType<typeof tempWorkspace>
let store: Store

beforeEach(() => {
  ;({ ws, store } = openLedgerWorkspace('qa-alarm-'))
})
afterEach(() => closeLedgerWorkspace(store, ws))

const at = (hours: number) => new Date(START + hours * HOUR)
const run = (hours: number, opts: Parameters<typeof evaluateDueAlarms>[3] = {}) => evaluateDueAlarms(store.db, at(hours), SecureRandom.create(), opts)

const create = (queryId: number, extra: Partial<CreateAlarmRequest>) => createHourlyAlarm(store.db, queryId, { alpha: 100, ...extra })

function alarmCharges(alarmId: number): Array<{ seq: number; amount_nano: number }> {
  return store.db
    .prepare(`SELECT seq, amount_nano FROM ledger_entries WHERE kind = 'charge' AND json_extract(detail, '$.alarm.id') = ? ORDER BY seq`)
    .all(alarmId) as Array<{ seq: number; amount_nano: number }>
}

function periodsOf(alarmId: number): number[] {
  return (store.db.prepare('SELECT period FROM alarm_periods WHERE alarm_id = ? ORDER BY period').all(alarmId) as Array<{ period: number }>).map(
    (r) => r.period
  )
}

describe('when-fires: the done-when', () => {
  it('72 hourly periods with planted over-threshold cells: found at the rate beta promises, the whole charge one instance, run-due again changes nothing', () => {
    // One planted room per hour (72 planted cells), each exactly at its threshold (the hardest over-threshold case);
    // the others far under. c = 100 covers the planted fires and false fires: one instance for the whole stream.
    const s = plantStream(store.db, { hours: 72, rooms: 20, quiet: 20, high: 200, threshold: 200, over: (h, r) => r === h % 20 })
    const preview = planAlarm(store.db, {
      queryId: s.queryId,
      timeColumn: 'at',
      period: 'hour',
      start: new Date(START).toISOString(),
      mode: 'when-fires',
      beta: 0.05,
      alpha: 100,
      fires: 100
    }).preview
    expect(preview.split?.missBound).toBeLessThanOrEqual(0.05)
    const alarm = create(s.queryId, { mode: 'when-fires', fires: 100 })
    expect(alarm.mode).toBe('when-fires')
    expect(alarm.chargeExact).toBe(preview.chargeExact)
    const first = run(72)
    expect(first.evaluated.map((e) => e.period)).toEqual(Array.from({ length: 72 }, (_, i) => i))
    const hist = alarmHistory(store.db, alarm.alarmId, { limit: 1000 })
    let misses = 0
    let falseFires = 0
    for (const p of hist.periods) {
      const planted = `room = R${(p.period % 20) + 1}`
      if (!p.fired.includes(planted)) misses++
      falseFires += p.fired.filter((f) => f !== planted).length
    }
    // Miss rate <= beta = 0.05 per planted cell: more than binomialUpper misses of 72 has probability <= 1e-4 under it.
    // (Fails when the shift is dropped: a cell exactly at its threshold is then missed half the time.)
    expect(misses).toBeLessThan(binomialUpper(72, 0.05, 1e-4))
    // Quiet cells are 180 under (alpha 100): a false fire has probability far below beta.
    expect(falseFires).toBeLessThan(binomialUpper(72 * 19, 0.05, 1e-4))
    // The whole charge is one instance's epsilon, not 72 periods' worth.
    const charges = alarmCharges(alarm.alarmId)
    expect(charges).toHaveLength(1)
    expect(nanoToNumber(charges[0].amount_nano)).toBe(preview.charge)
    expect(nanoToNumber(unitSpend(store.db, s.datasetId).spentNano)).toBe(preview.charge)
    // Running again, now or later at the same clock, changes nothing.
    const ledgerBefore = store.db.prepare('SELECT COUNT(*) AS n FROM ledger_entries').get()
    expect(run(72).evaluated).toEqual([])
    expect(run(72.5).evaluated).toEqual([])
    expect(store.db.prepare('SELECT COUNT(*) AS n FROM ledger_entries').get()).toEqual(ledgerBefore)
    expect(alarmHistory(store.db, alarm.alarmId, { limit: 1000 }).periods).toEqual(hist.periods)
    expect(verifyLedger(store.db).ok).toBe(true)
  })
})

describe('a period is charged once and never skipped silently', () => {
  it('a crash after the charge rolls the whole period back; the restart evaluates it once, in order', () => {
    const s = plantStream(store.db, { hours: 6, rooms: 3, quiet: 1, high: 50, threshold: 30, over: (h, r) => r === 0 && h % 2 === 0 })
    const alarm = create(s.queryId, { alpha: 10 })
    expect(alarm.mode).toBe('row-level')
    expect(() =>
      run(6, {
        afterCharge: (_id, period) => {
          if (period === 3) throw new Error('power cut')
        }
      })
    ).toThrow('power cut')
    expect(periodsOf(alarm.alarmId)).toEqual([0, 1, 2])
    expect(alarmCharges(alarm.alarmId)).toHaveLength(3)
    const again = run(6)
    expect(again.evaluated.map((e) => e.period)).toEqual([3, 4, 5])
    expect(periodsOf(alarm.alarmId)).toEqual([0, 1, 2, 3, 4, 5])
    expect(alarmCharges(alarm.alarmId)).toHaveLength(6)
    expect(verifyLedger(store.db).ok).toBe(true)
  })

  it('a clock set back a day evaluates nothing again; the periods that close later are evaluated once', () => {
    const s = plantStream(store.db, { hours: 30, rooms: 2, quiet: 1, high: 50, threshold: 30, over: () => false })
    const alarm = create(s.queryId, { alpha: 10 })
    expect(run(26).evaluated).toHaveLength(26)
    expect(run(2).evaluated).toEqual([])
    expect(run(26).evaluated).toEqual([])
    expect(run(28).evaluated.map((e) => e.period)).toEqual([26, 27])
    expect(periodsOf(alarm.alarmId)).toEqual(Array.from({ length: 28 }, (_, i) => i))
    expect(alarmCharges(alarm.alarmId)).toHaveLength(28)
  })

  it('a catch-up over 100 missed periods evaluates each in order, once; a row-level row pays one period for ever', () => {
    const s = plantStream(store.db, { hours: 100, rooms: 2, quiet: 1, high: 50, threshold: 30, over: (h) => h === 57 })
    const alarm = create(s.queryId, { alpha: 10 })
    const r = run(100.01)
    expect(r.evaluated.map((e) => e.period)).toEqual(Array.from({ length: 100 }, (_, i) => i))
    expect(periodsOf(alarm.alarmId)).toHaveLength(100)
    // Periods are disjoint cells: the spend per row is one period's price, whatever the number of periods.
    expect(nanoToNumber(unitSpend(store.db, s.datasetId).spentNano)).toBe(alarm.charge)
    expect(alarmRow(store.db, alarm.alarmId).status).toBe('watching')
  })

  it('a late row never changes an evaluated answer, and the answer says so', () => {
    const s = plantStream(store.db, { hours: 4, rooms: 2, quiet: 1, high: 50, threshold: 30, over: () => false })
    const alarm = create(s.queryId, { alpha: 10 })
    run(4)
    const before = alarmHistory(store.db, alarm.alarmId)
    expect(before.periods.every((p) => p.fired.length === 0)).toBe(true)
    // 500 rows for period 1, room R1, arrive after it was evaluated: far over the threshold.
    addRows(store.db, s.datasetId, 'R1', START + 1 * HOUR + 10, 500)
    expect(run(4).evaluated).toEqual([])
    expect(run(4.9).evaluated).toEqual([])
    const after = alarmHistory(store.db, alarm.alarmId)
    expect(after.periods).toEqual(before.periods)
    expect(after.periods[0].lateRowsNote).toMatch(/rows that arrive for a period after it was evaluated are never counted/)
    expect(after.alarm.lateRowsText).toMatch(/never counted/)
  })
})
