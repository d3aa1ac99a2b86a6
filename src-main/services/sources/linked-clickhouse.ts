/**
 * Linked ClickHouse tables: a table of the organisation's ClickHouse that stores its rows, local (the MergeTree or
 * Log family, Memory) or `Distributed` over such tables on shards, registered in the catalog and queried where it
 * lives; only aggregates come back. The read path (the link as signed, the checks before a charge, the sentences);
 * linking is datasets/link-clickhouse.ts.
 *
 * - The connection is an HTTP(S) URL WITHOUT a password (user in it; one with a password is refused) and, optionally,
 *   the name of the environment variable holding the password (default CLICKHOUSE_PASSWORD). The password is read
 *   from the environment at each use and goes to the ClickHouse worker only: never into the workspace, the ledger,
 *   logs or sentences.
 * - Every statement is read-only and time-limited (clickhouse-sync.ts).
 * - Linking is an officer act: the officer signs what the link is (URL, password variable, database.table, its engine,
 *   declared columns, unit; link-signature.ts), and every use checks the stored link against the signature before
 *   it connects (the password goes to the URL's host).
 * - Linking reads the table's declared schema (system.tables, system.columns), never its rows. A table whose values are
 *   computed when read (a View, ALIAS columns, DEFAULT or MATERIALIZED columns computed from other columns: `computedAtRead`) is refused when linked and before every charge.
 *
 * Sharding (soundness of the per-person stage): a query whose level reading the table groups by the person
 * (`Sql.perPerson`) is exact when each group holds all of a person's rows. On a Distributed table ClickHouse by
 * default sends that level to the shards and MERGES their partial groups on the initiator: exact. With
 * `distributed_group_by_no_merge = 1` each shard finishes the level itself and the initiator only concatenates: less
 * work and traffic, but exact only if no person's rows lie on two shards. That holds when the table's sharding key is
 * a deterministic function of the person column alone (`shardingMode`, read from system.tables.engine_full before
 * every charge and before every per-person query); with any other key (`rand()`, another column, none) the merge is
 * kept. A table sharded by `rand()` read per shard counts a person once per shard: its cap and maxGroups multiplied
 * (the test shows it). The rule assumes rows reach the shards through the Distributed table (its sharding key);
 * rows written into a shard's local table directly are the deployment's to keep consistent (README).
 */
import type Database from 'better-sqlite3'
import { UserError } from '../platform/errors'
import type { StoredValue } from '../catalog/column-types'
import { type ChSchemaColumn, type LinkedChTable, bindClickHouse, chRelation, chString } from './dialect-clickhouse'
import {
  type ChConnection,
  ChError,
  type ChResult,
  chAll,
  chCapabilities,
  chFailureKind,
  executionTimeoutMs,
  forgetClickHouseCapabilities
} from './clickhouse-sync'
import { linkFactsSignedByOfficer, uidFact } from '../trust/link-signature'
import { catalogIsSigned, checkDoorHosts, checkPasswordVariable, connectionWithPassword, durationText, schemaChange } from './warehouse-link'

export interface LinkedClickHouseRecord extends LinkedChTable {
  datasetId: number
  /** The dataset's uid as signed (null: linked before datasets had one). */
  datasetUid: string | null
  datasetName: string
  /** The connection URL, without a password. */
  url: string
  /** The environment variable holding the password (null: CLICKHOUSE_PASSWORD). */
  passwordEnv: string | null
  /** The person column of the dataset's unit (null: row-level), as signed. */
  personColumn: string | null
}

/** How a per-person level runs on the table: one server, per shard (sharded by the person), or merged on the initiator. */
export type ShardingMode = 'local' | 'per-shard' | 'merge'

export interface ChFingerprint {
  engine: 'clickhouse'
  /** database.table */
  table: string
  tableEngine: string
  sharding: ShardingMode
  /** The server's version (the initiator's). */
  version: string
  /** system.tables.total_rows where the server keeps it (not 18.16, nor a Distributed table), else null. */
  rowEstimate: number | null
}

/** The facts the officer signs (link-signature.ts, kind 'clickhouse'): everything a use of the link reads from the workspace. */
export function clickhouseLinkFacts(l: Omit<LinkedClickHouseRecord, 'datasetName'>): Record<string, unknown> {
  return {
    datasetId: l.datasetId,
    ...uidFact(l.datasetUid),
    url: l.url,
    passwordEnv: l.passwordEnv,
    database: l.database,
    table: l.table,
    engine: l.engine,
    columns: l.columns.map((c) => ({ name: c.name, chType: c.chType, type: c.type })),
    personColumn: l.personColumn
  }
}

interface SourceRow {
  url: string
  password_env: string | null
  database_name: string
  table_name: string
  table_engine: string
  columns: string
  signer: string | null
  signature: string | null
  name: string
  uid: string | null
  person_column: string | null
}

/**
 * The linked ClickHouse table of a dataset, or null. Every use goes through here: the stored link must be exactly what
 * a privacy officer signed (URL, password variable, table, engine, columns, and the dataset's catalog columns and unit),
 * otherwise one sentence and no connection is made.
 */
export function linkedClickHouseOf(db: Database.Database, datasetId: number): LinkedClickHouseRecord | null {
  const row = db
    .prepare(
      `SELECT s.url, s.password_env, s.database_name, s.table_name, s.table_engine, s.columns, s.signer, s.signature, d.name, d.uid, u.person_column
         FROM dataset_clickhouse_sources s JOIN datasets d ON d.id = s.dataset_id LEFT JOIN dataset_units u ON u.dataset_id = s.dataset_id
        WHERE s.dataset_id = ?`
    )
    .get(datasetId) as SourceRow | undefined
  if (!row) return null
  const unsigned = () =>
    new UserError(
      `The ClickHouse link of dataset "${row.name}" is not the one a privacy officer signed (its connection, table, columns or unit were changed in the workspace file); ask the officer to link it again. Nothing was charged.`,
      'source-changed'
    )
  let columns: ChSchemaColumn[]
  try {
    columns = JSON.parse(row.columns) as ChSchemaColumn[]
    if (!Array.isArray(columns)) throw new Error('columns')
  } catch {
    throw unsigned()
  }
  const rec: LinkedClickHouseRecord = {
    datasetId,
    datasetUid: row.uid,
    datasetName: row.name,
    url: row.url,
    passwordEnv: row.password_env,
    database: row.database_name,
    table: row.table_name,
    engine: row.table_engine,
    columns,
    personColumn: row.person_column
  }
  const signed =
    catalogIsSigned(db, datasetId, columns) && linkFactsSignedByOfficer(db, 'clickhouse', clickhouseLinkFacts(rec), row.signer, row.signature)
  if (!signed) throw unsigned()
  return rec
}

// ---------------------------------------------------------------------------------------------------------------
// Connections

/**
 * Checks a connection URL: http:// or https://, a host, no password (user:password@), no query or fragment (a
 * `?password=` or settings would travel with every request). The sentence never repeats the URL.
 */
export function checkClickHouseUrl(url: unknown): string {
  const shape = 'The ClickHouse connection must be an HTTP URL like http://reader@clickhouse.example:8123 (https:// for TLS)'
  if (typeof url !== 'string' || url.length > 2000) throw new UserError(shape, 'bad-input')
  const u = url.trim()
  let parsed: URL
  try {
    parsed = new URL(u)
  } catch {
    throw new UserError(shape, 'bad-input')
  }
  if ((parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.hostname === '') throw new UserError(shape, 'bad-input')
  if (parsed.password !== '' || /^[a-z]+:\/\/[^/@]*:[^/@]*@/i.test(u)) {
    throw new UserError(
      'The ClickHouse URL contains a password; give the URL without it and put the password in the CLICKHOUSE_PASSWORD environment variable (or the variable named by --password-env)',
      'bad-input'
    )
  }
  if (parsed.search !== '' || parsed.hash !== '' || /[?#]/.test(u)) {
    throw new UserError('The ClickHouse URL must not carry a query (?...) or a fragment (#...): give the server and the user only', 'bad-input')
  }
  return u
}

/**
 * The name of the environment variable holding the password. It must end in CLICKHOUSE_PASSWORD (e.g.
 * HR_CLICKHOUSE_PASSWORD): a connection can only ever be given a variable meant for ClickHouse, never another secret.
 */
export function checkClickHousePasswordEnv(name: unknown): string | null {
  return checkPasswordVariable(name, 'CLICKHOUSE_PASSWORD')
}

/** The door's host check (warehouse-link.ts) over the URL's host; the list of other allowed hosts is QA_CLICKHOUSE_HOSTS. */
export function checkClickHouseDoorHost(url: string): void {
  checkDoorHosts([new URL(url).hostname], 'ClickHouse', 'QA_CLICKHOUSE_HOSTS')
}

/** The connection of a URL at use: the password from the environment (never stored). */
export function clickhouseConnectionAtUse(url: string, passwordEnv: string | null): ChConnection {
  return connectionWithPassword(url, passwordEnv, 'CLICKHOUSE_PASSWORD')
}

/** What a ClickHouse failure means, in one sentence about `what` (never the server's message, the URL or a password). */
export function chFailureSentence(e: unknown, what: string, passwordEnv: string | null, table: string | null): string {
  switch (chFailureKind(e)) {
    case 'unreachable':
      return `The ClickHouse server of ${what} cannot be reached (it is down, or the connection was lost)`
    case 'shard-unreachable':
      return `A shard of the ClickHouse table ${table ?? ''} of ${what} cannot be reached`
    case 'auth':
      return `ClickHouse refused the login for ${what}: set the user's password in the ${passwordEnv ?? 'CLICKHOUSE_PASSWORD'} environment variable`
    case 'readonly-user':
      return `The ClickHouse user of ${what} has readonly = 1, which forbids the execution-time limit Quiet Alarm sets on every query; give the user a profile with readonly = 2 (reads and settings only)`
    case 'permission':
      return `The ClickHouse user of ${what} may not read ${table ?? 'the table'}; ask the database's owner to grant SELECT on it`
    case 'no-database':
      return `The ClickHouse database of ${table ?? 'the table'} (${what}) does not exist`
    case 'no-table':
      return `The ClickHouse table ${table ?? ''} of ${what} is gone`
    case 'no-column':
    case 'data':
      return `The ClickHouse table ${table ?? ''} of ${what} no longer has the columns and types it was linked with`
    case 'timeout':
      return `The aggregate on ${what} took longer than the ClickHouse execution-time limit (${durationText(executionTimeoutMs())}; QA_CH_EXECUTION_TIMEOUT_MS sets it)`
    case 'resources':
      return `ClickHouse ran out of memory or another limit computing the aggregate on ${what}`
    default:
      return `ClickHouse could not answer for ${what} (error ${e instanceof ChError && e.code ? e.code.slice(0, 16) : 'unknown'})`
  }
}

/** A read of a linked table failed (after the checks): one sentence naming the dataset. */
export function linkedClickHouseFailure(rec: LinkedClickHouseRecord, e: unknown): Error {
  if (!(e instanceof ChError)) return e as Error
  return new UserError(chFailureSentence(e, `dataset "${rec.datasetName}"`, rec.passwordEnv, chShown(rec)), 'source-changed')
}

/** database.table as shown in sentences (names from the server's catalog). */
export function chShown(t: Pick<LinkedChTable, 'database' | 'table'>): string {
  return `${t.database}.${t.table}`.slice(0, 200)
}

// ---------------------------------------------------------------------------------------------------------------
// The table as the server describes it

/**
 * Runs one statement with `?` placeholders on the server: values bound as query parameters where the server has them,
 * else as checked literals (`bindClickHouse`). A server that turns out not to take parameters (replaced by an older
 * one since it was asked) is asked again, once.
 */
export function chQuery(conn: ChConnection, sql: string, params: readonly StoredValue[] = [], extra: Record<string, string> = {}): ChResult {
  const bound = bindClickHouse(sql, params, chCapabilities(conn).queryParameters)
  try {
    return chAll(conn, bound.sql, bound.queryParams, extra)
  } catch (e) {
    if (!(bound.queryParams && e instanceof ChError && (e.code === 'CH115' || e.code === 'CH62'))) throw e
    forgetClickHouseCapabilities()
    const again = bindClickHouse(sql, params, chCapabilities(conn).queryParameters)
    return chAll(conn, again.sql, again.queryParams, extra)
  }
}

export interface ChTableInfo {
  engine: string
  engineFull: string
  /** system.tables.total_rows where the server has it (not 18.16; null for views and Distributed tables). */
  totalRows: number | null
}

/** system.tables' row of database.table (its engine and definition), or null when there is none. */
export function chTableInfo(conn: ChConnection, database: string, table: string): ChTableInfo | null {
  const r = chQuery(conn, 'SELECT * FROM system.tables WHERE database = ? AND name = ?', [database, table])
  if (r.rows.length === 0) return null
  const at = (name: string) => r.columns.indexOf(name)
  const row = r.rows[0]
  const total = at('total_rows') >= 0 ? row[at('total_rows')] : null
  return {
    engine: String(row[at('engine')]),
    engineFull: at('engine_full') >= 0 ? String(row[at('engine_full')]) : '',
    totalRows: typeof total === 'number' && Number.isFinite(total) ? total : null
  }
}

/** The columns of database.table as system.columns declares them (name and type, in order). */
export function chColumns(conn: ChConnection, database: string, table: string): Array<{ name: string; chType: string }> {
  return chQuery(conn, 'SELECT name, type FROM system.columns WHERE database = ? AND table = ?', [database, table]).rows.map((r) => ({
    name: String(r[0]),
    chType: String(r[1])
  }))
}

/**
 * Touches every shard of a Distributed table without reading a row (`WHERE 0`): a shard that is down fails here,
 * before a charge, with its own sentence.
 */
export function probeShards(conn: ChConnection, t: Pick<LinkedChTable, 'database' | 'table'>): void {
  chAll(conn, `SELECT count() FROM ${chRelation(t)} WHERE 0`, undefined)
}

// ---------------------------------------------------------------------------------------------------------------
// Stored values

/** Engines that store the rows they are read from, besides the MergeTree family (`storesItsRows`). */
const STORING_ENGINES = new Set(['TinyLog', 'StripeLog', 'Log', 'Memory'])

/**
 * Whether a table of engine `engine` reads back the values written into it: the MergeTree family (replicated or not)
 * and the Log family and Memory. Every other engine computes its rows when read (View, MaterializedView's select over
 * its target, Merge, Buffer, Dictionary, URL, File, MySQL, Kafka...); Distributed is checked on its shards.
 */
export function storesItsRows(engine: string): boolean {
  return /^[A-Za-z]*MergeTree$/.test(engine) || STORING_ENGINES.has(engine)
}

/** A table-name argument of an engine definition (`name`, `'name'`, "name" or plain), unquoted; null for an expression. */
function nameArgument(arg: string | undefined): string | null {
  if (arg === undefined) return null
  const q = /^'((?:[^'\\]|\\.)*)'$/s.exec(arg)
  return q ? q[1].replace(/\\(.)/g, '$1') : unquotedIdentifier(arg)
}

const RECOMPUTED =
  'so an expression that fails on one row (a cast, a division, a function) would fail a release after its charge for the questions that read that row'

/** A literal as system.columns.default_expression writes it: a number, a quoted string or NULL. */
const LITERAL = String.raw`(?:-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|'(?:[^'\\]|\\.)*'|NULL)`
const CONSTANT_DEFAULT = new RegExp(String.raw`^(?:${LITERAL}|CAST\(${LITERAL}, '(?:[^'\\]|\\.)*'\))$`)

/**
 * Whether a DEFAULT or MATERIALIZED column's expression is a constant (a literal, or the `CAST(literal, 'Type')`
 * ClickHouse stores for `DEFAULT literal`): the same value for every row and every part, checked by ClickHouse when the
 * column is declared, so computing it when an older part is read cannot fail on one person's rows.
 */
export function isConstantDefault(expression: string): boolean {
  return CONSTANT_DEFAULT.test(expression.trim())
}

/**
 * Why a table's values are computed when it is read rather than stored, as the end of a sentence about it, or null
 * when every value a release reads is stored. A read-time computation runs only on the rows (or parts) a query's filter
 * keeps, so a value it fails on fails exactly the releases that read that person's rows, after their charge: a bit
 * about that person per release. Refused: an engine that does not store its rows (`storesItsRows`), ALIAS columns, and
 * DEFAULT or MATERIALIZED columns whose expression is not a constant (`isConstantDefault`): a part written before such
 * a column was added does not hold it, and ClickHouse computes the expression when it reads that part; the catalog
 * cannot tell whether every part holds it. Every column of the table is checked, not only those a question reads. For
 * a Distributed table the same holds on every shard's table it reads (through `cluster()`, the shards' system tables).
 * Reads no row.
 */
export function computedAtRead(conn: ChConnection, database: string, table: string, info: ChTableInfo): string | null {
  const columnsFrom = (from: string, where: string[], on: string, extra: Record<string, string> = {}): string | null => {
    const rows = chQuery(
      conn,
      `SELECT DISTINCT name, default_kind, default_expression FROM ${from}
        WHERE database = ? AND table = ? AND default_kind IN ('ALIAS', 'DEFAULT', 'MATERIALIZED') ORDER BY name`,
      where,
      extra
    ).rows.map((r) => ({ name: String(r[0]), kind: String(r[1]), expression: String(r[2]) }))
    const listed = (names: string[]) => [...new Set(names)].join(', ').slice(0, 120)
    const aliases = rows.filter((c) => c.kind === 'ALIAS').map((c) => c.name)
    if (aliases.length > 0) {
      return `has ALIAS columns${on} (${listed(aliases)}): they are computed from other columns each time the table is read, ${RECOMPUTED}; link a table without them`
    }
    const computed = rows.filter((c) => !isConstantDefault(c.expression)).map((c) => c.name)
    if (computed.length === 0) return null
    return `has DEFAULT or MATERIALIZED columns${on} computed from other columns (${listed(computed)}): ClickHouse computes them when it reads a part written before the column was added, ${RECOMPUTED}; link a table whose columns hold their values as plain columns or have a constant default (for example a new table filled with INSERT INTO ... SELECT), because the catalog cannot show that a merge or mutation has written the column into every part`
  }
  if (info.engine === 'Distributed') {
    const args = callArguments(info.engineFull, 'Distributed')
    const [cluster, remoteDb, remoteTable] = [nameArgument(args?.[0]), nameArgument(args?.[1]), nameArgument(args?.[2])]
    if (cluster === null || remoteDb === null || remoteTable === null) {
      return "is a Distributed table whose shards' table cannot be told from its definition; link a Distributed table naming its cluster, database and table"
    }
    const shards = (name: string) => `cluster(${chString(cluster)}, system, ${name})`
    // A table function needs readonly = 2 (still no writes) where the session would set readonly = 1.
    const extra: Record<string, string> = chCapabilities(conn).setsReadonly ? { readonly: '2' } : {}
    const engines = chQuery(
      conn,
      `SELECT DISTINCT engine FROM ${shards('tables')} WHERE database = ? AND name = ?`,
      [remoteDb, remoteTable],
      extra
    ).rows.map((r) => String(r[0]))
    const computing = engines.find((e) => !storesItsRows(e))
    if (computing !== undefined) {
      return `is a Distributed table over ${remoteDb.slice(0, 60)}.${remoteTable.slice(0, 60)}, a ${computing.slice(0, 40)} table on a shard: its rows are computed each time it is read, ${RECOMPUTED}; link a Distributed table over tables that store their rows (MergeTree, Log or Memory)`
    }
    const onShards = columnsFrom(shards('columns'), [remoteDb, remoteTable], ' on its shards', extra)
    if (onShards !== null) return onShards
  } else if (!storesItsRows(info.engine)) {
    return `is a ${info.engine.slice(0, 40)} table: its rows are computed each time it is read, ${RECOMPUTED}; link a table that stores its rows (MergeTree, Log or Memory; for a materialized view, the table it writes to)`
  }
  return columnsFrom('system.columns', [database, table], '')
}

// ---------------------------------------------------------------------------------------------------------------
// Sharding

/** Functions a sharding key may apply to the person column and still send all of a person's rows to one shard (deterministic). */
const DETERMINISTIC_FUNCTIONS = new Set([
  'cityHash64',
  'sipHash64',
  'sipHash128',
  'halfMD5',
  'MD5',
  'intHash32',
  'intHash64',
  'murmurHash2_32',
  'murmurHash2_64',
  'murmurHash3_32',
  'murmurHash3_64',
  'murmurHash3_128',
  'xxHash32',
  'xxHash64',
  'xxh3',
  'farmHash64',
  'farmFingerprint64',
  'metroHash64',
  'javaHash',
  'hiveHash',
  'gccMurmurHash',
  'jumpConsistentHash',
  'toUInt8',
  'toUInt16',
  'toUInt32',
  'toUInt64',
  'toInt8',
  'toInt16',
  'toInt32',
  'toInt64',
  'toString',
  'lower',
  'upper',
  'abs',
  'modulo',
  'intDiv',
  'plus',
  'minus',
  'multiply',
  'bitAnd',
  'bitOr',
  'bitXor',
  'assumeNotNull',
  'ifNull',
  'coalesce',
  'reinterpretAsUInt64'
])

/** The top-level arguments of the first `name(...)` call in `s` (quotes and nesting respected), or null. */
export function callArguments(s: string, name: string): string[] | null {
  const start = s.indexOf(`${name}(`)
  if (start < 0) return null
  const args: string[] = []
  let depth = 0
  let current = ''
  let quote: string | null = null
  for (let k = start + name.length + 1; k < s.length; k++) {
    const ch = s[k]
    if (quote) {
      current += ch
      if (ch === '\\') current += s[++k] ?? ''
      else if (ch === quote) quote = null
      continue
    }
    if (ch === "'" || ch === '`' || ch === '"') quote = ch
    else if (ch === '(') depth++
    else if (ch === ')') {
      if (depth === 0) {
        args.push(current.trim())
        return args
      }
      depth--
    } else if (ch === ',' && depth === 0) {
      args.push(current.trim())
      current = ''
      continue
    }
    current += ch
  }
  return null
}

/** An identifier as written in a definition (`name`, "name" or plain), unquoted; null for anything else. */
function unquotedIdentifier(tok: string): string | null {
  const q = /^([`"])(.*)\1$/s.exec(tok)
  if (q) return q[2].replace(/\\(.)/g, '$1')
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(tok) ? tok : null
}

/**
 * Whether a Distributed table's sharding key sends all rows with the same value of `personColumn` to one shard: an
 * expression of that column alone (and numbers), through deterministic functions only (`DETERMINISTIC_FUNCTIONS`)
 * and arithmetic. Anything else (rand(), another column, a string literal, an unknown function, no key) is false.
 */
export function shardedByColumn(key: string | undefined, personColumn: string): boolean {
  if (key === undefined || key.trim() === '') return false
  const tokens = key.match(/`(?:[^`\\]|\\.)*`|"(?:[^"\\]|\\.)*"|[A-Za-z_][A-Za-z0-9_]*|\d+(?:\.\d+)?|[()+\-*/%,]|\S/g) ?? []
  let usesPerson = false
  for (let k = 0; k < tokens.length; k++) {
    const tok = tokens[k]
    if (/^\d/.test(tok) || /^[()+\-*/%,]$/.test(tok)) continue
    const id = unquotedIdentifier(tok)
    if (id === null) return false
    if (tokens[k + 1] === '(') {
      if (!DETERMINISTIC_FUNCTIONS.has(id)) return false
    } else if (id === personColumn) {
      usesPerson = true
    } else {
      return false
    }
  }
  // A key of numbers only sends every row to one shard: sound too.
  return usesPerson || tokens.every((t) => /^\d/.test(t) || /^[()+\-*/%,]$/.test(t))
}

/** How a per-person level may run on a table of engine `engine` defined as `engineFull` (see the file comment). */
export function shardingMode(engine: string, engineFull: string, personColumn: string | null): ShardingMode {
  if (engine !== 'Distributed') return 'local'
  if (personColumn === null) return 'merge'
  const args = callArguments(engineFull, 'Distributed')
  return args && shardedByColumn(args[3], personColumn) ? 'per-shard' : 'merge'
}

// ---------------------------------------------------------------------------------------------------------------
// Before a charge

/** The sharding mode of a linked table now (system.tables), for a per-person level. */
export function shardingModeNow(conn: ChConnection, rec: LinkedClickHouseRecord): ShardingMode {
  const info = chTableInfo(conn, rec.database, rec.table)
  return info ? shardingMode(info.engine, info.engineFull, rec.personColumn) : 'merge'
}

/**
 * Checks a linked table before a release is charged: the server reachable and its user able to take the session's
 * limits, the table there with the engine, columns and types it was linked with, readable, and every shard of a
 * Distributed table reachable. Returns its fingerprint now (for the ledger entry). Reads no rows; one sentence ending
 * "Nothing was charged." otherwise.
 */
export function checkClickHouseSource(rec: LinkedClickHouseRecord): ChFingerprint {
  const what = `dataset "${rec.datasetName}"`
  const shown = chShown(rec)
  const nothing = (s: string) => new UserError(`${s}. Nothing was charged.`, 'source-changed')
  const conn = clickhouseConnectionAtUse(rec.url, rec.passwordEnv)
  let info: ChTableInfo | null
  let cols: Array<{ name: string; chType: string }>
  let version: string
  try {
    version = chCapabilities(conn).version
    info = chTableInfo(conn, rec.database, rec.table)
    cols = info ? chColumns(conn, rec.database, rec.table) : []
  } catch (e) {
    throw nothing(chFailureSentence(e, what, rec.passwordEnv, shown))
  }
  if (!info) throw nothing(`The ClickHouse table ${shown} linked as ${what} is gone; link the dataset again`)
  if (info.engine !== rec.engine) {
    throw nothing(
      `The ClickHouse table ${shown} linked as ${what} is now a ${info.engine.slice(0, 40)} table (it was ${rec.engine}); link it again as a new dataset`
    )
  }
  const change = schemaChange(rec.columns, cols, 'chType')
  if (change) throw nothing(`The ClickHouse table ${shown} linked as ${what} has changed its schema: ${change}; link it again as a new dataset`)
  let computed: string | null
  try {
    // The schema first: 18.16 fails even `WHERE 0` on a table with an ALIAS column.
    computed = computedAtRead(conn, rec.database, rec.table, info)
    if (computed === null) probeShards(conn, rec)
  } catch (e) {
    throw nothing(chFailureSentence(e, what, rec.passwordEnv, shown))
  }
  if (computed) throw nothing(`The ClickHouse table ${shown} linked as ${what} ${computed}`)
  return {
    engine: 'clickhouse',
    table: shown,
    tableEngine: info.engine,
    sharding: shardingMode(info.engine, info.engineFull, rec.personColumn),
    version,
    rowEstimate: info.totalRows
  }
}
