/**
 * Sources benchmark, large: the threshold query of sources.bench.ts (group-by room and floor, persons
 * counted with cap 3 and maxGroups, default 3) over 10^8 generated rows (QA_BENCH_LARGE_ROWS) in a Parquet file read
 * in place by DuckDB: link, the query with the bound (twice) and without it; peak resident memory (the kernel's
 * high-water mark: DuckDB runs in a worker thread of this process). The file is generated once by DuckDB and cached
 * (sources-data.ts; about 1.9 GB). Target: <= 20 s and < 2 GB on the 2-core machine.
 * Prints one JSON line. Run: npm run bench -- sources-large
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { getDataset } from '../../src-main/services/catalog/catalog'
import { thresholdCounts } from '../../src-main/services/datasets/threshold-evaluation'
import { thresholdPredicates } from '../../src-main/services/datasets/threshold-predicates'
import { closeDuckDb } from '../../src-main/services/sources/duckdb-sync'
import { linkFile } from '../../src-main/services/datasets/link-file'
import { openStore } from '../../src-main/services/store/store'
import { seededRng } from '../../src-worker/engine/random'
import { FLOORS, PERSONS, ROOMS, definition, generated, peakRss } from './sources-data'
import { report, round } from './timing'
import { officerAct } from '../integration/officer-fixture'

const ROWS = Number(process.env.QA_BENCH_LARGE_ROWS ?? 100_000_000)
const MAX_GROUPS = Number(process.env.QA_BENCH_MAX_GROUPS ?? 3)

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'qa-bench-sources-large-'))
  try {
    const parquet = generated(ROWS, 'parquet')
    await closeDuckDb()
    ;(globalThis as { gc?: () => void }).gc?.()
    const store = openStore(join(dir, 'ws.sqlite'))
    const db = store.db
    const def = definition(MAX_GROUPS)
    const plain = definition(null)
    // The officer is registered before (a workspace's one-time set-up, not part of linking a file).
    const officer = officerAct(db)
    const link = await peakRss(() => linkFile(db, { name: 'parquet', file: parquet.path, personColumn: 'person', ...officer }))
    const ds = getDataset(db, link.value.id)
    const query = await peakRss(() => thresholdCounts(db, ds, def, thresholdPredicates(db, ds, def), seededRng('bench-sources')))
    const again = await peakRss(() => thresholdCounts(db, ds, def, thresholdPredicates(db, ds, def), seededRng('bench-sources')))
    const without = await peakRss(() => thresholdCounts(db, ds, plain, thresholdPredicates(db, ds, plain)))
    store.close()
    report({
      rows: ROWS,
      persons: PERSONS,
      groups: ROOMS * FLOORS,
      query: `group-by room, floor; persons counted with cap 3 and maxGroups ${MAX_GROUPS} (keyed rank, two passes in DuckDB); 250 public groups`,
      parquetMb: round(statSync(parquet.path).size / 1e6, 1),
      generateMs: parquet.ms,
      duckdb: {
        linkMs: link.ms,
        queryMs: query.ms,
        queryCpuMs: query.cpuMs,
        queryAgainMs: again.ms,
        endToEndMs: round(link.ms + query.ms, 1),
        withoutMaxGroupsMs: without.ms,
        withoutMaxGroupsCpuMs: without.cpuMs,
        peakRssMb: Math.max(link.peakRssMb, query.peakRssMb, again.peakRssMb, without.peakRssMb)
      },
      countedWithMaxGroups: query.value.counts.reduce((a, b) => a + b, 0),
      countedWithout: without.value.counts.reduce((a, b) => a + b, 0),
      sameTwice: query.value.counts.every((c, i) => c === again.value.counts[i]),
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
