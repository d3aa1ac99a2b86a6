/**
 * Where alarms run (services/watch/alarm-clock.ts): the service process evaluates due periods on its own clock, with no
 * analyst connected and no call made, in a worker thread of its own (alarm-runner.ts), forwards the public events and
 * delivers the fire to a webhook (an HTTPS receiver on loopback). Each test is the failure it stops:
 * - an alarm that only runs when someone asks (`run-due` by hand): here nothing is called after the alarm is signed;
 * - a period evaluated twice by the clock and a `run-due` beside it;
 * - a clock left running after the services close (it would evaluate and charge with nobody watching the process).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Server, createServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { createServices, type Services } from '../../../src-main/services'
import { createAlarm } from '../../../src-main/services/alarms/create'
import { evaluateDueAlarms } from '../../../src-main/services/alarms/evaluate'
import { recordPrivacyUnit } from '../../../src-main/services/catalog/unit-record'
import { setBudget } from '../../../src-main/services/ledger/budgets'
import { addWebhook } from '../../../src-main/services/webhooks/webhook-store'
import { httpsSender } from '../../../src-main/services/webhooks/delivery'
import { SecureRandom } from '../../../src-worker/engine/random'
import type { CreateAlarmRequest } from '../../../src-main/contract/alarms'
import { craftDataset, saveQuery } from '../ledger/fixtures'
import { officerAct } from '../officer-fixture'
import { tempWorkspace, waitFor } from '../helpers'
import { type TestPki, makeTestPki } from '../../support/tls'

const HOUR = 3_600_000

let pki: TestPki
let server: Server
const bodies: string[] = []

beforeAll(async () => {
  pki = makeTestPki(['127.0.0.1'])
  server = createServer({ key: pki.key, cert: pki.cert }, (req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'))
      res.end()
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
})
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()))
  pki.cleanup()
})

/**
 * Three closed hours before now, rooms R1..R3, 5 visits per room and hour except 400 in R2 during the second hour (a
 * threshold of 200 with alpha 50: a miss or a false fire below 1e-5 per cell). Person-level, each visit its own person.
 */
function watchedStream(s: Services): { alarmId: number; start: number } {
  const db = s.context.store.db
  const start = Math.floor(Date.now() / HOUR) * HOUR - 3 * HOUR
  const rows: Array<Array<string | number>> = []
  let p = 0
  for (let h = 0; h < 3; h++)
    for (const room of ['R1', 'R2', 'R3']) {
      const n = h === 1 && room === 'R2' ? 400 : 5
      for (let i = 0; i < n; i++) rows.push([room, start + h * HOUR + HOUR / 2, `p${p++}`])
    }
  const datasetId = craftDataset(
    db,
    'visits',
    [
      { name: 'room', type: 'text' },
      { name: 'at', type: 'timestamp' },
      { name: 'person', type: 'text' }
    ],
    rows
  )
  db.transaction(() => recordPrivacyUnit(db, datasetId, 'person'))()
  const queryId = saveQuery(db, datasetId, 'rooms over capacity', {
    kind: 'threshold',
    groupBy: ['room'],
    groups: [['R1'], ['R2'], ['R3']],
    count: { kind: 'persons', personColumn: 'person', cap: 1 },
    threshold: { kind: 'constant', value: 200 }
  })
  setBudget(db, { datasetId, epsilon: '100', reason: 'alarm clock test', ...officerAct(db) })
  const req = {
    queryId,
    timeColumn: 'at',
    period: 'hour',
    start: new Date(start).toISOString(),
    mode: 'when-fires',
    beta: 0.05,
    alpha: 50,
    fires: 3,
    reason: 'rooms over capacity, every hour',
    ...officerAct(db)
  } as CreateAlarmRequest
  return { alarmId: createAlarm(db, req).alarmId, start }
}

describe('the alarm clock', () => {
  it('evaluates due periods on its own in the service, sends the public events and delivers the fire, each period once', async () => {
    const ws = tempWorkspace('qa-alarm-clock-')
    const s = createServices({
      mode: 'headless',
      deployment: 'service',
      dbPath: ws.db,
      poolSize: 1,
      watch: { deliver: { send: httpsSender({ ca: pki.ca }) }, checkMs: 300, log: () => undefined }
    })
    const events: Array<{ name: string; payload: unknown }> = []
    s.events.on((name, payload) => events.push({ name, payload }))
    try {
      const db = s.context.store.db
      addWebhook(db, {
        url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
        createdBy: 'custodian',
        now: new Date(Date.now() - 4 * HOUR)
      })
      const { alarmId } = watchedStream(s)
      // No call from here on: the clock finds the three closed periods at its next check.
      await waitFor(() => bodies.length >= 1, 'the webhook to receive the fire', 60_000)
      const periods = db.prepare('SELECT period, fired FROM alarm_periods WHERE alarm_id = ? ORDER BY period').all(alarmId)
      expect(periods).toEqual([
        { period: 0, fired: '[]' },
        { period: 1, fired: '[["R2"]]' },
        { period: 2, fired: '[]' }
      ])
      expect(JSON.parse(bodies[0])).toMatchObject({ event: 'alarm.fired', period: { index: 1 }, firedKeys: { keys: [['R2']] } })
      expect(events.filter((e) => e.name === 'alarm:evaluated').map((e) => (e.payload as { period: number }).period)).toEqual([0, 1, 2])
      expect(events.filter((e) => e.name === 'alarm:fired')).toHaveLength(1)
      // A run-due beside the clock, and the clock's next wake, find nothing to do: each period was evaluated once.
      expect(evaluateDueAlarms(db, new Date(), SecureRandom.create()).evaluated).toEqual([])
      const again = await s.alarmClock!.wake()
      expect(again.run).toBeNull()
      expect(again.delivery.attempted).toBe(0)
      expect(bodies).toHaveLength(1)
      expect((db.prepare('SELECT COUNT(*) AS n FROM alarm_periods').get() as { n: number }).n).toBe(3)
    } finally {
      await s.close()
      ws.cleanup()
    }
  })

  it('is off unless asked for, and stops with the services', async () => {
    const ws = tempWorkspace('qa-alarm-clock-off-')
    const off = createServices({ mode: 'headless', dbPath: ws.db, poolSize: 1 })
    expect(off.alarmClock).toBeNull()
    await off.close()
    const on = createServices({ mode: 'headless', dbPath: ws.db, poolSize: 1, watch: { checkMs: 100_000, log: () => undefined } })
    expect(on.alarmClock).not.toBeNull()
    const clock = on.alarmClock!
    await on.close()
    // A wake after close would read a closed connection: the clock refuses to run instead of evaluating.
    await expect(clock.wake()).rejects.toThrow()
    ws.cleanup()
  })
})
