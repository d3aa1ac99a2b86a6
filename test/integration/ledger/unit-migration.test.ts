/**
 * Migration 006 (privacy units) on a workspace written before it: datasets become row-level, the ledger's entries are
 * kept unchanged (the chain still verifies) and marked as row-level accounting, and new entries are not marked.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { type Store, openStore } from '../../../src-main/services/store/store'
import { migrations } from '../../../src-main/services/store/migrations'
import { appendEntry } from '../../../src-main/services/chain/ledger-chain'
import { setBudget } from '../../../src-main/services/ledger/budgets'
import { cellKey } from '../../../src-main/services/ledger/cells'
import { ledgerSummary, listEntries } from '../../../src-main/services/ledger/ledger-views'
import { verifyLedger } from '../../../src-main/services/ledger/verify'
import { datasetUnit, isPerPersonColumn } from '../../../src-main/services/trust/privacy-unit'
import { getDataset } from '../../../src-main/services/catalog/catalog'
import { tempWorkspace } from '../helpers'
import { craftDataset } from './fixtures'
import { officerAct } from '../officer-fixture'
import { runCli } from '../cli-runner'

let ws: ReturnType<typeof tempWorkspace> | null = null
afterEach(() => ws?.cleanup())

const cli = (...args: string[]) => runCli(args, { cwd: ws!.dir })

/** A workspace as the app wrote it before privacy units (schema 4): a dataset, budgets and three charges. */
function oldWorkspace(): { path: string; datasetId: number; hashes: string[] } {
  ws = tempWorkspace('qa-unit-migration-')
  const old: Store = openStore(ws.db, { migrations: migrations.filter((m) => m.version <= 4) })
  expect(old.schemaVersion()).toBe(4)
  const id = craftDataset(
    old.db,
    'visits',
    [
      { name: 'person', type: 'text' },
      { name: 'room', type: 'text' }
    ],
    [
      ['p1', 'R1'],
      ['p1', 'R2'],
      ['p2', 'R1']
    ]
  )
  // A budget as it was written before officer keys (migration 007): unsigned, straight into the old schema.
  old.db.transaction(() =>
    appendEntry(old.db, {
      kind: 'budget',
      datasetId: id,
      datasetName: 'visits',
      notion: null,
      amountNano: 5e9,
      cells: [],
      releaseId: null,
      actor: 'olga',
      description: 'every notion, old style',
      detail: { scope: 'per unit, summed over notions' }
    })
  )()
  const charge = (notion: 'predicate-wise-dp' | 'eps-dp', cells: string[], nano: number) =>
    old.db.transaction(() =>
      appendEntry(old.db, {
        kind: 'charge',
        datasetId: id,
        datasetName: 'visits',
        notion,
        amountNano: nano,
        cells,
        releaseId: null,
        actor: 'a',
        description: 'old charge',
        detail: {}
      })
    )()
  charge('predicate-wise-dp', [cellKey({ room: 'R1' })], 1e9)
  charge('predicate-wise-dp', [cellKey({ room: 'R2' })], 2e9)
  charge('eps-dp', ['{}'], 0.5e9)
  const hashes = (old.db.prepare('SELECT hash FROM ledger_entries ORDER BY seq').all() as Array<{ hash: string }>).map((r) => r.hash)
  old.close()
  return { path: ws.db, datasetId: id, hashes }
}

describe('migration 006: privacy units on an old workspace', () => {
  it('opens; datasets are row-level; old entries are kept unchanged and marked; new ones are not', () => {
    const { path, datasetId, hashes } = oldWorkspace()
    const s = openStore(path)
    try {
      expect(s.schemaVersion()).toBe(migrations[migrations.length - 1].version)
      expect(datasetUnit(s.db, datasetId)).toEqual({ kind: 'row' })
      expect(getDataset(s.db, datasetId).info.unit).toEqual({ kind: 'row' })
      expect(isPerPersonColumn(s.db, datasetId, 'room')).toBe(true)
      // Entries kept as written: same hashes, chain verifies.
      expect((s.db.prepare('SELECT hash FROM ledger_entries ORDER BY seq').all() as Array<{ hash: string }>).map((r) => r.hash)).toEqual(hashes)
      expect(verifyLedger(s.db).ok).toBe(true)
      const before = listEntries(s.db, {})
      expect(before.entries).toHaveLength(4)
      expect(before.entries.every((e) => e.rowLevelAccounting === true)).toBe(true)
      const d = ledgerSummary(s.db, { datasetId }).datasets[0]
      expect(d).toMatchObject({ unit: 'row', unitKind: 'row', rowLevelEntries: 4 })
      // Row-level accounting of the old charges: the two rooms are disjoint cells (max 2), plus eps-DP 0.5.
      expect(d.spentPerUnitExact).toBe('2.5')
      // The old "every notion" budget is now the budget per row.
      expect(d).toMatchObject({ budgetPerUnit: 5, budgetPerUnitSource: 'per-unit', remainingPerUnitExact: '2.5' })
      s.db.transaction(() =>
        appendEntry(s.db, {
          kind: 'charge',
          datasetId,
          datasetName: 'visits',
          notion: 'eps-dp',
          amountNano: 1e9,
          cells: ['{}'],
          releaseId: null,
          actor: 'a',
          description: 'new charge',
          detail: {}
        })
      )()
      const after = listEntries(s.db, {})
      expect(after.entries[0]).toMatchObject({ seq: 5, rowLevelAccounting: false })
      expect(after.entries.slice(1).every((e) => e.rowLevelAccounting)).toBe(true)
      expect(ledgerSummary(s.db, { datasetId }).datasets[0].rowLevelEntries).toBe(4)
      // The watermark cannot be moved.
      expect(() => s.db.prepare('UPDATE ledger_unit_epoch SET row_level_through_seq = 0').run()).toThrow(/fixed/)
      expect(verifyLedger(s.db).ok).toBe(true)
    } finally {
      s.close()
    }
  })

  it('the CLI says so: the summary and the entries name row-level accounting (before person-level units)', async () => {
    oldWorkspace()
    // The ledger only reads: the workspace is migrated first.
    expect((await cli('migrate', '--db', ws!.db)).code).toBe(0)
    const r = await cli('ledger', '--db', ws!.db)
    expect(r.code, r.err).toBe(0)
    expect(r.out).toMatch(/Dataset "visits" \(id 1\), unit: row-level \(each row is a different person\)/)
    expect(r.out).toMatch(/4 entries were written before privacy units existed: row-level accounting \(before person-level units\)\./)
    expect(r.out.match(/\(row-level accounting \(before person-level units\)\)/g)).toHaveLength(4)
    const j = JSON.parse((await cli('ledger', '--db', ws!.db, '--json')).out)
    expect(j.summary.datasets[0]).toMatchObject({ unit: 'row', spentPerUnit: 2.5, budgetPerUnit: 5, rowLevelEntries: 4 })
    expect(j.entries.every((e: { rowLevelAccounting: boolean }) => e.rowLevelAccounting)).toBe(true)
  })

  it('a fresh workspace marks nothing', () => {
    ws = tempWorkspace('qa-unit-migration-fresh-')
    const s = openStore(ws.db)
    try {
      const id = craftDataset(s.db, 'd', [{ name: 'x', type: 'integer' }], [[1]])
      setBudget(s.db, { datasetId: id, epsilon: '1', reason: 'fresh budget', ...officerAct(s.db, 'olga') })
      expect(listEntries(s.db, {}).entries[0].rowLevelAccounting).toBe(false)
      expect(ledgerSummary(s.db, { datasetId: id }).datasets[0].rowLevelEntries).toBe(0)
    } finally {
      s.close()
    }
  })
})
