/**
 * Sources benchmark (issue 16): a threshold query (group-by 2 columns, capped per-person counts) over generated rows
 * (default 10^7, QA_BENCH_ROWS to change) held in a Parquet file read in place by DuckDB (link + query) versus the SQLite
 * path on the same rows (import of the same rows as CSV + the same query), with the ratio end to end and for the query
 * alone; peak resident memory of each phase (sampled every 25 ms; DuckDB runs in a worker thread of this process and is
 * stopped before the SQLite phase). QA_BENCH_MAX_GROUPS=N also times the maxGroups truncation on DuckDB's tuples.
 * Prints one JSON line. Run: npm run bench -- sources
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ThresholdQueryDefinition } from '../../src-main/contract/datasets'
import { getDataset } from '../../src-main/services/datasets/catalog'
import { planImport, runImport } from '../../src-main/services/datasets/import-dataset'
import { thresholdCounts } from '../../src-main/services/datasets/threshold-evaluation'
import { thresholdPredicates } from '../../src-main/services/datasets/threshold-predicates'
import { closeDuckDb, duckAll, duckString } from '../../src-main/services/sources/duckdb-sync'
import { linkFile } from '../../src-main/services/sources/linked-file'
import { openStore } from '../../src-main/services/store/store'
import { seededRng } from '../../src-worker/engine/random'
import { report, round } from './timing'

const ROWS = Number(process.env.QA_BENCH_ROWS ?? 10_000_000)
const PERSONS = 100_000
const ROOMS = 50
const FLOORS = 5
const MAX_GROUPS = process.env.QA_BENCH_MAX_GROUPS ? Number(process.env.QA_BENCH_MAX_GROUPS) : null

function peakRss<T>(fn: () => T | Promise<T>): Promise<{ value: T; ms: number; peakRssMb: number }> {
  let peak = process.memoryUsage().rss
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 25)
  const t0 = performance.now()
  return Promise.resolve(fn()).then((value) => {
    const ms = performance.now() - t0
    clearInterval(timer)
    peak = Math.max(peak, process.memoryUsage().rss)
    return { value, ms: round(ms, 1), peakRssMb: round(peak / 2 ** 20, 0) }
  })
}

function definition(maxGroups: number | null): ThresholdQueryDefinition {
  const groups: Array<Array<string | number>> = []
  for (let r = 0; r < ROOMS; r++) for (let f = 1; f <= FLOORS; f++) groups.push([`room ${r}`, f])
  return {
    kind: 'threshold',
    groupBy: ['room', 'floor'],
    count: { kind: 'persons', personColumn: 'person', cap: 3, ...(maxGroups !== null ? { maxGroups } : {}) },
    threshold: { kind: 'constant', value: 1000 },
    groups
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'qa-bench-sources-'))
  try {
    const parquet = join(dir, 'events.parquet')
    const csv = join(dir, 'events.csv')
    // Generated in DuckDB (deterministic hashes of the row number); not timed.
    const rows = `SELECT i AS id, 'p' || (hash(i, 1) % ${PERSONS}) AS person, 'room ' || (hash(i, 2) % ${ROOMS}) AS room, 1 + (hash(i, 3) % ${FLOORS}) AS floor,
      TIMESTAMP '2015-01-01' + to_minutes(CAST(hash(i, 4) % (90 * 24 * 60) AS BIGINT)) AS at, round(15 + (hash(i, 5) % 1500) / 100.0, 2) AS temperature
      FROM range(${ROWS}) t(i)`
    const g0 = performance.now()
    duckAll(`COPY (${rows}) TO ${duckString(parquet)} (FORMAT parquet)`)
    duckAll(`COPY (${rows}) TO ${duckString(csv)} (FORMAT csv, header true)`)
    const generateMs = performance.now() - g0
    await closeDuckDb()
    ;(globalThis as { gc?: () => void }).gc?.()

    const store = openStore(join(dir, 'ws.sqlite'))
    const db = store.db
    const rssBefore = round(process.memoryUsage().rss / 2 ** 20, 0)

    // DuckDB: link the Parquet file (schema, row count, fingerprint), then the query (true counts, as a release's execute).
    const link = await peakRss(() => linkFile(db, { name: 'parquet', file: parquet, personColumn: 'person' }))
    const pqDs = getDataset(db, link.value.id)
    const def = definition(null)
    const preds = thresholdPredicates(db, pqDs, def)
    const duckQuery = await peakRss(() => thresholdCounts(db, pqDs, def, preds))
    const duckQuery2 = await peakRss(() => thresholdCounts(db, pqDs, def, preds))
    let truncation: Record<string, unknown> | null = null
    if (MAX_GROUPS !== null) {
      const defM = definition(MAX_GROUPS)
      const t = await peakRss(() => thresholdCounts(db, pqDs, defM, thresholdPredicates(db, pqDs, defM), seededRng('bench')))
      truncation = { maxGroups: MAX_GROUPS, ms: t.ms, peakRssMb: t.peakRssMb }
    }
    await closeDuckDb()
    ;(globalThis as { gc?: () => void }).gc?.()

    // SQLite: import the same rows (CSV), then the same query.
    const imp = await peakRss(() => runImport(db, planImport(db, { path: csv, name: 'imported', personColumn: 'person' })))
    const sqDs = getDataset(db, imp.value.dataset.id)
    const sqQuery = await peakRss(() => thresholdCounts(db, sqDs, def, thresholdPredicates(db, sqDs, def)))
    const same = duckQuery.value.counts.every((c, i) => c === sqQuery.value.counts[i])
    store.close()

    const duckTotal = link.ms + duckQuery.ms
    const sqliteTotal = imp.ms + sqQuery.ms
    report({
      rows: ROWS,
      persons: PERSONS,
      groups: ROOMS * FLOORS,
      query: 'group-by room, floor; persons counted with cap 3 (sum over persons of min(rows, 3)); 250 public groups',
      parquetMb: round(statSync(parquet).size / 1e6, 1),
      csvMb: round(statSync(csv).size / 1e6, 1),
      generateMs: round(generateMs, 0),
      duckdb: { linkMs: link.ms, queryMs: duckQuery.ms, queryAgainMs: duckQuery2.ms, endToEndMs: round(duckTotal, 1), peakRssMb: Math.max(link.peakRssMb, duckQuery.peakRssMb, duckQuery2.peakRssMb) },
      ...(truncation ? { duckdbMaxGroups: truncation } : {}),
      sqlite: { importMs: imp.ms, queryMs: sqQuery.ms, endToEndMs: round(sqliteTotal, 1), peakRssMb: Math.max(imp.peakRssMb, sqQuery.peakRssMb) },
      ratio: { endToEnd: round(sqliteTotal / duckTotal, 1), queryOnly: round(sqQuery.ms / duckQuery.ms, 1) },
      identicalCounts: same,
      rssBeforeMb: rssBefore,
      loadavg1: round(loadavg()[0], 2)
    })
  } finally {
    await closeDuckDb()
    rmSync(dir, { recursive: true, force: true })
  }
}

main().catch((e) => {
  process.stderr.write(String(e?.stack ?? e) + '\n')
  process.exit(1)
})
