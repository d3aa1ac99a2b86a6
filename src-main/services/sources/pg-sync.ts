/**
 * PostgreSQL (`pg`, node-postgres) behind a synchronous call, so that a linked PostgreSQL table is read
 * where an imported dataset is read with better-sqlite3: inside the release's `execute` (after its charge).
 *
 * node-postgres is promise-based; it runs in one dedicated worker thread behind a blocking call (`sync-worker.ts`, the
 * bridge DuckDB uses too). The worker keeps one client per connection (URL without password + password). Every call is
 * one statement in its own READ ONLY transaction with `SET LOCAL statement_timeout`, so a release can neither write
 * nor run unbounded. Values come back as better-sqlite3 gives them: integers, numerics and floats as numbers (the
 * dialect only reads integers that are exact JS numbers), text as strings, NULL as null.
 *
 * Errors: `PgError` carries the SQLSTATE (or the network error code) and the driver's message, which may quote row
 * values, so callers turn it into their own sentence (`pgFailureKind`) and never show the message.
 */
import { createRequire } from 'node:module'
import { SyncWorkerError, syncWorker } from '../platform/sync-worker'

export type PgParam = number | string | null

/** A connection: the URL WITHOUT a password, and the password (from the environment at use, never stored). */
export interface PgConnection {
  url: string
  password?: string
}

export interface PgResult {
  rows: unknown[][]
  columns: string[]
}

const WORKER_CODE = `
const { workerData } = require('node:worker_threads')
const pg = require(workerData.pg)
const parseUrl = require(workerData.pgcs).parse
const NUM = (v) => (v === null ? null : Number(v))
// int8, int2, int4, numeric, float4, float8 -> number (counts and sums are int8/numeric in PostgreSQL).
const NUMERIC_OIDS = new Set([20, 21, 23, 1700, 700, 701])
const types = { getTypeParser: (oid, format) => (NUMERIC_OIDS.has(oid) ? NUM : pg.types.getTypeParser(oid, format)) }
const clients = new Map()
function drop(key) {
  const c = clients.get(key)
  clients.delete(key)
  if (c) c.end().catch(() => {})
}
async function client(conn) {
  const key = conn.url + '\\u0000' + (conn.password === undefined ? '' : conn.password)
  const had = clients.get(key)
  if (had) return { c: had, key, fresh: false }
  // The URL is parsed here (not passed as connectionString, whose empty password would override the given one).
  const cfg = parseUrl(conn.url)
  delete cfg.password
  if (conn.password !== undefined) cfg.password = conn.password
  const c = new pg.Client({ ...cfg, connectionTimeoutMillis: workerData.connectMs, application_name: 'quiet-alarm', types })
  // A lost connection is reported on the next call; never crash the worker.
  c.on('error', () => clients.get(key) === c && drop(key))
  await c.connect()
  clients.set(key, c)
  return { c, key, fresh: true }
}
// A connection-class failure: no SQLSTATE (a socket error, a client timeout), class 08, or the server shutting down.
const lostConnection = (e) => !(e && typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) || /^(08|57P0)/.test(e.code)
async function run(c, key, { sql, params, timeoutMs }) {
  const ms = Math.max(1, Math.floor(timeoutMs))
  try {
    await c.query('BEGIN READ ONLY')
    await c.query('SET LOCAL statement_timeout = ' + ms)
    // The server stops the statement at the timeout; the client gives up a little later (a silent network).
    const r = await c.query({ text: sql, values: params, rowMode: 'array', query_timeout: ms + 15000 })
    await c.query('COMMIT')
    return { rows: r.rows, columns: r.fields.map((f) => f.name) }
  } catch (e) {
    if (lostConnection(e)) drop(key)
    else {
      try {
        await c.query('ROLLBACK')
      } catch {
        drop(key)
      }
    }
    throw e
  }
}
async function handle(request) {
  const { c, key, fresh } = await client(request.conn)
  try {
    return await run(c, key, request)
  } catch (e) {
    // A kept connection that went away meanwhile (server restarted, idle connection cut): one new connection, once.
    // Safe to repeat: every statement is read-only.
    if (fresh || !lostConnection(e)) throw e
    const again = await client(request.conn)
    return await run(again.c, again.key, request)
  }
}
`

/** A PostgreSQL failure: `code` is the SQLSTATE or the network error's code; the message may quote data (never shown). */
export class PgError extends SyncWorkerError {}

/** The default statement timeout of one aggregate (ms); `QA_PG_STATEMENT_TIMEOUT_MS` overrides it. */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 5 * 60_000

export function statementTimeoutMs(): number {
  const v = Number(process.env.QA_PG_STATEMENT_TIMEOUT_MS)
  return Number.isSafeInteger(v) && v >= 1 ? v : DEFAULT_STATEMENT_TIMEOUT_MS
}

const pgWorker = syncWorker({
  code: WORKER_CODE,
  workerData: () => {
    const pg = createRequire(import.meta.url).resolve('pg')
    // pg's own URL parser (its dependency), resolved from pg.
    return { pg, pgcs: createRequire(pg).resolve('pg-connection-string'), connectMs: 10_000 }
  },
  // The worker's event loop is free while PostgreSQL works, so its heartbeat keeps moving: only a dead worker stalls.
  stallMs: 30_000,
  stalled: (what) => new PgError(`the PostgreSQL client ${what}`, 'worker-stalled'),
  failed: (message, code) => new PgError(message, code)
})

/** Runs one statement (parameters `$1..`) in a READ ONLY transaction with a statement timeout, and waits for its rows. */
export function pgAll(conn: PgConnection, sql: string, params: PgParam[] = [], timeoutMs = statementTimeoutMs()): PgResult {
  return pgWorker.call<PgResult>({ conn, sql, params, timeoutMs })
}

/** Stops the worker and its connections (tests, shutdown). The next call starts a new one. */
export function closePg(): Promise<void> {
  return pgWorker.close()
}

export type PgFailureKind = 'unreachable' | 'auth' | 'permission' | 'no-relation' | 'no-column' | 'timeout' | 'data' | 'no-database' | 'other'

/** What went wrong, from the error's code only (its message may quote data). */
export function pgFailureKind(e: unknown): PgFailureKind {
  const code = e instanceof PgError ? e.code : null
  const msg = e instanceof Error ? e.message : ''
  if (code === '28P01' || code === '28000' || /\bpassword\b|SASL/i.test(msg)) return 'auth'
  if (code === '42501') return 'permission'
  if (code === '42P01') return 'no-relation'
  if (code === '42703') return 'no-column'
  if (code === '57014') return 'timeout'
  if (code === '3D000') return 'no-database'
  if (code !== null && /^22/.test(code)) return 'data'
  if (code === null || !/^[0-9A-Z]{5}$/.test(code) || /^(08|57P|53)/.test(code)) return 'unreachable'
  return 'other'
}

/** `?` placeholders (outside quoted strings and identifiers) as PostgreSQL's `$1, $2, ...`. */
export function numberedParams(sql: string): string {
  let out = ''
  let n = 0
  let quote: string | null = null
  for (const ch of sql) {
    if (quote) {
      if (ch === quote) quote = null
    } else if (ch === "'" || ch === '"') {
      quote = ch
    } else if (ch === '?') {
      out += `$${++n}`
      continue
    }
    out += ch
  }
  return out
}
