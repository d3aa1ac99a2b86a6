/**
 * Times as the user wrote them, and groups by hour, day or week of a time column, on an imported file (SQLite) and the
 * same file linked in place (DuckDB): the released answer, the ledger's cells and the catalog's rows show
 * "2014-07-01 00:00:00" as the file and the question write it (no zone added), while the ledger keeps its canonical
 * cell keys (hashed, never changed); a threshold query grouped by hour counts each hour's rows, identically in both
 * engines, and its groups must be hours named by their starts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { ImportResult, ThresholdQueryDefinition } from '../../../src-main/contract/datasets'
import type { ReleaseAnswer } from '../../../src-main/contract/ledger'
import { getDataset } from '../../../src-main/services/catalog/catalog'
import { linkFile } from '../../../src-main/services/datasets/link-file'
import { saveQuery } from '../../../src-main/services/datasets/query-store'
import { thresholdCounts } from '../../../src-main/services/datasets/threshold-evaluation'
import { thresholdPredicates } from '../../../src-main/services/datasets/threshold-predicates'
import { ledgerHandlers } from '../../../src-main/services/releases/ledger-handlers'
import { verifyLedger } from '../../../src-main/services/ledger/verify'
import { closeDuckDb } from '../../../src-main/services/sources/duckdb-sync'
import { craftDataset, inlineContext } from '../ledger/fixtures'
import { officerAct } from '../officer-fixture'
import { type Harness, harness } from './harness'

let h: Harness
let ledger: ReturnType<typeof ledgerHandlers>
let imported: number
let linked: number
/** Rows per hour of 2014-07-01, from the file as written (hour -> rows). */
const PER_HOUR = [5, 0, 3, 7, 1]

const text = (hour: number, minute: number) => `2014-07-01 ${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}:00`

beforeAll(async () => {
  h = harness()
  const lines = ['timestamp,value']
  PER_HOUR.forEach((n, hour) => {
    for (let i = 0; i < n; i++) lines.push(`${text(hour, i * 7)},${10 + i}`)
  })
  const file = join(h.dir, 'series.csv')
  writeFileSync(file, lines.join('\n') + '\n')
  const job = await h.importAndWait({ path: file, name: 'series', types: { timestamp: 'timestamp', value: 'real' } } as never)
  imported = (job.result as ImportResult).dataset.id
  linked = linkFile(h.store.db, { name: 'series linked', file, personColumn: null, ...officerAct(h.store.db) }).id
  ledger = ledgerHandlers(inlineContext(h.store))
  for (const datasetId of [imported, linked]) {
    await ledger['budgets/set']({ datasetId, epsilon: '100', reason: 'test budget', ...officerAct(h.store.db) })
  }
}, 120_000)
afterAll(async () => {
  await closeDuckDb()
  h?.cleanup()
})

const tslm = { kind: 'threshold' as const, mechanism: 'tslm' as const, alpha: 2, beta: 0.05 }

function exact(groups: string[][]): ThresholdQueryDefinition {
  return { kind: 'threshold', groupBy: ['timestamp'], count: { kind: 'rows' }, threshold: { kind: 'constant', value: 0 }, groups }
}

function byHour(groups: string[][]): ThresholdQueryDefinition {
  return { ...exact(groups), groupByTime: { column: 'timestamp', per: 'hour' } }
}

type ThresholdAnswer = Extract<ReleaseAnswer, { kind: 'threshold' }>

describe('times as written', () => {
  for (const which of ['imported', 'linked'] as const) {
    it(`${which}: the answer and the ledger show "2014-07-01 00:00:00"; the ledger's stored cells keep their canonical keys`, async () => {
      const datasetId = which === 'imported' ? imported : linked
      const typed = [[text(0, 0)], [text(2, 7)]]
      const q = saveQuery(h.store.db, datasetId, `exact ${which}`, exact(typed))
      const r = await ledger['releases/run']({ queryId: q.id, params: tslm })
      expect(r.status).toBe('answered')
      const a = r.answer as ThresholdAnswer
      expect(a.decisions!.map((d) => d.shown)).toEqual(typed)
      expect(a.decisions!.map((d) => d.label)).toEqual(['timestamp=2014-07-01 00:00:00', 'timestamp=2014-07-01 02:07:00'])
      expect(JSON.stringify(a.decisions!.map((d) => [d.shown, d.label]))).not.toMatch(/T\d\d:|Z"/)

      const entry = (await ledger['ledger/entries']({ datasetId, limit: 1 })).entries[0]
      expect(entry.cells.sort()).toEqual(['timestamp = 2014-07-01 00:00:00', 'timestamp = 2014-07-01 02:07:00'])
      const summary = await ledger['ledger/summary']({ datasetId })
      const labels = summary.datasets[0].accounts.flatMap((x) => x.cells.map((c) => c.label))
      expect(labels).toContain('timestamp = 2014-07-01 02:07:00')
      expect(labels.join(' ')).not.toMatch(/T\d\d:\d\d:\d\d\.\d{3}Z/)
      // The hashed cell keys are as they always were: older ledgers verify the same way.
      const stored = h.store.db
        .prepare('SELECT DISTINCT cell FROM ledger_cell_charges WHERE dataset_id = ? ORDER BY cell')
        .all(datasetId)
        .map((x) => (x as { cell: string }).cell)
      expect(stored).toContain('{"timestamp":"2014-07-01T02:07:00.000Z"}')
      expect(verifyLedger(h.store.db).ok).toBe(true)
    })
  }

  it("the catalog's rows show the times as the file writes them", async () => {
    const rows = await h.storedRows({ datasetId: imported, limit: 2 })
    expect(rows.rows.map((r) => r[0])).toEqual([text(0, 0), text(0, 7)])
  })
})

describe('group by hour of a time column', () => {
  const hours = PER_HOUR.map((_, hour) => [text(hour, 0)])

  it('counts each hour, identically on the imported and the linked copy, including an hour with no row', () => {
    const def = byHour([...hours, [text(9, 0)]])
    const counts = [imported, linked].map((id) => {
      const ds = getDataset(h.store.db, id)
      return [...thresholdCounts(h.store.db, ds, def, thresholdPredicates(h.store.db, ds, def)).counts]
    })
    expect(counts[0]).toEqual([...PER_HOUR, 0])
    expect(counts[1]).toEqual(counts[0])
  })

  it('a release names the buckets ("hour of timestamp") in the answer and in its ledger cells', async () => {
    const q = saveQuery(h.store.db, imported, 'hours', byHour(hours))
    const r = await ledger['releases/run']({ queryId: q.id, params: tslm })
    const a = r.answer as ThresholdAnswer
    expect(a.groupBy).toEqual(['hour of timestamp'])
    expect(a.decisions!.map((d) => d.shown)).toEqual(hours)
    const entry = (await ledger['ledger/entries']({ datasetId: imported, limit: 1 })).entries[0]
    expect(entry.cells).toContain('hour of timestamp = 2014-07-01 03:00:00')
    // A bucket is not an exact time: its cells are not those of the exact-time question over "timestamp".
    expect(entry.cells.some((c) => c.startsWith('timestamp ='))).toBe(false)
  })

  it('refuses groups that are not the start of their hour, a reference threshold, and a column already named like the buckets', () => {
    expect(() => saveQuery(h.store.db, imported, 'bad', byHour([[text(1, 30)]]))).toThrow(
      'Group 1\'s value for "timestamp" is not the start of an hour: name the hour by its start, "2014-07-01 01:00:00"'
    )
    const reference: ThresholdQueryDefinition = {
      ...byHour(hours),
      threshold: { kind: 'reference', factor: 1, aggregate: 'max', bucket: 'hour', column: 'timestamp', from: text(0, 0), to: text(4, 0) }
    }
    expect(() => saveQuery(h.store.db, imported, 'ref', reference)).toThrow(/use a constant threshold/)
    expect(() => saveQuery(h.store.db, imported, 'value', { ...byHour(hours), groupByTime: { column: 'value', per: 'hour' } })).toThrow(
      /only a timestamp column can be grouped by hour/
    )
    const named = craftDataset(
      h.store.db,
      'named like buckets',
      [
        { name: 'timestamp', type: 'timestamp' },
        { name: 'hour of timestamp', type: 'text' }
      ],
      [[Date.UTC(2014, 6, 1), 'x']]
    )
    expect(() => saveQuery(h.store.db, named, 'clash', byHour(hours))).toThrow(
      'Dataset "named like buckets" has a column named "hour of timestamp": group by time is not offered on it'
    )
  })
})
