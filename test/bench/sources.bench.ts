/**
 * Sources benchmark: the threshold query (group-by 2 columns, persons counted with cap 3 and maxGroups,
 * default 3: QA_BENCH_MAX_GROUPS) over generated rows (default 10^7: QA_BENCH_ROWS; sources-data.ts, cached) held in a
 * Parquet file read in place by DuckDB (link + query), versus the SQLite path on the same rows (import of the same
 * rows as CSV + the same query), with the ratio end to end and for the query alone. The bound runs in each engine
 * (keyed rank: a window function in SQLite, dialect.ts; two passes in DuckDB, duckdb-truncation.ts); both use the
 * same key, so their counts must be identical. The query without maxGroups is timed too. Peak resident memory of
 * each phase (the kernel's high-water mark; DuckDB runs in a worker thread of this process and is stopped before the
 * SQLite phase). 10^8 rows: sources-large.bench.ts.
 * Prints one JSON line. Run: npm run bench -- sources (also runs sources-large and sources-postgres), or
 * node --import tsx --expose-gc test/bench/sources.bench.ts
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { getDataset } from '../../src-main/services/catalog/catalog'
import { planImport, runImport } from '../../src-main/services/datasets/import-dataset'
import { thresholdCounts } from '../../src-main/services/datasets/threshold-evaluation'
import { thresholdPredicates } from '../../src-main/services/datasets/threshold-predicates'
import { closeDuckDb } from '../../src-main/services/sources/duckdb-sync'
import { linkFile } from '../../src-main/services/datasets/link-file'
import { openStore } from '../../src-main/services/store/store'
import { type Rng, seededRng } from '../../src-worker/engine/random'
import type Database from 'better-sqlite3'
import type { ThresholdQueryDefinition } from '../../src-main/contract/datasets'
import { FLOORS, PERSONS, ROOMS, definition, generated, peakRss } from './sources-data'
import { report, round } from './timing'
import { officerAct } from '../integration/officer-fixture'

const ROWS = Number(process.env.QA_BENCH_ROWS ?? 10_000_000)
const MAX_GROUPS = Number(process.env.QA_BENCH_MAX_GROUPS ?? 3)
/** QA_BENCH_SQLITE=0: the DuckDB phase only (the SQLite import and query of 10^7 rows take minutes). */
const WITH_SQLITE = process.env.QA_BENCH_SQLITE !== '0'
const gc = () => (globalThis as { gc?: () => void }).gc?.()

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'qa-bench-sources-'))
  try {
    const parquet = generated(ROWS, 'parquet')
    const csv = WITH_SQLITE ? generated(ROWS, 'csv') : null
    await closeDuckDb()
    gc()

    const store = openStore(join(dir, 'ws.sqlite'))
    const db = store.db
    const rssBefore = round(process.memoryUsage().rss / 2 ** 20, 0)
    const def = definition(MAX_GROUPS)
    const plain = definition(null)
    // The same key in both engines (a seeded generator, as a simulation would use): the counts must be identical.
    const key = () => seededRng('bench-sources')

    // DuckDB: link the Parquet file (schema, row count, fingerprint, the whole-read check, the officer's unlock and
    // signature), then the query (true counts, as a release's execute). The officer is registered before (a workspace's
    // one-time set-up, not part of linking a file).
    const officer = officerAct(db)
    const link = await peakRss(() => linkFile(db, { name: 'parquet', file: parquet.path, personColumn: 'person', ...officer }))
    const pqDs = getDataset(db, link.value.id)
    const duckQuery = await peakRss(() => thresholdCounts(db, pqDs, def, thresholdPredicates(db, pqDs, def), key()))
    const duckAgain = await peakRss(() => thresholdCounts(db, pqDs, def, thresholdPredicates(db, pqDs, def), key()))
    const duckPlain = await peakRss(() => thresholdCounts(db, pqDs, plain, thresholdPredicates(db, pqDs, plain)))
    await closeDuckDb()
    gc()

    // SQLite: import the same rows (CSV), then the same query.
    const sqlite = csv === null ? null : await sqlitePhase(db, csv.path, def, plain, key)
    const same = (a: Float64Array, b: Float64Array) => a.length === b.length && a.every((c, i) => c === b[i])
    store.close()

    const duckTotal = link.ms + duckQuery.ms
    const truncatedTotal = duckQuery.value.counts.reduce((a, b) => a + b, 0)
    const plainTotal = duckPlain.value.counts.reduce((a, b) => a + b, 0)
    report({
      rows: ROWS,
      persons: PERSONS,
      groups: ROOMS * FLOORS,
      query: `group-by room, floor; persons counted with cap 3 and maxGroups ${MAX_GROUPS} (keyed rank: a window function in SQLite, two passes in DuckDB); 250 public groups`,
      parquetMb: round(statSync(parquet.path).size / 1e6, 1),
      csvMb: csv === null ? null : round(statSync(csv.path).size / 1e6, 1),
      generateMs: { parquet: parquet.ms, csv: csv?.ms ?? null, note: '0 = cached' },
      duckdb: {
        linkMs: link.ms,
        linkCpuMs: link.cpuMs,
        queryMs: duckQuery.ms,
        queryCpuMs: duckQuery.cpuMs,
        queryAgainMs: duckAgain.ms,
        queryAgainCpuMs: duckAgain.cpuMs,
        endToEndMs: round(duckTotal, 1),
        withoutMaxGroupsMs: duckPlain.ms,
        withoutMaxGroupsCpuMs: duckPlain.cpuMs,
        peakRssMb: Math.max(link.peakRssMb, duckQuery.peakRssMb, duckAgain.peakRssMb, duckPlain.peakRssMb)
      },
      sqlite:
        sqlite === null
          ? 'skipped (QA_BENCH_SQLITE=0)'
          : {
              importMs: sqlite.imp.ms,
              importCpuMs: sqlite.imp.cpuMs,
              queryMs: sqlite.query.ms,
              queryCpuMs: sqlite.query.cpuMs,
              endToEndMs: round(sqlite.imp.ms + sqlite.query.ms, 1),
              withoutMaxGroupsMs: sqlite.plain.ms,
              peakRssMb: Math.max(sqlite.imp.peakRssMb, sqlite.query.peakRssMb, sqlite.plain.peakRssMb)
            },
      ratio:
        sqlite === null
          ? null
          : {
              endToEnd: round((sqlite.imp.ms + sqlite.query.ms) / duckTotal, 1),
              queryOnly: round(sqlite.query.ms / duckQuery.ms, 1),
              endToEndCpu: round((sqlite.imp.cpuMs + sqlite.query.cpuMs) / (link.cpuMs + duckQuery.cpuMs), 1)
            },
      // Persons x groups counted with and without the bound (the bound bites), and the engines agree on both.
      countedWithMaxGroups: truncatedTotal,
      countedWithout: plainTotal,
      identicalCounts:
        same(duckAgain.value.counts, duckQuery.value.counts) &&
        (sqlite === null || (same(duckQuery.value.counts, sqlite.query.value.counts) && same(duckPlain.value.counts, sqlite.plain.value.counts))),
      rssBeforeMb: rssBefore,
      loadavg1: round(loadavg()[0], 2)
    })
  } finally {
    await closeDuckDb()
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The same rows imported into the workspace (SQLite) from the CSV file, then the same queries with the same key. */
async function sqlitePhase(db: Database.Database, csvPath: string, def: ThresholdQueryDefinition, plain: ThresholdQueryDefinition, key: () => Rng) {
  const imp = await peakRss(() => runImport(db, planImport(db, { path: csvPath, name: 'imported', personColumn: 'person' })))
  const ds = getDataset(db, imp.value.dataset.id)
  const query = await peakRss(() => thresholdCounts(db, ds, def, thresholdPredicates(db, ds, def), key()))
  const plainQuery = await peakRss(() => thresholdCounts(db, ds, plain, thresholdPredicates(db, ds, plain)))
  return { imp, query, plain: plainQuery }
}

main().catch((e) => {
  process.stderr.write(String(e?.stack ?? e) + '\n')
  process.exit(1)
})
