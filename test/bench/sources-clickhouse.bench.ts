/**
 * ClickHouse sources benchmark: the threshold query of sources-large.bench.ts (group-by room and floor, persons counted
 * with cap 3, maxGroups 3 by the keyed rank, 250 public groups) over the same generated rows (default 10^7,
 * QA_BENCH_ROWS: 10^8 takes a 6 GB CSV and minutes to load) in a throwaway 3-shard ClickHouse cluster (Debian's 18.16,
 * test/integration/sources/ch-cluster.ts) against DuckDB reading the same rows' Parquet file on one node: same query,
 * same truncation key (a seeded generator), counts checked identical. Two Distributed tables over the same shards'
 * tables: one sharded by the person (the per-person stage runs on the shards) and one by rand() (it is merged on the
 * initiator: exact, the rows' persons spread). For each: wall time of the release path (`thresholdCounts` through the
 * linked dataset's Source), the same without maxGroups, the servers' CPU time (summed; DuckDB's: this process's),
 * peak resident memory of each process (each ClickHouse server, and this Node process, which holds DuckDB), and the bytes the HTTP answers carry (the release path's statements
 * replayed with the same format). Loading the cluster is not timed as part of a query.
 * Prints one JSON line. Run: npm run bench -- sources-clickhouse
 */
import { type ReadStream, createReadStream, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ThresholdQueryDefinition } from '../../src-main/contract/datasets'
import type { Sql } from '../../src-main/services/sources/dialect'
import { getDataset } from '../../src-main/services/catalog/catalog'
import { thresholdCounts, thresholdCountsFrom } from '../../src-main/services/datasets/threshold-evaluation'
import { thresholdPredicates } from '../../src-main/services/datasets/threshold-predicates'
import { linkFile } from '../../src-main/services/datasets/link-file'
import { linkClickHouse } from '../../src-main/services/datasets/link-clickhouse'
import { closeDuckDb } from '../../src-main/services/sources/duckdb-sync'
import { closeClickHouse } from '../../src-main/services/sources/clickhouse-sync'
import { bindClickHouse } from '../../src-main/services/sources/dialect-clickhouse'
import { linkedClickHouseOf } from '../../src-main/services/sources/linked-clickhouse'
import { clickhouseSource } from '../../src-main/services/sources/source'
import type { StoredValue } from '../../src-main/services/catalog/column-types'
import { openStore } from '../../src-main/services/store/store'
import { seededRng } from '../../src-worker/engine/random'
import { CH_USER_PASSWORD, type ChCluster, startChCluster } from '../integration/sources/ch-cluster'
import { officerAct } from '../integration/officer-fixture'
import { FLOORS, PERSONS, ROOMS, definition, generated, peakRss } from './sources-data'
import { report, round } from './timing'

const ROWS = Number(process.env.QA_BENCH_ROWS ?? 10_000_000)
const MAX_GROUPS = 3
const SHARDS = 3

/**
 * POSTs `body` to shard 0's HTTP interface on a connection of its own (a pooled one may have been closed by the
 * server's keep-alive timeout during a long query) and gives the answer's bytes; an answer other than 200 throws.
 */
function post(cluster: ChCluster, query: string, body: string | ReadStream): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: cluster.shards[0].httpPort, method: 'POST', path: `/?${query}`, agent: false }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('error', reject)
      res.on('end', () => {
        const out = Buffer.concat(chunks)
        if (res.statusCode === 200) resolve(out)
        else reject(new Error(`ClickHouse answered ${res.statusCode}: ${out.toString().slice(0, 500)}`))
      })
    })
    req.on('error', reject)
    if (typeof body === 'string') req.end(body)
    else body.pipe(req)
  })
}

/** Streams a CSV file into `table` (a Distributed insert reaches the shards before it returns). */
async function insertCsv(cluster: ChCluster, table: string, file: string): Promise<void> {
  await post(
    cluster,
    `user=default&insert_distributed_sync=1&query=${encodeURIComponent(`INSERT INTO ${table} FORMAT CSVWithNames`)}`,
    createReadStream(file)
  )
}

/** Resets the kernel's high-water mark of `pid`'s resident memory (same user: /proc/<pid>/clear_refs); false if it may not. */
function resetPeak(pid: number | 'self'): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5')
    return true
  } catch {
    return false
  }
}

/** CPU time of `pid` so far (user + system, ms; /proc/<pid>/stat at 100 ticks a second), null without /proc. */
function cpuMsOf(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
    return (Number(fields[11]) + Number(fields[12])) * 10
  } catch {
    return null
  }
}

function peakMb(pid: number | 'self'): number | null {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m ? round(Number(m[1]) / 1024, 0) : null
  } catch {
    return null
  }
}

/** Replays statements as the release path sent them (literals, its session settings, JSONCompact) and counts the bytes of the answers. */
async function answerBytes(cluster: ChCluster, statements: Array<{ q: Sql; perShard: boolean }>): Promise<number> {
  let bytes = 0
  for (const { q, perShard } of statements) {
    const b = bindClickHouse(q.sql, q.params as StoredValue[], false)
    const settings =
      'readonly=1&max_execution_time=3600&timeout_overflow_mode=throw&skip_unavailable_shards=0&output_format_json_quote_64bit_integers=0' +
      `&output_format_json_quote_denormals=1${perShard ? '&distributed_group_by_no_merge=1' : ''}`
    bytes += (await post(cluster, `user=reader&password=${encodeURIComponent(CH_USER_PASSWORD)}&${settings}`, `${b.sql} FORMAT JSONCompact`)).length
  }
  return bytes
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'qa-bench-ch-'))
  let cluster: ChCluster | null = null
  try {
    const csv = generated(ROWS, 'csv')
    const parquet = generated(ROWS, 'parquet')
    await closeDuckDb()
    cluster = await startChCluster(SHARDS)
    const c = cluster
    const cols = '(id UInt64, person String, room String, floor Int32, at DateTime, temperature Float64)'
    await c.onEachShard(`CREATE TABLE default.events_local ${cols} ENGINE = MergeTree ORDER BY person`)
    await c.admin(`CREATE TABLE default.events AS default.events_local ENGINE = Distributed(${c.name}, default, events_local, cityHash64(person))`)
    // The same shards' rows behind a table whose key says nothing of the person: the per-person stage is merged.
    await c.admin(`CREATE TABLE default.events_any AS default.events_local ENGINE = Distributed(${c.name}, default, events_local, rand())`)
    const l0 = performance.now()
    await insertCsv(c, 'default.events', csv.path)
    const loadMs = round(performance.now() - l0, 0)
    const perShardRows: number[] = []
    for (let i = 0; i < SHARDS; i++) perShardRows.push(Number((await c.admin('SELECT count() FROM default.events_local', i)).trim()))
    let storedMb = 0
    for (let i = 0; i < SHARDS; i++)
      storedMb += Number((await c.admin("SELECT sum(data_uncompressed_bytes) FROM system.columns WHERE table = 'events_local'", i)).trim()) / 1e6

    process.env.CLICKHOUSE_PASSWORD = CH_USER_PASSWORD
    const store = openStore(join(dir, 'ws.sqlite'))
    const db = store.db
    const chLink = (name: string, table: string) =>
      getDataset(db, linkClickHouse(db, { name, url: c.url('reader'), table, personColumn: 'person', ...officerAct(db) }).id)
    const byPerson = chLink('events ch', 'default.events')
    const anyShard = chLink('events ch any', 'default.events_any')
    const duck = getDataset(db, linkFile(db, { name: 'parquet', file: parquet.path, personColumn: 'person', ...officerAct(db) }).id)
    const def = definition(MAX_GROUPS)
    const plain = definition(null)

    const pids = c.shards.map((s) => s.pid)
    const canReset = pids.every((p) => resetPeak(p))
    /** Runs `fn` and reads each ClickHouse server's and this process's peak resident memory meanwhile. */
    const measured = async <T>(fn: () => T) => {
      for (const p of pids) resetPeak(p)
      const cpu0 = pids.map(cpuMsOf)
      const r = await peakRss(fn)
      const cpu = pids.map((p, i) => (cpu0[i] === null ? null : cpuMsOf(p)! - cpu0[i]!))
      return {
        ...r,
        serverPeakRssMb: canReset ? pids.map((p) => peakMb(p)) : null,
        serverCpuMs: cpu.every((x) => x !== null) ? cpu.reduce((a, b) => a! + b!, 0) : null
      }
    }
    const counts = (d: typeof duck, q: ThresholdQueryDefinition) =>
      thresholdCounts(db, d, q, thresholdPredicates(db, d, q), seededRng('bench-sources'))
    const clickhouse = async (d: typeof duck) => {
      const query = await measured(() => counts(d, def))
      const again = await measured(() => counts(d, def))
      const without = await measured(() => counts(d, plain))
      // The statements the release path sends, replayed for their answers' size.
      const sent: Array<{ q: Sql; perShard: boolean }> = []
      const src = clickhouseSource(linkedClickHouseOf(db, d.info.id)!)
      const perShard = d === byPerson
      const spy = { ...src, all: (q: Sql) => (sent.push({ q, perShard: perShard && q.perPerson === true }), src.all(q)) }
      thresholdCountsFrom(spy, d, def, thresholdPredicates(db, d, def), seededRng('bench-sources'))
      const withBytes = await answerBytes(c, sent)
      sent.length = 0
      thresholdCountsFrom(spy, d, plain, thresholdPredicates(db, d, plain))
      const withoutBytes = await answerBytes(c, sent)
      return {
        result: query.value,
        resultWithout: without.value,
        json: {
          queryMs: query.ms,
          queryAgainMs: again.ms,
          withoutMaxGroupsMs: without.ms,
          serversCpuMs: query.serverCpuMs,
          serversCpuWithoutMs: without.serverCpuMs,
          serverPeakRssMb: query.serverPeakRssMb,
          serverPeakRssWithoutMb: without.serverPeakRssMb,
          clientPeakRssMb: Math.max(query.peakRssMb, again.peakRssMb, without.peakRssMb),
          bytesReturned: withBytes,
          bytesReturnedWithout: withoutBytes
        }
      }
    }
    const ch = await clickhouse(byPerson)
    const chMerged = await clickhouse(anyShard)
    const duckQuery = await peakRss(() => counts(duck, def))
    const duckAgain = await peakRss(() => counts(duck, def))
    const duckWithout = await peakRss(() => counts(duck, plain))
    const server = (await c.admin('SELECT version()')).trim()
    store.close()
    const same = (a: { counts: Float64Array }, b: { counts: Float64Array }) => a.counts.every((x, i) => x === b.counts[i])
    report({
      rows: ROWS,
      persons: PERSONS,
      groups: ROOMS * FLOORS,
      query: `group-by room, floor; persons counted with cap 3 and maxGroups ${MAX_GROUPS} (the keyed rank, one key for all engines); 250 public groups`,
      clickhouse: `${server} (${SHARDS} shards on this machine, max_threads 2 each)`,
      csvMb: round(statSync(csv.path).size / 1e6, 1),
      loadMs,
      perShardRows,
      storedUncompressedMb: round(storedMb, 1),
      clickhouseShardedByPerson: ch.json,
      clickhouseMerged: chMerged.json,
      duckdbOneNode: {
        queryMs: duckQuery.ms,
        queryCpuMs: duckQuery.cpuMs,
        queryAgainMs: duckAgain.ms,
        withoutMaxGroupsMs: duckWithout.ms,
        withoutMaxGroupsCpuMs: duckWithout.cpuMs,
        peakRssMb: Math.max(duckQuery.peakRssMb, duckAgain.peakRssMb, duckWithout.peakRssMb),
        bytesReturned: 'in-process (no network)'
      },
      ratio: {
        shardedVsDuckdb: round(ch.json.queryMs / duckQuery.ms, 2),
        mergedVsDuckdb: round(chMerged.json.queryMs / duckQuery.ms, 2),
        shardedCpuVsDuckdbCpu: ch.json.serversCpuMs === null ? null : round(ch.json.serversCpuMs / duckQuery.cpuMs, 2),
        storedBytesVsReturned: round((storedMb * 1e6) / ch.json.bytesReturned, 0)
      },
      identicalCounts: {
        shardedByPerson: same(ch.result, duckQuery.value),
        merged: same(chMerged.result, duckQuery.value),
        withoutMaxGroups: same(ch.resultWithout, duckWithout.value) && same(chMerged.resultWithout, duckWithout.value)
      },
      countedWithMaxGroups: duckQuery.value.counts.reduce((a, b) => a + b, 0),
      countedWithout: duckWithout.value.counts.reduce((a, b) => a + b, 0),
      loadavg1: round(loadavg()[0], 2)
    })
  } finally {
    await closeDuckDb()
    await closeClickHouse()
    cluster?.destroy()
    rmSync(dir, { recursive: true, force: true })
  }
}

main().catch((e) => {
  process.stderr.write(String(e?.stack ?? e) + '\n')
  process.exit(1)
})
