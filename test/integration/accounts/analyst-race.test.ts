/**
 * Per-analyst budgets as an attack: two analysts race 40 releases each, all 80 in flight at once, against a real TLS
 * service on loopback (certificates made here), through the Node client the CLI and the desktop app use. Each has an
 * allotment of the dataset's budget, and the two allotments add up to it:
 * - neither analyst's own releases spend more than their own allotment, and each allotment is used up (no release was
 *   denied while it had room);
 * - the dataset's spend (everyone's releases) never goes over the dataset's budget;
 * - every release is answered: a release, or a denial with one sentence naming the budget that binds;
 * - every denial is recorded (an audit event naming the account), and the ledger's figures per analyst say the same.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ServiceClient } from '../../../src-main/client/service-client'
import type { CallOutcome, DatasetLedger, ReleaseRecord } from '../../../src-main/contract'
import { startHeadless, type HeadlessServer } from '../../../src-main/door/headless'
import { addAccount } from '../../../src-main/services/accounts/account-store'
import { setBudget } from '../../../src-main/services/ledger/budgets'
import { runCli } from '../cli-runner'
import { officerAct } from '../officer-fixture'
import { sixRoomVisits } from '../privacy/six-rooms-fixture'
import { tempWorkspace } from '../helpers'
import { type TestPki, makeTestPki } from '../../support/tls'

const RACERS = 40
const DATASET_BUDGET = 40
const OWN_BUDGET = 20

let ws: ReturnType<typeof tempWorkspace>
let pki: TestPki
let h: HeadlessServer

beforeAll(async () => {
  ws = tempWorkspace('qa-race-')
  pki = makeTestPki()
  h = await startHeadless({
    dbPath: ws.db,
    poolSize: 1,
    deployment: 'service',
    cadenceMs: 50,
    listen: { host: '127.0.0.1', port: 0 },
    tls: { cert: pki.cert, key: pki.key }
  })
}, 60_000)
afterAll(async () => {
  await h?.close()
  ws?.cleanup()
  pki?.cleanup()
})

const tslm = { kind: 'threshold' as const, mechanism: 'tslm' as const, beta: 0.1, alpha: 2 }

describe('two analysts racing their own budgets over TLS', () => {
  it('keeps each within their own budget and the total within the dataset, answers and records every denial', async () => {
    const db = h.services.context.store.db
    const { id: datasetId, queryId } = sixRoomVisits(db)
    setBudget(db, { datasetId, epsilon: String(DATASET_BUDGET), reason: 'the review', ...officerAct(db) })
    const accounts = ['ana', 'bob'].map((name) => addAccount(db, { name, role: 'analyst', days: 2 }, officerAct(db)))
    // The officer account sets each analyst's own budget over TLS with the CLI (`budget --server ... --analyst NAME`).
    const officer = addAccount(db, { name: 'olga', role: 'officer', days: 2 }, officerAct(db))
    writeFileSync(join(ws.dir, 'olga.cred'), officer.credential, { mode: 0o600 })
    const budget = (...more: string[]) =>
      runCli(
        [
          'budget',
          '--server',
          h.url,
          '--credential-file',
          join(ws.dir, 'olga.cred'),
          '--ca-file',
          pki.caCertPath,
          '--dataset',
          'visits',
          ...more,
          '--json'
        ],
        { env: { QUIET_ALARM_PASSPHRASE: officerAct(db).passphrase } }
      )
    for (const a of accounts) {
      const r = await budget('--epsilon', String(OWN_BUDGET), '--reason', `${a.account.name}'s share`, '--analyst', a.account.name)
      expect(r.err).toBe('')
      expect(r.code).toBe(0)
      expect(JSON.parse(r.out)).toMatchObject({
        entry: { kind: 'budget', analyst: { id: a.account.id, name: a.account.name }, epsilonExact: String(OWN_BUDGET) }
      })
    }
    // A budget may name an analyst account only: one line, exit 2, nothing written.
    const refused = await budget('--epsilon', '100', '--reason', 'for the officer', '--analyst', 'olga')
    expect([refused.code, refused.err.trim()]).toEqual([
      2,
      'quiet-alarm: --analyst: "olga" is an officer account; a budget may name an analyst account only'
    ])
    const clients = accounts.map((a) => new ServiceClient({ url: h.url, credential: a.credential, ca: pki.ca }))

    const answers: Array<{ who: string; out: CallOutcome<unknown> }> = []
    await Promise.all(
      clients.flatMap((c, i) =>
        Array.from({ length: RACERS }, () =>
          c.call('releases/run', { queryId, params: tslm }).then((out) => answers.push({ who: accounts[i].account.name, out }))
        )
      )
    )

    // Every release answered: a release, or a denial naming the budget that binds.
    expect(answers).toHaveLength(2 * RACERS)
    const released = answers.filter((a) => a.out.ok)
    const denied = answers.filter((a) => !a.out.ok)
    for (const d of denied) {
      expect(d.out).toMatchObject({ ok: false, error: { code: 'denied' } })
      const message = (d.out as { error: { message: string } }).error.message
      expect(message.split('\n')).toHaveLength(1)
      expect(message).toMatch(/of your allotment on dataset "visits" remains/)
    }
    expect(released.length).toBeGreaterThan(0)
    expect(released.every((r) => (r.out as { value: ReleaseRecord }).value.status === 'answered')).toBe(true)

    // The figures, as the officer reads them over TLS.
    const olga = new ServiceClient({ url: h.url, credential: officer.credential, ca: pki.ca })
    const summary = await olga.call('ledger/summary', { datasetId })
    expect(summary.ok).toBe(true)
    const ledger = (summary as { value: { datasets: DatasetLedger[] } }).value.datasets[0]
    const spentTotal = Number(ledger.spentPerUnitExact)
    // Every release of the question costs a unit the same (person P is in all six rooms): the per-unit cost of one.
    const cost = spentTotal / released.length
    // Never over the dataset's budget, and each allotment used up: one more release would not have fit in either.
    expect(spentTotal).toBeLessThanOrEqual(DATASET_BUDGET)
    expect(ledger.byAnalyst.map((a) => a.name)).toEqual(['ana', 'bob'])
    for (const a of ledger.byAnalyst) {
      expect(Number(a.spentPerUnitExact)).toBeLessThanOrEqual(OWN_BUDGET)
      expect(Number(a.spentPerUnitExact) + cost).toBeGreaterThan(OWN_BUDGET)
      expect(a.budgetPerUnitExact).toBe(String(OWN_BUDGET))
      expect(a.releases).toBe(released.filter((r) => r.who === a.name).length)
    }
    // The dataset's spend is the analysts' own spends together (every charge is one of theirs).
    expect(ledger.byAnalyst.reduce((s, a) => s + Number(a.spentPerUnitExact), 0)).toBeCloseTo(spentTotal, 6)

    // Every denial recorded, naming the account that asked.
    const recorded = db.prepare(`SELECT detail FROM audit_events WHERE kind = 'release/denied' ORDER BY id`).all() as Array<{ detail: string }>
    expect(recorded).toHaveLength(denied.length)
    const byAccount = (name: string) =>
      recorded.filter((r) => (JSON.parse(r.detail) as { account?: { name?: string } }).account?.name === name).length
    for (const name of ['ana', 'bob']) expect(byAccount(name)).toBe(denied.filter((d) => d.who === name).length)
  }, 240_000)
})
