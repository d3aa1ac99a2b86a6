/**
 * The accounting modes and what stops an alarm, each as the failure it stops: per-period charges every period within
 * the lifetime cap and pauses with the reason when the cap is reached (never a silent stop), and shows the honest
 * lifetime figure; when-fires charges its next instance at the c-th fire and pauses, saying so, when the cap allows no
 * more; an alarm whose row was changed outside the app (a mode or cap the officer did not sign) evaluates nothing; the
 * events and every answer hold public fields only (planted distinctive counts appear in no byte of them).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { SecureRandom } from '../../../src-worker/engine/random'
import { evaluateDueAlarms } from '../../../src-main/services/alarms/evaluate'
import { planAlarm } from '../../../src-main/services/alarms/plan'
import { alarmHistory, alarmRow, alarmView, listAlarms } from '../../../src-main/services/alarms/alarm-store'
import { verifyLedger } from '../../../src-main/services/ledger/verify'
import { AccountGate } from '../../../src-main/services/accounts/gate'
import type { Store } from '../../../src-main/services/store/store'
import type { tempWorkspace } from '../helpers'
import { DISTINCTIVE, closeLedgerWorkspace, openLedgerWorkspace } from '../ledger/fixtures'
import { officerAct } from '../officer-fixture'
import { HOUR, START, plantStream, createHourlyAlarm } from './continual-fixture'
import type { CreateAlarmRequest } from '../../../src-main/contract/alarms'

let ws: ReturnType<typeof tempWorkspace>
let store: Store

beforeEach(() => {
  ;({ ws, store } = openLedgerWorkspace('qa-alarm-modes-'))
})
afterEach(() => closeLedgerWorkspace(store, ws))

const at = (hours: number) => new Date(START + hours * HOUR)

const create = (queryId: number, extra: Partial<CreateAlarmRequest>) => createHourlyAlarm(store.db, queryId, extra)

const charges = (alarmId: number) =>
  (
    store.db.prepare(`SELECT COUNT(*) AS n FROM ledger_entries WHERE kind = 'charge' AND json_extract(detail, '$.alarm.id') = ?`).get(alarmId) as {
      n: number
    }
  ).n

describe('per-period (person-level)', () => {
  it('charges each period within the lifetime cap, then pauses and says why; the person-hour unit and the honest lifetime figure are stated', () => {
    const s = plantStream(store.db, { hours: 10, rooms: 2, quiet: 1, high: 40, threshold: 20, over: () => false, personLevel: true })
    const preview = planAlarm(store.db, {
      queryId: s.queryId,
      timeColumn: 'at',
      period: 'hour',
      start: new Date(START).toISOString(),
      beta: 0.05,
      alpha: 10
    }).preview
    expect(preview.mode).toBe('per-period')
    expect(preview.unit).toBe('person-hour')
    expect(preview.modeText).toMatch(/weaker than person-level privacy/)
    // A cap of 4.5 periods' worth: 4 periods are charged, the fifth pauses.
    const lifetime = (preview.charge * 4.5).toFixed(6)
    const alarm = create(s.queryId, { lifetime })
    expect(alarm.lifetimeExact).not.toBeNull()
    const r = evaluateDueAlarms(store.db, at(10), SecureRandom.create())
    expect(r.evaluated.map((e) => e.period)).toEqual([0, 1, 2, 3])
    expect(r.paused).toHaveLength(1)
    expect(r.paused[0].reason).toMatch(/lifetime cap .* is reached/)
    const view = alarmView(store.db, alarmRow(store.db, alarm.alarmId))
    expect(view.status).toBe('paused')
    expect(view.statusReason).toMatch(/lifetime cap/)
    expect(charges(alarm.alarmId)).toBe(4)
    expect(view.spent).toBeCloseTo(preview.charge * 4, 6)
    expect(preview.lifetimeText).toMatch(/present in every hour loses the sum/)
    // Paused: nothing more is evaluated, even long after.
    expect(evaluateDueAlarms(store.db, at(10), SecureRandom.create()).evaluated).toEqual([])
  })

  it('row-level mode is refused on a person-level dataset with one sentence, and nothing is written', () => {
    const s = plantStream(store.db, { hours: 2, rooms: 2, quiet: 1, high: 40, threshold: 20, over: () => false, personLevel: true })
    expect(() => create(s.queryId, { mode: 'row-level' })).toThrow(/person-level: choose per-period or when-fires/)
    expect(listAlarms(store.db, null, null)).toEqual([])
  })
})

describe('when-fires', () => {
  it('charges the next instance at the c-th fire, within the cap; pauses and says so when the cap allows no more', () => {
    // Every cell far over its threshold: every query fires, so each instance ends after c = 2 fires.
    const s = plantStream(store.db, { hours: 6, rooms: 3, quiet: 300, high: 300, threshold: 20, over: () => true })
    const one = planAlarm(store.db, {
      queryId: s.queryId,
      timeColumn: 'at',
      period: 'hour',
      start: new Date(START).toISOString(),
      mode: 'when-fires',
      beta: 0.05,
      alpha: 10,
      fires: 2
    }).preview
    const alarm = create(s.queryId, { mode: 'when-fires', fires: 2, lifetime: String(one.charge * 3.5) })
    const r = evaluateDueAlarms(store.db, at(6), SecureRandom.create())
    const view = alarmView(store.db, alarmRow(store.db, alarm.alarmId))
    // The cap allows floor(3.5 x one instance / the stream's instance charge) instances, at least 1; each covers 2 fires.
    const instances = charges(alarm.alarmId)
    expect(instances).toBeGreaterThanOrEqual(1)
    expect(view.status).toBe('paused')
    expect(view.statusReason).toMatch(/lifetime cap .* is reached/)
    expect(r.paused[0]?.reason).toBe(view.statusReason)
    const fired = alarmHistory(store.db, alarm.alarmId).periods.reduce((n, p) => n + p.fired.length, 0)
    expect(fired).toBe(2 * instances)
    // The period where it stopped says which predicates were not evaluated (never silent).
    const last = alarmHistory(store.db, alarm.alarmId).periods[0]
    if (r.evaluated.length > 0 && last.fired.length < 3) expect(last.lateRowsNote).toMatch(/were not evaluated/)
    expect(view.spent).toBeLessThanOrEqual(view.lifetime!)
    expect(verifyLedger(store.db).ok).toBe(true)
  })
})

describe('what only the officer signed runs', () => {
  it('an alarm whose mode or cap was changed in the table outside the app evaluates nothing and pauses, naming why', () => {
    const s = plantStream(store.db, { hours: 3, rooms: 2, quiet: 1, high: 40, threshold: 20, over: () => false })
    const alarm = create(s.queryId, { lifetime: '0.5' })
    // The attack: lift the lifetime cap in the row (the ledger's signed act still says 0.5).
    store.db.prepare('UPDATE alarms SET lifetime_cap_nano = NULL WHERE id = ?').run(alarm.alarmId)
    const r = evaluateDueAlarms(store.db, at(3), SecureRandom.create())
    expect(r.evaluated).toEqual([])
    expect(charges(alarm.alarmId)).toBe(0)
    const v = alarmView(store.db, alarmRow(store.db, alarm.alarmId))
    expect(v.status).toBe('paused')
    expect(v.statusReason).toMatch(/changed outside the app/)
  })
})

describe('public fields only', () => {
  it('no planted count appears in any event, answer, history or view of the alarm', () => {
    // Distinctive counts well over the threshold in room R1; every event and view is searched for them.
    const [big] = DISTINCTIVE
    const s = plantStream(store.db, { hours: 3, rooms: 2, quiet: 3, high: big, threshold: 20, over: (h, r) => r === 0 && h === 1 })
    const alarm = create(s.queryId, { mode: 'when-fires', fires: 3, alpha: 10 })
    const events: unknown[] = []
    const r = evaluateDueAlarms(store.db, at(3), SecureRandom.create(), { emit: (e) => events.push(e) })
    expect(events.some((e) => (e as { name: string }).name === 'alarm:evaluated')).toBe(true)
    const bytes = JSON.stringify({ events, r, h: alarmHistory(store.db, alarm.alarmId), list: listAlarms(store.db, null, null) })
    for (const n of [big, big - 20, big + 1, big - 1]) expect(bytes).not.toContain(String(n))
    // Nor the instance's threshold noise, which lives only in its own column.
    const rho = (store.db.prepare('SELECT rho FROM alarm_instances WHERE alarm_id = ?').get(alarm.alarmId) as { rho: number }).rho
    expect(bytes).not.toContain(String(rho))
    expect(bytes).not.toContain(String(rho).slice(0, 8))
  })
})

describe('an alarm signed for an analyst account (service)', () => {
  it("charges the analyst's allotment, records the account, lists as theirs only, and pauses with the allotment's denial when it is used up", async () => {
    const { addAccount } = await import('../../../src-main/services/accounts/account-store')
    const { setBudget } = await import('../../../src-main/services/ledger/budgets')
    const s = plantStream(store.db, { hours: 6, rooms: 2, quiet: 1, high: 40, threshold: 20, over: () => false })
    const ann = addAccount(store.db, { name: 'ann', role: 'analyst', days: 30 }, officerAct(store.db)).account
    const bob = addAccount(store.db, { name: 'bob', role: 'analyst', days: 30 }, officerAct(store.db)).account
    const price = planAlarm(store.db, {
      queryId: s.queryId,
      timeColumn: 'at',
      period: 'hour',
      start: new Date(START).toISOString(),
      beta: 0.05,
      alpha: 10
    }).preview.charge
    // Row-level periods are disjoint cells: the allotment binds per row, so it is used up by other releases' cells;
    // here a whole-dataset allotment of less than one period's price denies the first period.
    setBudget(store.db, { datasetId: s.datasetId, epsilon: String(price / 2), analyst: ann.id, reason: "ann's allotment", ...officerAct(store.db) })
    const alarm = create(s.queryId, { analyst: ann.id })
    expect(listAlarms(store.db, null, ann.id).map((a) => a.alarmId)).toEqual([alarm.alarmId])
    expect(listAlarms(store.db, null, bob.id)).toEqual([])
    // Its events reach ann and the officers, never another analyst (the service's event stream filters by the gate).
    const gate = new AccountGate(store.db)
    const fired = { alarmId: alarm.alarmId, alarmName: 'x', period: 0, from: '', to: '', fired: ['room 1'], accuracy: '' }
    const principal = (id: number, role: 'analyst' | 'officer') => ({ accountId: id, name: String(id), roles: [role] as const })
    expect(gate.mayReceive(principal(ann.id, 'analyst'), 'alarm:fired', fired)).toBe(true)
    expect(gate.mayReceive(principal(ann.id, 'analyst'), 'alarm:evaluated', { alarmId: alarm.alarmId })).toBe(true)
    expect(gate.mayReceive(principal(bob.id, 'analyst'), 'alarm:fired', fired)).toBe(false)
    expect(gate.mayReceive(principal(bob.id, 'analyst'), 'alarm:fired', { ...fired, alarmId: String(alarm.alarmId) })).toBe(false)
    expect(gate.mayReceive(principal(9999, 'officer'), 'alarm:fired', fired)).toBe(true)
    const r = evaluateDueAlarms(store.db, at(6), SecureRandom.create())
    expect(r.evaluated).toEqual([])
    expect(r.paused[0].reason).toMatch(/your allotment/)
    expect(charges(alarm.alarmId)).toBe(0)
    const denied = store.db.prepare(`SELECT detail FROM audit_events WHERE kind = 'release/denied'`).all() as Array<{ detail: string }>
    expect(denied.some((d) => JSON.parse(d.detail).account?.id === ann.id)).toBe(true)
  })
})
