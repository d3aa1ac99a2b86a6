/**
 * DuckDB (`@duckdb/node-api`, in-process) behind a synchronous call, so that a linked file is read where an imported
 * dataset is read with better-sqlite3: inside the release's `execute` (after its charge), which is synchronous.
 *
 * DuckDB's Node API is promise-based; it runs here in one dedicated worker thread (started on first use, unref'd so it
 * never keeps the process alive). A call posts the SQL and its bound parameters, then blocks on `Atomics.wait` until
 * the worker has posted the result, which is taken with `receiveMessageOnPort`. Only aggregates come back (the SQL the
 * dialect layer builds), so results are small. Values come back as better-sqlite3 gives them: integers as numbers
 * (BIGINT and HUGEINT converted), text as strings, NULL as null.
 *
 * The worker's code is a small CommonJS string (no bundling needed) that requires the package by its resolved path.
 */
import { createRequire } from 'node:module'
import { availableParallelism } from 'node:os'
import { MessageChannel, type MessagePort, Worker, receiveMessageOnPort } from 'node:worker_threads'

export type DuckParam = number | string | null

const WORKER_CODE = `
const { parentPort, workerData } = require('node:worker_threads')
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
  const inst = await duck.DuckDBInstance.create(':memory:', { threads: String(workerData.threads) })
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
parentPort.on('message', async ({ port, flag, sql, params }) => {
  let msg
  // Heartbeat: the caller blocks on flag[0]; flag[1] moves while this thread is alive (DuckDB works on its own threads).
  const beat = setInterval(() => Atomics.add(flag, 1, 1), 200)
  try {
    const c = await connection()
    const reader = await c.runAndReadAll(sql, params.length ? params : undefined)
    const rows = reader.getRows().map((r) => r.map(plain))
    msg = { ok: true, rows, columns: reader.columnNames(), types: reader.columnTypes().map((t) => t.toString()) }
  } catch (e) {
    msg = { ok: false, error: String(e && e.message ? e.message : e) }
  }
  clearInterval(beat)
  port.postMessage(msg)
  port.close()
  Atomics.store(flag, 0, 1)
  Atomics.notify(flag, 0)
})
`

export interface DuckResult {
  rows: unknown[][]
  columns: string[]
  types: string[]
}

/** A DuckDB error (the file unreadable, a type changed...): its message comes from DuckDB and may quote the file's contents. */
export class DuckDbError extends Error {}

let worker: Worker | null = null

/** How long the worker may be silent (no heartbeat) before a call gives up on it. */
const STALL_MS = 30_000

function getWorker(): Worker {
  if (worker) return worker
  const req = createRequire(import.meta.url)
  const api = req.resolve('@duckdb/node-api')
  const threads = Math.max(1, Math.min(16, availableParallelism()))
  worker = new Worker(WORKER_CODE, { eval: true, workerData: { api, threads } })
  worker.unref()
  worker.on('error', () => (worker = null))
  worker.on('exit', () => (worker = null))
  return worker
}

/** Runs one statement in DuckDB and waits for its rows (blocking the calling thread). Parameters bind to `?` in order. */
export function duckAll(sql: string, params: DuckParam[] = []): DuckResult {
  const w = getWorker()
  const { port1, port2 } = new MessageChannel()
  const flag = new Int32Array(new SharedArrayBuffer(8))
  w.postMessage({ port: port2, flag, sql, params }, [port2 as unknown as MessagePort])
  // The worker's events cannot reach this thread while it waits: a worker that died is seen by its silent heartbeat.
  let beat = -1
  let quietSince = Date.now()
  while (Atomics.load(flag, 0) === 0) {
    Atomics.wait(flag, 0, 0, 1000)
    const now = Atomics.load(flag, 1)
    if (now !== beat) {
      beat = now
      quietSince = Date.now()
    } else if (Date.now() - quietSince > STALL_MS) {
      port1.close()
      void w.terminate()
      worker = null
      throw new DuckDbError('DuckDB stopped answering')
    }
  }
  const got = receiveMessageOnPort(port1)
  port1.close()
  if (!got) throw new DuckDbError('DuckDB gave no answer')
  const m = got.message as { ok: true; rows: unknown[][]; columns: string[]; types: string[] } | { ok: false; error: string }
  if (!m.ok) throw new DuckDbError(m.error)
  return { rows: m.rows, columns: m.columns, types: m.types }
}

/** Stops the worker (tests, shutdown). The next call starts a new one. */
export async function closeDuckDb(): Promise<void> {
  const w = worker
  worker = null
  if (w) await w.terminate()
}

/** A string as a DuckDB SQL literal (file paths in `read_parquet('...')`, which cannot be bound parameters). */
export function duckString(s: string): string {
  if (s.includes('\u0000')) throw new Error('a NUL byte in a DuckDB string literal')
  return `'${s.replace(/'/g, "''")}'`
}
