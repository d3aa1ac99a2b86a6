import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import Database from 'better-sqlite3'
import { openStore, type Store } from '../../../src-main/services/store/store'
import { ledgerHandlers } from '../../../src-main/services/releases/ledger-handlers'
import { appendEntry } from '../../../src-main/services/chain/ledger-chain'
import { admission } from '../../../src-main/services/ledger/admission'
import { cellKey } from '../../../src-main/services/ledger/cells'
import { ledgerSummary } from '../../../src-main/services/ledger/ledger-views'
import { verifyLedger } from '../../../src-main/services/ledger/verify'
import { deleteDataset, lookupDataset, resolveDataset } from '../../../src-main/services/catalog/catalog'
import { setBudget } from '../../../src-main/services/ledger/budgets'
import { findDataset } from '../../../src-main/services/reports/report-data'
import { tempWorkspace } from '../helpers'
import { craftDataset, saveQuery, closeLedgerWorkspace, inlineContext, openLedgerWorkspace } from './fixtures'
import { officerAct } from '../officer-fixture'
import { runCli } from '../cli-runner'

let ws: ReturnType<typeof tempWorkspace>
let store: Store
let h: ReturnType<typeof ledgerHandlers>

const cli = (args: string[]) => runCli(args, { cwd: ws.dir })

/** A dataset with a categorical and a numeric column, and an anomaly identification query asking about one record. */
function aiqSetup(name = 'rooms') {
  const rows: Array<[string, number]> = []
  for (let i = 0; i < 40; i++) rows.push(['A', i % 10])
  rows.push(['Z', 99])
  const id = craftDataset(
    store.db,
    name,
    [
      { name: 'building', type: 'text' },
      { name: 'hour', type: 'integer' }
    ],
    rows
  )
  const q = saveQuery(store.db, id, 'odd one', {
    kind: 'anomaly-identification',
    columns: ['building', 'hour'],
    binWidths: [null, 1],
    metric: 'l1',
    radius: 1,
    maxNeighbours: 2,
    k: 1,
    records: [['Z', 99]]
  })
  return { datasetId: id, queryId: q }
}

function audit(kind: string) {
  return store.db.prepare('SELECT * FROM audit_events WHERE kind = ? ORDER BY id').all(kind) as Array<{
    actor: string
    subject: string
    detail: string
  }>
}

beforeEach(() => {
  ;({ ws, store, h } = openLedgerWorkspace('qa-ledger-'))
})
afterEach(() => closeLedgerWorkspace(store, ws))

describe('ledger storage', () => {
  it('refuses UPDATE and DELETE of entries and cell charges', async () => {
    const { datasetId } = aiqSetup()
    await h['budgets/set']({ datasetId, epsilon: 1, reason: 'initial budget', ...officerAct(store.db, 'olga') })
    expect(() => store.db.prepare('UPDATE ledger_entries SET amount_nano = 0').run()).toThrow(/append-only/)
    expect(() => store.db.prepare('DELETE FROM ledger_entries').run()).toThrow(/append-only/)
    store.db.transaction(() =>
      appendEntry(store.db, {
        kind: 'charge',
        datasetId,
        datasetName: 'rooms',
        notion: 'eps-dp',
        amountNano: 5,
        cells: ['{}'],
        releaseId: null,
        actor: 't',
        description: 'x',
        detail: {}
      })
    )()
    expect(() => store.db.prepare('DELETE FROM ledger_cell_charges').run()).toThrow(/append-only/)
    expect(verifyLedger(store.db).ok).toBe(true)
  })

  it('budgets need a reason and an officer, and are ledger entries and audit events', async () => {
    const { datasetId } = aiqSetup()
    await expect(h['budgets/set']({ datasetId, epsilon: 1, reason: '', ...officerAct(store.db, 'olga') })).rejects.toThrow(/needs a reason/)
    await expect(h['budgets/set']({ datasetId, epsilon: 1, reason: 'ok reason', officer: 'olga' })).rejects.toThrow(
      /needs the passphrase of officer "olga"; nothing was written/
    )
    await expect(h['budgets/set']({ datasetId: 999, epsilon: 1, reason: 'ok reason', ...officerAct(store.db, 'olga') })).rejects.toThrow(
      /no dataset with id 999/
    )
    const r = await h['budgets/set']({ datasetId, epsilon: '2.5', notion: 'eps-dp', reason: 'quarterly review', ...officerAct(store.db, 'olga') })
    expect(r.entry.kind).toBe('budget')
    expect(r.entry.epsilonExact).toBe('2.5')
    expect(r.account.accounts.find((a) => a.notion === 'eps-dp')!.budgetExact).toBe('2.5')
    expect(r.account.accounts.find((a) => a.notion === 'predicate-wise-dp')!.budget).toBeNull()
    expect(r.account.budgetChanges[0]).toMatchObject({ reason: 'quarterly review', actor: 'olga' })
    const ev = audit('budget/set')
    expect(ev).toHaveLength(1)
    expect(JSON.parse(ev[0].detail)).toMatchObject({ reason: 'quarterly review', epsilon: '2.5', notion: 'eps-dp' })
  })
})

describe('admission and exact arithmetic', () => {
  it('ten charges of 0.1 fit a budget of 1.0 exactly; the eleventh is denied, spends nothing, and is audited', async () => {
    const { datasetId, queryId } = aiqSetup()
    await h['budgets/set']({ datasetId, epsilon: '1.0', reason: 'exactly one', ...officerAct(store.db, 'olga') })
    const req = { queryId, params: { kind: 'anomaly-identification' as const, mechanism: 'dp' as const, epsilon: 0.1 } }
    for (let i = 0; i < 10; i++) {
      const r = await h['releases/run'](req)
      expect(r.status).toBe('answered')
      expect(r.epsilonExact).toBe('0.1')
    }
    const before = ledgerSummary(store.db, { datasetId })
    expect(before.datasets[0].accounts.find((a) => a.notion === 'eps-dp')!.spentExact).toBe('1')
    const entriesBefore = (store.db.prepare('SELECT count(*) n FROM ledger_entries').get() as { n: number }).n
    const preview = await h['releases/preview'](req)
    expect(preview.allowed).toBe(false)
    await expect(h['releases/run'](req)).rejects.toThrow(
      /requests epsilon 0\.1 .*only 0 of the 1 budget .*remains.*difference is 0\.1.*Nothing was spent/
    )
    expect((store.db.prepare('SELECT count(*) n FROM ledger_entries').get() as { n: number }).n).toBe(entriesBefore)
    expect((store.db.prepare('SELECT count(*) n FROM releases').get() as { n: number }).n).toBe(10)
    const denied = audit('release/denied')
    expect(denied).toHaveLength(1)
    expect(JSON.parse(denied[0].detail)).toMatchObject({ requested: '0.1', remaining: '0', difference: '0.1', notion: 'eps-dp' })
    expect(verifyLedger(store.db).ok).toBe(true)
  })

  it('denies a notion without a budget, and keeps notions apart', async () => {
    const { datasetId, queryId } = aiqSetup()
    await h['budgets/set']({ datasetId, epsilon: '3', notion: 'eps-dp', reason: 'dp only', ...officerAct(store.db, 'olga') })
    await expect(h['releases/run']({ queryId, params: { kind: 'anomaly-identification', mechanism: 'sp', epsilon: 0.5 } })).rejects.toThrow(
      /no \(eps,k\)-sensitive privacy budget/
    )
    await h['releases/run']({ queryId, params: { kind: 'anomaly-identification', mechanism: 'dp', epsilon: 0.5 } })
    const accounts = ledgerSummary(store.db, { datasetId }).datasets[0].accounts
    expect(accounts.find((a) => a.notion === 'eps-dp')!.spentExact).toBe('0.5')
    expect(accounts.find((a) => a.notion === 'eps-k-sensitive')!.spentExact).toBe('0')
  })

  it('predicate-wise: disjoint predicates cost the max, overlapping ones the sum on the shared cells', () => {
    const { datasetId } = aiqSetup()
    const cell = (b: string, r: string) => cellKey({ building: b, room: r })
    const charge = (cells: string[], nano: number) =>
      store.db.transaction(() =>
        appendEntry(store.db, {
          kind: 'charge',
          datasetId,
          datasetName: 'rooms',
          notion: 'predicate-wise-dp',
          amountNano: nano,
          cells,
          releaseId: null,
          actor: 't',
          description: 'x',
          detail: {}
        })
      )()
    const spent = () => ledgerSummary(store.db, { datasetId }).datasets[0].accounts.find((a) => a.notion === 'predicate-wise-dp')!.spent
    charge([cell('A', '1'), cell('A', '2')], 1_000_000_000)
    charge([cell('B', '1'), cell('B', '2')], 700_000_000)
    expect(spent()).toBe(1) // max(1, 0.7), not 1.7
    charge([cell('A', '2'), cell('B', '1')], 500_000_000)
    expect(spent()).toBe(1.5) // A/2: 1 + 0.5
    // Admission sees the same arithmetic: 0.4 more on B/2 reaches 1.1 there, under the max of 1.5.
    const adm = admission(store.db, datasetId, 'rooms', 'predicate-wise-dp', [cell('B', '2')], 400_000_000)
    expect(adm.spentAfterNano).toBe(1_500_000_000)
    // A whole-dataset charge applies to every cell.
    charge(['{}'], 200_000_000)
    expect(spent()).toBe(1.7)
    expect(verifyLedger(store.db).ok).toBe(true)
  })
})

describe("ledger verify detects tampering behind the app's back", () => {
  async function threeEntries() {
    const { datasetId, queryId } = aiqSetup()
    await h['budgets/set']({ datasetId, epsilon: '5', reason: 'initial budget', ...officerAct(store.db, 'olga') })
    await h['releases/run']({ queryId, params: { kind: 'anomaly-identification', mechanism: 'dp', epsilon: 0.25 } })
    await h['releases/run']({ queryId, params: { kind: 'anomaly-identification', mechanism: 'dp', epsilon: 0.5 } })
    await h['releases/run']({ queryId, params: { kind: 'anomaly-identification', mechanism: 'dp', epsilon: 0.75 } })
    store.close()
    const ok = await cli(['ledger', 'verify', '--db', ws.db])
    expect(ok.code).toBe(0)
    expect(ok.out).toMatch(/Ledger verified: 4 entries/)
    return new Database(ws.db)
  }

  it('an edited amount', async () => {
    const raw = await threeEntries()
    raw.exec('DROP TRIGGER ledger_entries_no_update')
    raw.prepare('UPDATE ledger_entries SET amount_nano = 1 WHERE seq = 3').run()
    raw.close()
    const r = await cli(['ledger', 'verify', '--db', ws.db])
    expect(r.code).toBe(3)
    expect(r.err).toMatch(/verification FAILED at entry 3: entry 3 was changed after it was written/)
    expect(r.err.trimEnd().split('\n')).toHaveLength(1)
    expect(r.out).toMatch(/verification FAILED at entry 3/)
  })

  it('a deleted entry in the middle, and a cut tail', async () => {
    const raw = await threeEntries()
    raw.exec('DROP TRIGGER ledger_entries_no_delete; DROP TRIGGER ledger_cell_charges_no_delete')
    raw.prepare('DELETE FROM ledger_entries WHERE seq = 2').run()
    raw.close()
    const r = await cli(['ledger', 'verify', '--db', ws.db])
    expect(r.code).toBe(3)
    expect(r.err).toMatch(/FAILED at entry 2: entry 2 is missing/)

    const raw2 = new Database(ws.db)
    raw2.exec('DELETE FROM ledger_entries; DELETE FROM ledger_cell_charges')
    raw2.close()
    const r2 = await cli(['ledger', 'verify', '--db', ws.db])
    expect(r2.code).toBe(3)
    expect(r2.err).toMatch(/FAILED at entry 1: entries 1\.\.4 are missing/)
  })

  it('the last entry deleted together with its cell charges (head record left)', async () => {
    const raw = await threeEntries()
    raw.exec('DROP TRIGGER ledger_entries_no_delete; DROP TRIGGER ledger_cell_charges_no_delete')
    raw.prepare('DELETE FROM ledger_cell_charges WHERE entry_seq = 4').run()
    raw.prepare('DELETE FROM ledger_entries WHERE seq = 4').run()
    raw.close()
    const r = await cli(['ledger', 'verify', '--db', ws.db])
    expect(r.code).toBe(3)
    expect(r.err).toMatch(/FAILED at entry 4: entries 4\.\.4 are missing \(the ledger was cut short\)/)
  })

  it('reordered entries', async () => {
    const raw = await threeEntries()
    raw.exec('DROP TRIGGER ledger_entries_no_update')
    raw.exec(
      'UPDATE ledger_entries SET seq = -2 WHERE seq = 2; UPDATE ledger_entries SET seq = 2 WHERE seq = 3; UPDATE ledger_entries SET seq = 3 WHERE seq = -2'
    )
    raw.close()
    const r = await cli(['ledger', 'verify', '--db', ws.db])
    expect(r.code).toBe(3)
    expect(r.err).toMatch(/FAILED at entry 2/)
  })

  it('a chain rewritten consistently is caught by the head hash kept elsewhere', async () => {
    const raw = await threeEntries()
    const head = (raw.prepare('SELECT hash FROM ledger_head').get() as { hash: string }).hash
    // Rewrite: drop everything and rebuild a shorter, self-consistent chain.
    raw.exec(
      'DROP TRIGGER ledger_entries_no_delete; DROP TRIGGER ledger_cell_charges_no_delete; DROP TRIGGER releases_no_delete; DROP TRIGGER ledger_head_no_delete; DROP TRIGGER release_ex_post_no_delete;' +
        'DELETE FROM ledger_cell_charges; DELETE FROM ledger_entries; DELETE FROM ledger_head; DELETE FROM release_ex_post; DELETE FROM releases'
    )
    raw.close()
    store = openStore(ws.db)
    h = ledgerHandlers(inlineContext(store))
    // The officer is not made to sign over it: the act is refused, nothing written.
    await expect(h['budgets/set']({ datasetId: 1, epsilon: '5', reason: 'initial budget', ...officerAct(store.db, 'olga') })).rejects.toThrow(
      /^No officer act is recorded while the workspace's ledger does not verify/
    )
    expect(store.db.prepare('SELECT count(*) FROM ledger_entries').pluck().get()).toBe(0)
    // The file writer's own first entry, chained as the app chains.
    const name = (store.db.prepare('SELECT name FROM datasets WHERE id = 1').get() as { name: string }).name
    store.db.transaction(() =>
      appendEntry(store.db, {
        kind: 'budget',
        datasetId: 1,
        datasetName: name,
        notion: null,
        amountNano: 5e9,
        cells: [],
        releaseId: null,
        actor: 'olga',
        description: 'initial budget',
        detail: {}
      })
    )()
    store.close()
    // The officer's signed checkpoint (written with the first budget) no longer matches: caught without --head.
    const alone = await cli(['ledger', 'verify', '--db', ws.db])
    expect(alone.code).toBe(3)
    expect(alone.err).toMatch(/^quiet-alarm: Ledger verification FAILED at entry 1: /)
    const r = await cli(['ledger', 'verify', '--db', ws.db, '--head', head])
    expect(r.code).toBe(3)
    expect(r.err).toMatch(/FAILED at entry 1: .* The head [0-9a-f]{16}… is not in this ledger/)
  })

  it('a mistyped --head is reported as a head not in this ledger, not as a rewrite', async () => {
    const raw = await threeEntries()
    const head = (raw.prepare('SELECT hash FROM ledger_head').get() as { hash: string }).hash
    raw.close()
    const typo = head.slice(0, 15) + (head[15] === '0' ? '1' : '0')
    const r = await cli(['ledger', 'verify', '--db', ws.db, '--head', typo])
    expect(r.code).toBe(3)
    expect(r.err).not.toMatch(/FAILED|rewritten after/)
    expect(r.err).toMatch(/^quiet-alarm: The head [0-9a-f]{16}… is not in this ledger: check that you copied it/)
    expect(r.out).toContain(`This ledger's head now: ${head}`)
    const ok = await cli(['ledger', 'verify', '--db', ws.db, '--head', head.slice(0, 16)])
    expect(ok.code).toBe(0)
  })
})

/**
 * Datasets named by id or name on the command line and in reports: one resolver (catalog `lookupDataset`), which finds
 * current datasets and, where a history is shown, deleted ones the ledger still records.
 */
describe('dataset by id or name', () => {
  it('finds current datasets by name or id, deleted ones only where the ledger history is asked for', async () => {
    const kept = craftDataset(store.db, 'kept', [{ name: 'v', type: 'integer' }], [[1]])
    const gone = craftDataset(store.db, 'gone', [{ name: 'v', type: 'integer' }], [[1]])
    setBudget(store.db, { datasetId: gone, epsilon: '7', reason: 'before deletion', ...officerAct(store.db, 'olga') })
    deleteDataset(store.db, gone)

    expect(lookupDataset(store.db, 'kept')).toEqual({ id: kept, name: 'kept', deleted: false })
    expect(lookupDataset(store.db, String(kept))).toEqual({ id: kept, name: 'kept', deleted: false })
    expect(lookupDataset(store.db, kept)).toEqual({ id: kept, name: 'kept', deleted: false })
    expect(lookupDataset(store.db, 'gone')).toBeUndefined()
    expect(lookupDataset(store.db, 'gone', { includeDeleted: true })).toEqual({ id: gone, name: 'gone', deleted: true })
    expect(lookupDataset(store.db, gone, { includeDeleted: true })).toEqual({ id: gone, name: 'gone', deleted: true })
    expect(lookupDataset(store.db, 'never', { includeDeleted: true })).toBeUndefined()

    // Each caller keeps its own one-sentence message.
    expect(() => resolveDataset(store.db, 'gone')).toThrow(/^There is no dataset named "gone"; run "datasets list" to see them$/)
    expect(() => resolveDataset(store.db, String(gone))).toThrow(/^There is no dataset \d+ \(it may have been deleted\)$/)
    expect(findDataset(store.db, 'gone')).toEqual({ id: gone, name: 'gone' })
    expect(() => findDataset(store.db, 'never')).toThrow(/^There is no dataset "never" in this workspace; list them with "quiet-alarm datasets"$/)
    store.close()

    // The ledger command shows a deleted dataset's history by name or id; an unknown one is one clear line, exit 2.
    for (const ref of ['gone', String(gone)]) {
      const r = await cli(['ledger', '--db', ws.db, '--dataset', ref, '--json'])
      expect(r.code, r.err).toBe(0)
      const json = JSON.parse(r.out) as { entries: Array<{ datasetId: number }>; total: number }
      expect(json.total).toBe(1)
      expect(json.entries.map((e) => e.datasetId)).toEqual([gone])
    }
    const unknown = await cli(['ledger', '--db', ws.db, '--dataset', 'never'])
    expect(unknown.code).toBe(2)
    expect(unknown.err.trim().split('\n')).toHaveLength(1)
    expect(unknown.err).toMatch(/no dataset "never" in this workspace or its ledger/)
    // Setting a budget needs a current dataset.
    const budget = await cli(['budget', '--db', ws.db, '--dataset', 'gone', '--epsilon', '1', '--reason', 'r'])
    expect(budget.code).toBe(2)
    expect(budget.err).toMatch(/There is no dataset named "gone"/)
  })
})
