/**
 * The attack: an analyst of the service reads her alarm's history and counts, from the gaps between her periods' release
 * ids (global counters), how many releases other analysts made in each hour. She must read the same ids whether another
 * analyst's alarm ran beside hers or not.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { createServices, type Services } from '../../../src-main/services'
import type { Principal } from '../../../src-main/contract/accounts'
import { addAccount } from '../../../src-main/services/accounts/account-store'
import { createAlarm } from '../../../src-main/services/alarms/create'
import { evaluateDueAlarms } from '../../../src-main/services/alarms/evaluate'
import { setBudget } from '../../../src-main/services/ledger/budgets'
import { SecureRandom } from '../../../src-worker/engine/random'
import { officerAct } from '../officer-fixture'
import { tempWorkspace } from '../helpers'
import { HOUR, START, plantStream } from './continual-fixture'

const opened: Array<{ s: Services; ws: ReturnType<typeof tempWorkspace> }> = []
afterEach(async () => {
  for (const { s, ws } of opened.splice(0)) {
    await s.close()
    ws.cleanup()
  }
})

/** Ann's alarm (and, when `withBob`, bob's beside it) over 4 hours; what ann reads of her alarm's ids. */
async function annReads(withBob: boolean): Promise<unknown> {
  const ws = tempWorkspace()
  const s = createServices({ mode: 'headless', deployment: 'service', dbPath: ws.db, poolSize: 1 })
  opened.push({ s, ws })
  const db = s.context.store.db
  const stream = plantStream(db, { hours: 4, rooms: 2, quiet: 1, high: 40, threshold: 20, over: () => false, budget: '100' })
  const principal = (name: string): { id: number; principal: Principal } => {
    const { account, credential } = addAccount(db, { name, role: 'analyst', days: 30 }, officerAct(db))
    const auth = s.accounts.authenticate(credential, '10.0.0.1')
    if (!auth.ok) throw new Error(auth.error.message)
    return { id: account.id, principal: auth.principal }
  }
  const ann = principal('ann')
  const bob = principal('bob')
  for (const a of [ann, bob]) setBudget(db, { datasetId: stream.datasetId, epsilon: '10', analyst: a.id, reason: 'allotment', ...officerAct(db) })
  const alarm = (analyst: number) =>
    createAlarm(db, {
      queryId: stream.queryId,
      timeColumn: 'at',
      period: 'hour',
      start: new Date(START).toISOString(),
      beta: 0.05,
      alpha: 10,
      reason: 'watch the rooms every hour',
      analyst,
      ...officerAct(db)
    })
  const annAlarm = alarm(ann.id)
  if (withBob) alarm(bob.id)
  for (let h = 1; h <= 4; h++) evaluateDueAlarms(db, new Date(START + h * HOUR), SecureRandom.create())
  const history = await s.call('alarms/history', { alarmId: annAlarm.alarmId }, ann.principal)
  const view = await s.call('alarms/get', { alarmId: annAlarm.alarmId }, ann.principal)
  const listed = await s.call('alarms/list', {}, ann.principal)
  expect(history.periods).toHaveLength(4)
  return {
    releases: history.periods.map((p) => p.releaseId),
    seq: [history.alarm.ledgerSeq, view.ledgerSeq, ...listed.map((v) => v.ledgerSeq)]
  }
}

describe("an analyst's alarm ids", () => {
  it("are the same whether or not another analyst's alarm ran beside hers", async () => {
    const alone = await annReads(false)
    expect(await annReads(true)).toEqual(alone)
  })
})
