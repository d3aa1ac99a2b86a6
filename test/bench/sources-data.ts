/**
 * Shared by the sources benchmarks (sources.bench.ts, sources-large.bench.ts): the generated rows (Parquet and CSV,
 * written by DuckDB, cached between runs), the threshold query, and a peak-resident-memory sampler.
 *
 * Rows: id, person ('p' + one of 100,000), room ('room ' + one of 50), floor (1..5), at (a minute in 90 days of 2015),
 * temperature; deterministic hashes of the row number (DuckDB's `hash`), so a cached file is the file a run would
 * write. The cache is QA_BENCH_CACHE (default: <tmp>/qa-bench-sources), one file per row count and format; a file is
 * written under a temporary name and renamed when complete.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ThresholdQueryDefinition } from '../../src-main/contract/datasets'
import { duckAll, duckString } from '../../src-main/services/sources/duckdb-sync'
import { round } from './timing'

export const PERSONS = 100_000
export const ROOMS = 50
export const FLOORS = 5
export const CACHE = process.env.QA_BENCH_CACHE ?? join(tmpdir(), 'qa-bench-sources')

function rowsSql(rows: number): string {
  return `SELECT i AS id, 'p' || (hash(i, 1) % ${PERSONS}) AS person, 'room ' || (hash(i, 2) % ${ROOMS}) AS room, 1 + (hash(i, 3) % ${FLOORS}) AS floor,
      TIMESTAMP '2015-01-01' + to_minutes(CAST(hash(i, 4) % (90 * 24 * 60) AS BIGINT)) AS at, round(15 + (hash(i, 5) % 1500) / 100.0, 2) AS temperature
      FROM range(${rows}) t(i)`
}

/** The generated file of `rows` rows (from the cache, or written now); `ms` is the time it took to write (0 if cached). */
export function generated(rows: number, format: 'parquet' | 'csv'): { path: string; ms: number } {
  mkdirSync(CACHE, { recursive: true })
  const path = join(CACHE, `events-${rows}.${format}`)
  if (existsSync(path)) return { path, ms: 0 }
  const part = `${path}.part-${process.pid}`
  const t0 = performance.now()
  try {
    duckAll(`COPY (${rowsSql(rows)}) TO ${duckString(part)} (FORMAT ${format === 'parquet' ? 'parquet' : 'csv, header true'})`)
    renameSync(part, path)
  } finally {
    rmSync(part, { force: true })
  }
  return { path, ms: round(performance.now() - t0, 0) }
}

/** The threshold query: group-by room and floor (250 public groups), persons counted with cap 3, optionally maxGroups. */
export function definition(maxGroups: number | null): ThresholdQueryDefinition {
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

/** The kernel's high-water mark of this process's resident memory (VmHWM), in bytes; null where /proc is absent. */
function highWaterMark(): number | null {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))
    return m ? Number(m[1]) * 1024 : null
  } catch {
    return null
  }
}

/**
 * Runs `fn` and gives the peak resident memory of this process meanwhile (DuckDB runs in a worker thread of this
 * process). The calls block this thread (duckdb-sync.ts), so a timer cannot sample them: the kernel's high-water mark
 * is reset before (`/proc/self/clear_refs`, 5) and read after; without /proc, the larger of before and after.
 * `cpuMs`: the process's CPU time meanwhile (every thread, DuckDB's included): less disturbed than the wall clock
 * when the machine is shared.
 */
export async function peakRss<T>(fn: () => T | Promise<T>): Promise<{ value: T; ms: number; cpuMs: number; peakRssMb: number }> {
  try {
    writeFileSync('/proc/self/clear_refs', '5')
  } catch {
    // no /proc: before and after only
  }
  const before = process.memoryUsage().rss
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  const value = await fn()
  const ms = performance.now() - t0
  const cpu = process.cpuUsage(cpu0)
  const peak = Math.max(before, process.memoryUsage().rss, highWaterMark() ?? 0)
  return { value, ms: round(ms, 1), cpuMs: round((cpu.user + cpu.system) / 1000, 0), peakRssMb: round(peak / 2 ** 20, 0) }
}
