/**
 * ClickHouse (the official `@clickhouse/client`, over HTTP) behind a synchronous call, so that a linked ClickHouse table
 * is read where an imported dataset is read with better-sqlite3: inside the release's `execute` (after its charge).
 *
 * The client runs in one dedicated worker thread (`sync-worker.ts`, the bridge DuckDB and PostgreSQL use), one client
 * per connection (URL without password + password); its own logging is off (it would print the server's message,
 * which may quote rows). Every call is one SELECT with the session's settings: `readonly = 1` where the server's user
 * may still change settings (a user already read-only with readonly = 2 keeps its mode; one with readonly = 1 cannot
 * take the execution-time limit and is refused when linked), `max_execution_time` with `timeout_overflow_mode =
 * throw`, `skip_unavailable_shards = 0` (a missing shard is a failure, never a silently smaller answer), and JSON
 * output with 64-bit integers as numbers (the dialect reads only integers that are exact JS numbers) and non-finite
 * floats as the strings inf, -inf, nan (converted back here).
 *
 * What a server supports is asked once per connection (`chCapabilities`): query parameters (`{name:Type}`, from
 * ClickHouse 19; Debian's 18.16 has none) and whether the user may set `readonly`. Errors: `ChError` carries
 * ClickHouse's numeric code (as "CH<code>") or the network error's code, and the server's message, which may quote
 * rows: callers turn it into their own sentence (`chFailureKind`) and never show the message.
 */
import { createRequire } from 'node:module'
import { SyncWorkerError, syncWorker } from '../platform/sync-worker'

/** A connection: the URL WITHOUT a password (user in it), and the password (from the environment at use, never stored). */
export interface ChConnection {
  url: string
  password?: string
}

export interface ChResult {
  rows: unknown[][]
  columns: string[]
  types: string[]
}

export interface ChCapabilities {
  version: string
  /** `{name:Type}` query parameters (ClickHouse 19 and later). */
  queryParameters: boolean
  /** The user may set `readonly = 1` (its profile is not read-only already). */
  setsReadonly: boolean
}

const WORKER_CODE = `
const { workerData } = require('node:worker_threads')
const ch = require(workerData.client)
const clients = new Map()
function clientFor(conn) {
  const key = conn.url + '\\u0000' + (conn.password === undefined ? '' : conn.password)
  const had = clients.get(key)
  if (had) return had
  const u = new URL(conn.url)
  const c = ch.createClient({
    url: u.protocol + '//' + u.host,
    pathname: u.pathname === '/' ? '' : u.pathname,
    username: u.username ? decodeURIComponent(u.username) : 'default',
    password: conn.password === undefined ? '' : conn.password,
    application: 'quiet-alarm',
    // The per-query limit is the abort signal below (and the server's max_execution_time).
    request_timeout: 2147483647,
    max_open_connections: 4,
    compression: { request: false, response: false },
    log: { level: ch.ClickHouseLogLevel.OFF },
    use_multipart_params_auto: true
  })
  clients.set(key, c)
  return c
}
// ClickHouse's code from its message ("Code: 60, e.displayText() = ..." before 19, "Code: 60. DB::Exception: ..." after).
function codeOf(e) {
  const m = /Code: (\\d+)[.,]/.exec(String(e && e.message))
  if (m) return 'CH' + m[1]
  if (e && typeof e.code === 'string' && /^\\d+$/.test(e.code)) return 'CH' + e.code
  if (e && e.name === 'AbortError') return 'ABORTED'
  if (e && typeof e.code === 'string') return e.code
  if (/timeout/i.test(String(e && e.message))) return 'ETIMEDOUT'
  return null
}
const NON_FINITE = { inf: Infinity, '+inf': Infinity, '-inf': -Infinity, nan: NaN, '-nan': NaN, '+nan': NaN }
function value(v, type) {
  if (typeof v === 'string' && /Float|Decimal/.test(type) && v in NON_FINITE) return NON_FINITE[v]
  return v
}
async function handle({ conn, sql, queryParams, settings, timeoutMs }) {
  const c = clientFor(conn)
  try {
    const rs = await c.query({
      query: sql,
      format: 'JSONCompact',
      query_params: queryParams,
      clickhouse_settings: settings,
      abort_signal: AbortSignal.timeout(timeoutMs)
    })
    const j = await rs.json()
    const types = j.meta.map((m) => m.type)
    return { columns: j.meta.map((m) => m.name), types, rows: j.data.map((r) => r.map((v, i) => value(v, types[i]))) }
  } catch (e) {
    const err = new Error(String(e && e.message ? e.message : e))
    err.code = codeOf(e)
    // A connection that failed at the socket is dropped (a new client next time).
    if (!/^CH/.test(err.code || '')) {
      clients.delete(conn.url + '\\u0000' + (conn.password === undefined ? '' : conn.password))
      c.close().catch(() => {})
    }
    throw err
  }
}
`

/** A ClickHouse failure: `code` is "CH<number>" (ClickHouse's error code) or the network error's code; the message may quote data (never shown). */
export class ChError extends SyncWorkerError {}

/** The default execution-time limit of one aggregate (ms); `QA_CH_EXECUTION_TIMEOUT_MS` overrides it. */
export const DEFAULT_EXECUTION_TIMEOUT_MS = 5 * 60_000

export function executionTimeoutMs(): number {
  const v = Number(process.env.QA_CH_EXECUTION_TIMEOUT_MS)
  return Number.isSafeInteger(v) && v >= 1000 ? v : DEFAULT_EXECUTION_TIMEOUT_MS
}

const chWorker = syncWorker({
  code: WORKER_CODE,
  workerData: () => ({ client: createRequire(import.meta.url).resolve('@clickhouse/client') }),
  // The worker's event loop is free while ClickHouse works, so its heartbeat keeps moving: only a dead worker stalls.
  stallMs: 30_000,
  stalled: (what) => new ChError(`the ClickHouse client ${what}`, 'worker-stalled'),
  failed: (message, code) => new ChError(message, code)
})

/** The session settings of every statement (see the file comment). */
function sessionSettings(caps: ChCapabilities | null, timeoutMs: number): Record<string, string> {
  return {
    ...(caps === null || caps.setsReadonly ? { readonly: '1' } : {}),
    max_execution_time: String(Math.max(1, Math.ceil(timeoutMs / 1000))),
    timeout_overflow_mode: 'throw',
    skip_unavailable_shards: '0',
    output_format_json_quote_64bit_integers: '0',
    output_format_json_quote_denormals: '1'
  }
}

function run(
  conn: ChConnection,
  sql: string,
  queryParams: Record<string, string | number> | undefined,
  settings: Record<string, string>,
  timeoutMs: number
) {
  // The client gives up a little after the server's limit (a silent network).
  return chWorker.call<ChResult>({ conn, sql, queryParams, settings, timeoutMs: timeoutMs + 15_000 })
}

const capabilities = new Map<string, ChCapabilities>()
const capabilityKey = (conn: ChConnection) => `${conn.url}\u0000${conn.password ?? ''}`

/** Whether a failure says the server rejected a setting because the user is read-only. */
function readonlyRefusal(e: unknown): boolean {
  return e instanceof ChError && e.code === 'CH164'
}

/**
 * What the server and its user support, asked once per connection: the version, query parameters (a probe with one
 * parameter: 18.16 answers "Unknown setting param_..."), and whether `readonly = 1` may be set. Throws a `ChError`
 * (unreachable, login refused, a user with readonly = 1: code "readonly-user").
 */
export function chCapabilities(conn: ChConnection): ChCapabilities {
  const key = capabilityKey(conn)
  const had = capabilities.get(key)
  if (had) return had
  const ms = 30_000
  let setsReadonly = true
  let version: string
  try {
    version = String(run(conn, 'SELECT version()', undefined, sessionSettings(null, ms), ms).rows[0][0])
  } catch (e) {
    if (!readonlyRefusal(e)) throw e
    setsReadonly = false
    try {
      version = String(
        run(conn, 'SELECT version()', undefined, sessionSettings({ version: '', queryParameters: false, setsReadonly }, ms), ms).rows[0][0]
      )
    } catch (e2) {
      if (readonlyRefusal(e2)) throw new ChError('the user is read-only with readonly = 1', 'readonly-user')
      throw e2
    }
  }
  const base: ChCapabilities = { version, queryParameters: false, setsReadonly }
  let queryParameters = false
  try {
    queryParameters = Number(run(conn, 'SELECT {qa_probe:UInt8}', { qa_probe: 7 }, sessionSettings(base, ms), ms).rows[0][0]) === 7
  } catch (e) {
    // An old server rejects the parameter (code 115, unknown setting param_qa_probe) or the syntax (62): no parameters.
    if (!(e instanceof ChError) || !/^CH/.test(e.code ?? '')) throw e
  }
  const caps = { ...base, queryParameters }
  capabilities.set(key, caps)
  return caps
}

/**
 * Runs one SELECT (its values already bound: `bindClickHouse` in dialect-clickhouse.ts) with the session settings and
 * `extra` ones, and waits for its rows (blocking the calling thread).
 */
export function chAll(
  conn: ChConnection,
  sql: string,
  queryParams: Record<string, string | number> | undefined,
  extra: Record<string, string> = {},
  timeoutMs = executionTimeoutMs()
): ChResult {
  const caps = chCapabilities(conn)
  return run(conn, sql, queryParams, { ...sessionSettings(caps, timeoutMs), ...extra }, timeoutMs)
}

/** Forgets what was learnt about the servers (a server replaced by another version answers at its next use). */
export function forgetClickHouseCapabilities(): void {
  capabilities.clear()
}

/** Stops the worker and its clients (tests, shutdown). The next call starts a new one. */
export function closeClickHouse(): Promise<void> {
  capabilities.clear()
  return chWorker.close()
}

export type ChFailureKind =
  | 'unreachable'
  | 'auth'
  | 'permission'
  | 'no-table'
  | 'no-database'
  | 'no-column'
  | 'timeout'
  | 'readonly-user'
  | 'shard-unreachable'
  | 'resources'
  | 'data'
  | 'other'

const CODE_KINDS: Record<string, ChFailureKind> = {
  CH192: 'auth',
  CH193: 'auth',
  CH194: 'auth',
  CH516: 'auth',
  CH497: 'permission',
  CH291: 'permission',
  CH60: 'no-table',
  CH81: 'no-database',
  CH47: 'no-column',
  CH16: 'no-column',
  CH159: 'timeout',
  CH394: 'timeout',
  CH164: 'readonly-user',
  CH279: 'shard-unreachable',
  CH210: 'shard-unreachable',
  CH209: 'shard-unreachable',
  CH519: 'shard-unreachable',
  CH32: 'shard-unreachable',
  CH241: 'resources',
  CH173: 'resources',
  CH202: 'resources',
  CH6: 'data',
  CH27: 'data',
  CH53: 'data',
  CH69: 'data',
  CH70: 'data',
  CH72: 'data',
  CH43: 'data'
}

/** What went wrong, from the error's code only (its message may quote data). */
export function chFailureKind(e: unknown): ChFailureKind {
  const code = e instanceof ChError ? e.code : null
  if (code === 'readonly-user') return 'readonly-user'
  if (code === 'ABORTED' || code === 'ETIMEDOUT') return 'timeout'
  if (code !== null && code in CODE_KINDS) return CODE_KINDS[code]
  if (code === null || !/^CH\d+$/.test(code)) return 'unreachable'
  return 'other'
}
