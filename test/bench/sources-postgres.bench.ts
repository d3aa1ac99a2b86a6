/**
 * PostgreSQL sources benchmark: the threshold query of sources.bench.ts (group-by room and floor, persons
 * counted with a cap of 3, 250 public groups) over generated rows (default 10^7, QA_BENCH_ROWS to change) in a linked
 * PostgreSQL table of a throwaway local cluster (unix socket), two ways:
 * - pushed down: the aggregate runs in PostgreSQL and only the per-group counts come back (the release path:
 *   `thresholdCounts` through the linked dataset's Source, in a read-only transaction in the worker thread);
 * - rows pulled: the rows' (person, room, floor) are fetched (server-side cursor, 100,000 rows a fetch) and the same
 *   counts computed in JS.
 * Bytes transferred are read from each client's socket (`bytesRead`) running the same SQL with node-postgres directly;
 * times are of the release path (pushed down) and of the pull + JS aggregation. Checks the two give the same counts.
 * Without PostgreSQL's binaries it prints a JSON note saying it was skipped. Run: npm run bench -- sources-postgres
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import type { ThresholdQueryDefinition } from '../../src-main/contract/datasets'
import { getDataset } from '../../src-main/services/catalog/catalog'
import { groupKey } from '../../src-main/services/catalog/column-types'
import { thresholdCounts } from '../../src-main/services/datasets/threshold-evaluation'
import { thresholdPredicates } from '../../src-main/services/datasets/threshold-predicates'
import { groupCountSql, whereOf } from '../../src-main/services/sources/dialect'
import { linkedPostgresOf } from '../../src-main/services/sources/linked-postgres'
import { linkPostgres } from '../../src-main/services/datasets/link-postgres'
import { closePg, numberedParams } from '../../src-main/services/sources/pg-sync'
import { postgresDialect } from '../../src-main/services/sources/dialect-postgres'
import { openStore } from '../../src-main/services/store/store'
import { hasPgBinaries, startPgCluster } from '../integration/sources/pg-cluster'
import { officerAct } from '../integration/officer-fixture'
import { report, round } from './timing'

const ROWS = Number(process.env.QA_BENCH_ROWS ?? 10_000_000)
const PERSONS = 100_000
const ROOMS = 50
const FLOORS = 5
const CAP = 3
const KEY_TYPES = ['text', 'integer'] as const

function definition(): ThresholdQueryDefinition {
  const groups: Array<Array<string | number>> = []
  for (let r = 0; r < ROOMS; r++) for (let f = 1; f <= FLOORS; f++) groups.push([`room ${r}`, f])
  return {
    kind: 'threshold',
    groupBy: ['room', 'floor'],
    count: { kind: 'persons', personColumn: 'person', cap: CAP },
    threshold: { kind: 'constant', value: 1000 },
    groups
  }
}

function socketBytes(c: pg.Client): number {
  return (c as unknown as { connection: { stream: { bytesRead: number } } }).connection.stream.bytesRead
}

async function main(): Promise<void> {
  if (!hasPgBinaries()) {
    report({
      skipped: "PostgreSQL's server binaries (initdb, pg_ctl) are not installed: install Debian's postgresql (.ci/run does) to run this benchmark"
    })
    return
  }
  const cluster = await startPgCluster()
  const dir = mkdtempSync(join(tmpdir(), 'qa-bench-pg-'))
  const password = `bench-${process.pid}`
  try {
    await cluster.createRole('bench', password)
    const g0 = performance.now()
    // Deterministic pseudo-random values from the row number (hashint8); not timed as part of the query.
    await cluster.admin(`CREATE TABLE events AS SELECT i AS id, 'p' || (abs(hashint8(i * 5 + 1)) % ${PERSONS}) AS person,
      'room ' || (abs(hashint8(i * 5 + 2)) % ${ROOMS}) AS room, CAST(1 + abs(hashint8(i * 5 + 3)) % ${FLOORS} AS integer) AS floor,
      TIMESTAMP '2015-01-01' + make_interval(mins => CAST(abs(hashint8(i * 5 + 4)) % (90 * 24 * 60) AS integer)) AS "at"
      FROM generate_series(1, ${ROWS}) AS t(i)`)
    await cluster.admin('ANALYZE events')
    await cluster.admin('GRANT SELECT ON events TO bench')
    const generateMs = performance.now() - g0
    const tableMb = Number((await cluster.admin(`SELECT pg_total_relation_size('events') AS b`)).rows[0].b) / 1e6

    process.env.PGPASSWORD = password
    const store = openStore(join(dir, 'ws.sqlite'))
    const db = store.db
    const l0 = performance.now()
    const ds = getDataset(
      db,
      linkPostgres(db, { name: 'events', url: cluster.url('bench'), table: 'public.events', personColumn: 'person', ...officerAct(db) }).id
    )
    const linkMs = performance.now() - l0
    const def = definition()
    const preds = thresholdPredicates(db, ds, def)

    // Pushed down, through the release path.
    const p0 = performance.now()
    const pushed = thresholdCounts(db, ds, def, preds)
    const pushedMs = performance.now() - p0
    const p1 = performance.now()
    thresholdCounts(db, ds, def, preds)
    const pushedAgainMs = performance.now() - p1

    // The same SQL with a direct client: the bytes it transfers.
    const rec = linkedPostgresOf(db, ds.info.id)!
    const d = postgresDialect(rec)
    const q = groupCountSql(d, ds, def, whereOf(d, ds, def, null), null)
    const direct = new pg.Client({ host: cluster.socketDir, port: cluster.port, database: cluster.database, user: 'bench', password })
    await direct.connect()
    const b0 = socketBytes(direct)
    const aggRows = (await direct.query({ text: numberedParams(q.sql), values: q.params, rowMode: 'array' })).rows.length
    const pushedBytes = socketBytes(direct) - b0

    // Rows pulled: every row's (person, room, floor), aggregated here.
    const keyIndex = new Map(preds.keys.map((k, i) => [k, i]))
    const r0 = performance.now()
    const b1 = socketBytes(direct)
    const perPersonGroup = new Map<number, number>()
    await direct.query('BEGIN READ ONLY')
    await direct.query('DECLARE pull NO SCROLL CURSOR FOR SELECT person, room, floor FROM public.events')
    let pulledRows = 0
    for (;;) {
      const batch = (await direct.query({ text: 'FETCH 100000 FROM pull', rowMode: 'array' })).rows as Array<[string, string, number]>
      if (batch.length === 0) break
      pulledRows += batch.length
      for (const [person, room, floor] of batch) {
        const g = keyIndex.get(groupKey(KEY_TYPES, [room, floor]))
        if (g === undefined) continue
        const key = g * PERSONS + Number(person.slice(1))
        perPersonGroup.set(key, (perPersonGroup.get(key) ?? 0) + 1)
      }
    }
    await direct.query('COMMIT')
    const pulledCounts = new Float64Array(preds.keys.length)
    for (const [key, n] of perPersonGroup) pulledCounts[Math.floor(key / PERSONS)] += Math.min(n, CAP)
    const pulledMs = performance.now() - r0
    const pulledBytes = socketBytes(direct) - b1
    await direct.end()
    store.close()

    report({
      rows: ROWS,
      persons: PERSONS,
      groups: ROOMS * FLOORS,
      query: 'group-by room, floor; persons counted with cap 3 (sum over persons of min(rows, 3)); 250 public groups',
      postgres: (await cluster.admin('SHOW server_version')).rows[0].server_version,
      tableMb: round(tableMb, 1),
      generateMs: round(generateMs, 0),
      linkMs: round(linkMs, 1),
      pushedDown: { queryMs: round(pushedMs, 1), queryAgainMs: round(pushedAgainMs, 1), rowsBack: aggRows, bytesTransferred: pushedBytes },
      rowsPulled: { pullAndAggregateMs: round(pulledMs, 1), rowsBack: pulledRows, bytesTransferred: pulledBytes },
      ratio: { time: round(pulledMs / pushedMs, 1), bytes: round(pulledBytes / pushedBytes, 0) },
      identicalCounts: pushed.counts.every((c, i) => c === pulledCounts[i]),
      loadavg1: round(loadavg()[0], 2)
    })
  } finally {
    await closePg()
    await cluster.destroy()
    rmSync(dir, { recursive: true, force: true })
  }
}

main().catch((e) => {
  process.stderr.write(String(e?.stack ?? e) + '\n')
  process.exit(1)
})
