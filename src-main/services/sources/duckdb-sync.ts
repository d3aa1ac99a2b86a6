/**
 * DuckDB (`@duckdb/node-api`, in-process) behind a synchronous call, so that a linked file is read where an imported
 * dataset is read with better-sqlite3: inside the release's `execute` (after its charge), which is synchronous.
 *
 * DuckDB's Node API is promise-based; it runs here in one dedicated worker thread behind a blocking call (the bridge
 * in `sync-worker.ts`, shared with PostgreSQL). Only aggregates come back (the SQL the dialect layer builds), so
 * results are small. Values come back as better-sqlite3 gives them: integers as numbers
 * (BIGINT and HUGEINT converted), text as strings, NULL as null; or, for many rows of numbers, as one Float64Array per
 * column (`duckNumbers`).
 *
 * The worker's code is a small CommonJS string (no bundling needed) that requires the package by its resolved path.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { type PendingCall, syncWorker } from '../platform/sync-worker'

export type DuckParam = number | string | null

const WORKER_CODE = `
const { workerData } = require('node:worker_threads')
let duck = null
let loadError = null
try {
  duck = require(workerData.api)
} catch (e) {
  loadError = e
}
let conn = null
async function connection() {
  if (loadError) throw loadError
  if (conn) return conn
  const inst = await duck.DuckDBInstance.create(':memory:', {
    threads: String(workerData.threads),
    memory_limit: workerData.memoryLimit,
    temp_directory: workerData.tempDirectory,
    // Its cache of file blocks is checked against a file's modification time (seconds) and size only: a linked file
    // rewritten in place keeping both would be read partly as it was, by the whole-read check as by a release.
    enable_external_file_cache: 'false'
  })
  conn = await inst.connect()
  return conn
}
function plain(v) {
  if (typeof v === 'bigint') return Number(v)
  if (v === null || v === undefined) return null
  if (typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean') return v
  if (typeof v === 'object' && typeof v.toDouble === 'function') return v.toDouble()
  return String(v)
}
async function numbers(c, sql, params) {
  const result = await c.run(sql, params.length ? params : undefined)
  const chunks = []
  let n = 0
  for (;;) {
    const chunk = await result.fetchChunk()
    if (!chunk || chunk.rowCount === 0) break
    chunks.push(chunk)
    n += chunk.rowCount
  }
  const columns = Array.from({ length: result.columnCount }, () => new Float64Array(n))
  let at = 0
  for (const chunk of chunks) {
    const rows = chunk.rowCount
    columns.forEach((out, j) => {
      const v = chunk.getColumnVector(j)
      // A DOUBLE vector without NULLs: its values as they are, copied in one step. A fetched chunk's vectors are flat and
      // as long as the chunk (DuckDB's QueryResult::Fetch flattens constant and dictionary vectors; the node API reads
      // rowCount items on either path), and a vector holding a NULL has a validity mask.
      if (v.items instanceof Float64Array && v.validity && v.validity.data === null && v.items.length === rows) {
        out.set(v.items, at)
        return
      }
      for (let r = 0; r < rows; r++) {
        const x = v.getItem(r)
        out[at + r] = x === null ? NaN : Number(x)
      }
    })
    at += rows
  }
  return { columns }
}
async function append(c, table, values) {
  // Temporary tables live in the catalog "temp", schema "main". One DOUBLE column, filled a vector at a time.
  const appender = await c.createAppender(table, 'main', 'temp')
  try {
    for (let at = 0; at < values.length; at += 2048) {
      const n = Math.min(2048, values.length - at)
      const chunk = duck.DuckDBDataChunk.create([duck.DOUBLE], n)
      const v = chunk.getColumnVector(0)
      v.items.set(values.subarray(at, at + n))
      v.flush()
      appender.appendDataChunk(chunk)
    }
    appender.flushSync()
  } finally {
    appender.closeSync()
  }
  return { appended: values.length }
}
async function handle({ sql, params, asNumbers, appendTo, values }) {
  // DuckDB works on its own threads: this thread's heartbeat keeps moving meanwhile. An append runs on this thread (its
  // calls are synchronous) for at most duckdb-truncation.ts's PAIRS_PER_WRITE numbers: far within the stall time.
  const c = await connection()
  if (appendTo) return append(c, appendTo, values)
  if (asNumbers) return numbers(c, sql, params)
  const reader = await c.runAndReadAll(sql, params.length ? params : undefined)
  const rows = reader.getRows().map((r) => r.map(plain))
  return { rows, columns: reader.columnNames(), types: reader.columnTypes().map((t) => t.toString()) }
}
`

export interface DuckResult {
  rows: unknown[][]
  columns: string[]
  types: string[]
}

/** A DuckDB error (the file unreadable, a type changed...): its message comes from DuckDB and may quote the file's contents. */
export class DuckDbError extends Error {}

/**
 * DuckDB's memory limit: QA_DUCKDB_MEMORY_LIMIT (DuckDB's syntax, e.g. "4GB"), default 1.5GB. Beyond it DuckDB spills
 * to disk (sorts, hash tables, windows) instead of growing: its own default, 80% of the machine's memory, is too much
 * for a desktop app beside others. The maxGroups query over 10^8 rows (sources-large.bench.ts) runs out of memory at
 * 1GB (what it cannot spill) and peaks at 1.6 GB resident with 1.5GB.
 */
export function duckMemoryLimit(): string {
  const v = process.env.QA_DUCKDB_MEMORY_LIMIT
  return v && /^\d+(\.\d+)?\s*(KB|MB|GB|TB|KiB|MiB|GiB|TiB)$/i.test(v.trim()) ? v.trim() : '1.5GB'
}

/**
 * Where DuckDB spills what does not fit its memory limit (an in-memory database would otherwise spill into the working
 * directory): rows of linked files, persons' values among them. A folder of this account only, made afresh for each
 * DuckDB worker (mkdtemp: mode 0700, a name no other account can guess or create first; DuckDB's spill files inside it
 * take the umask's mode), removed when DuckDB is closed and when the process exits.
 */
let spillDir: string | null = null

function freshSpillDir(): string {
  removeSpillDir()
  spillDir = mkdtempSync(join(tmpdir(), 'qa-duckdb-'))
  return spillDir
}

function removeSpillDir(): void {
  if (spillDir !== null) rmSync(spillDir, { recursive: true, force: true })
  spillDir = null
}

process.on('exit', removeSpillDir)

const duck = syncWorker({
  code: WORKER_CODE,
  workerData: () => ({
    api: createRequire(import.meta.url).resolve('@duckdb/node-api'),
    threads: Math.max(1, Math.min(16, availableParallelism())),
    memoryLimit: duckMemoryLimit(),
    tempDirectory: freshSpillDir()
  }),
  // How long the worker may be silent (no heartbeat) before a call gives up on it.
  stallMs: 30_000,
  stalled: (what) => new DuckDbError(`DuckDB ${what}`),
  failed: (message) => new DuckDbError(message)
})

/** Runs one statement in DuckDB and waits for its rows (blocking the calling thread). Parameters bind to `?` in order. */
export function duckAll(sql: string, params: DuckParam[] = []): DuckResult {
  return duck.call<DuckResult>({ sql, params })
}

/** Starts one statement in DuckDB and returns at once: `wait()` takes its rows (or throws as `duckAll` would). */
export function duckBegin(sql: string, params: DuckParam[] = []): PendingCall<DuckResult> {
  return duck.begin<DuckResult>({ sql, params })
}

/**
 * Runs one statement whose columns are numbers and returns them column by column, each value as Number() gives it
 * (NULL as NaN): for many rows of numbers, read without building a JavaScript value per cell. Exact for whole numbers
 * up to 2^53 in magnitude (a DOUBLE, or an integer type within that range).
 */
export function duckNumbers(sql: string, params: DuckParam[] = []): Float64Array[] {
  return duck.call<{ columns: Float64Array[] }>({ sql, params, asNumbers: true }).columns
}

/**
 * Appends `values` as the rows of `table`, a temporary table of one DOUBLE column (DuckDB's appender, a vector at a
 * time): for many numbers, written without a statement's text. `table` is an identifier this program chose.
 */
export function duckAppendNumbers(table: string, values: Float64Array): void {
  if (!/^[a-z_][a-z0-9_]*$/.test(table)) throw new Error('a temporary table of this program')
  duck.call<{ appended: number }>({ appendTo: table, values })
}

/** Stops the worker (tests, shutdown). The next call starts a new one. */
export async function closeDuckDb(): Promise<void> {
  await duck.close()
  removeSpillDir()
}

/** A string as a DuckDB SQL literal (file paths in `read_parquet('...')`, which cannot be bound parameters). */
export function duckString(s: string): string {
  if (s.includes('\u0000')) throw new Error('a NUL byte in a DuckDB string literal')
  return `'${s.replace(/'/g, "''")}'`
}
