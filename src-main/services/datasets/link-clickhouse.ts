/**
 * Linking a ClickHouse table (the read path is sources/linked-clickhouse.ts): an officer act (the officer's
 * credentials are checked before any connection), signed over what the link is and recorded in the audit log with a
 * checkpoint. What linking reads is the declared schema only (system.tables, system.columns): the linker may not hold
 * the rows (the password may be the server's), so the catalog shows no count or estimate and a column's type does not
 * depend on its values (an Int64 is integer whatever it holds; a value beyond 2^53 reads as NULL).
 */
import type Database from 'better-sqlite3'
import type { CountedDatasetInfo } from '../../contract/datasets'
import { UserError } from '../platform/errors'
import { type OfficerKey, unlockOfficer } from '../trust/officers'
import { type ChSchemaColumn, chCatalogType } from '../sources/dialect-clickhouse'
import { chCapabilities } from '../sources/clickhouse-sync'
import {
  chColumns,
  chFailureSentence,
  chQuery,
  chShown,
  chTableInfo,
  checkClickHousePasswordEnv,
  checkClickHouseUrl,
  clickhouseConnectionAtUse,
  clickhouseLinkFacts,
  computedAtRead,
  probeShards,
  shardingMode,
  storesItsRows
} from '../sources/linked-clickhouse'
import { newDatasetName } from '../catalog/linked-catalog'
import { signLinkFacts } from '../trust/link-signature'
import { type LinkWarehouseRequest, type WarehouseConnectionRequest, checkPersonColumn, insertWarehouseLink } from './warehouse-link-act'

/**
 * `DB.T` (either part may be backquoted) as database and table; a bare `T` is in the user's current database (null
 * here). One sentence when it is not a table name.
 */
export function parseClickHouseTable(raw: unknown): { database: string | null; table: string } {
  const bad = () => new UserError('Name the ClickHouse table to link as database.table (e.g. analytics.events)', 'bad-input')
  if (typeof raw !== 'string') throw bad()
  const s = raw.trim()
  if (s === '' || s.length > 300) throw bad()
  const parts: string[] = []
  let k = 0
  while (k < s.length) {
    if (s[k] === '`') {
      let part = ''
      k++
      while (k < s.length && s[k] !== '`') {
        if (s[k] === '\\' && k + 1 < s.length) k++
        part += s[k++]
      }
      if (s[k] !== '`') throw bad()
      k++
      parts.push(part)
    } else {
      const dot = s.indexOf('.', k)
      parts.push(s.slice(k, dot < 0 ? s.length : dot))
      k = dot < 0 ? s.length : dot
    }
    if (k < s.length) {
      if (s[k] !== '.') throw bad()
      k++
      if (k === s.length) throw bad()
    }
  }
  if (parts.length < 1 || parts.length > 2 || parts.some((p) => p === '' || p.includes('\u0000'))) throw bad()
  return parts.length === 2 ? { database: parts[0], table: parts[1] } : { database: null, table: parts[0] }
}

export interface ClickHouseTableListing {
  database: string
  table: string
  engine: string
  /** Its columns as system.columns declares them, in order (the person column is chosen among them). */
  columns: string[]
  /** The columns by which a Distributed table is sharded (`shardingMode` 'per-shard'): empty for the rest. */
  shardedBy: string[]
}

const NOT_SYSTEM = `database NOT IN ('system', 'INFORMATION_SCHEMA', 'information_schema')`
const LISTED_TABLES = 1000

/**
 * Connects and lists the tables the user can see that store their rows or are Distributed (database, name, engine,
 * columns, the columns a Distributed table is sharded by), system databases left out; one sentence if it cannot. Reads
 * the declared schema only. From a door the password is the server's, so the caller checks `officer` first
 * (`datasetsHandlers`).
 */
export function listClickHouseTables(req: WarehouseConnectionRequest): ClickHouseTableListing[] {
  const url = checkClickHouseUrl(req.url)
  const env = checkClickHousePasswordEnv(req.passwordEnv)
  try {
    const conn = clickhouseConnectionAtUse(url, env)
    // SELECT *: engine_full is read where the server has it (as chTableInfo does).
    const t = chQuery(conn, `SELECT * FROM system.tables WHERE ${NOT_SYSTEM} AND is_temporary = 0 ORDER BY database, name LIMIT ${LISTED_TABLES}`)
    const at = (name: string) => t.columns.indexOf(name)
    const columns = new Map<string, string[]>()
    const c = chQuery(conn, `SELECT database, table, name FROM system.columns WHERE ${NOT_SYSTEM} LIMIT ${LISTED_TABLES * 100}`)
    for (const r of c.rows) {
      const key = JSON.stringify([String(r[0]), String(r[1])])
      const list = columns.get(key) ?? []
      list.push(String(r[2]))
      columns.set(key, list)
    }
    // Only the engines a link may take: a View (or any engine computing its rows when read) is refused when linked.
    return t.rows
      .filter((r) => String(r[at('engine')]) === 'Distributed' || storesItsRows(String(r[at('engine')])))
      .map((r) => {
        const database = String(r[at('database')])
        const table = String(r[at('name')])
        const engine = String(r[at('engine')])
        const engineFull = at('engine_full') >= 0 ? String(r[at('engine_full')]) : ''
        const cols = columns.get(JSON.stringify([database, table])) ?? []
        return { database, table, engine, columns: cols, shardedBy: cols.filter((col) => shardingMode(engine, engineFull, col) === 'per-shard') }
      })
  } catch (e) {
    throw new UserError(chFailureSentence(e, 'this connection', env, null), 'bad-input')
  }
}

/**
 * Links a ClickHouse table (local or Distributed; `table`: database.table, a bare name in the user's current
 * database) as a dataset: an officer act (see the file comment).
 */
export function linkClickHouse(db: Database.Database, req: LinkWarehouseRequest): CountedDatasetInfo {
  const name = newDatasetName(db, req.name)
  const url = checkClickHouseUrl(req.url)
  const passwordEnv = checkClickHousePasswordEnv(req.passwordEnv)
  const wanted = parseClickHouseTable(req.table)
  const key: OfficerKey = unlockOfficer(db, { officer: req.officer, passphrase: req.passphrase })
  const conn = clickhouseConnectionAtUse(url, passwordEnv)
  const shown = `"${String(req.table).trim().slice(0, 120)}"`
  const failed = (e: unknown) => new UserError(`Linking ${shown}: ${chFailureSentence(e, 'this connection', passwordEnv, shown)}`, 'bad-input')
  let database: string
  let info: ReturnType<typeof chTableInfo>
  let schema: Array<{ name: string; chType: string }>
  try {
    chCapabilities(conn)
    database = wanted.database ?? String(chQuery(conn, 'SELECT currentDatabase()').rows[0][0])
    info = chTableInfo(conn, database, wanted.table)
    schema = info ? chColumns(conn, database, wanted.table) : []
  } catch (e) {
    throw failed(e)
  }
  const where = { database, table: wanted.table }
  if (!info) throw new UserError(`There is no table ${chShown(where)} on that server (as the connection's user sees it)`, 'not-found')
  if (schema.length === 0) throw new UserError(`${chShown(where)} has no columns`, 'bad-input')
  let computed: string | null
  try {
    // Reads no row: the values are stored (first: 18.16 fails even `WHERE 0` on a table with an ALIAS column), the user
    // may SELECT from the table and, for a Distributed table, every shard answers.
    computed = computedAtRead(conn, database, wanted.table, info)
    if (computed === null) probeShards(conn, where)
  } catch (e) {
    throw failed(e)
  }
  if (computed) throw new UserError(`${chShown(where)} ${computed}`, 'bad-input')
  checkPersonColumn(schema, req.personColumn, chShown(where))
  // The declared types only: an Int64 is integer whatever its values (one beyond 2^53 reads as NULL, never a failure).
  const columns: ChSchemaColumn[] = schema.map((c) => ({ ...c, type: chCatalogType(c.chType) }))
  const engine = info.engine
  const sharding = shardingMode(info.engine, info.engineFull, req.personColumn)
  return insertWarehouseLink(db, key, req, {
    name,
    sourceFile: chShown(where),
    columns,
    writeSource: (dsId, datasetUid) => {
      const facts = clickhouseLinkFacts({
        datasetId: dsId,
        datasetUid,
        url,
        passwordEnv,
        database,
        table: wanted.table,
        engine,
        columns,
        personColumn: req.personColumn
      })
      const { signer, signature } = signLinkFacts(key, 'clickhouse', facts)
      db.prepare(
        'INSERT INTO dataset_clickhouse_sources (dataset_id, url, password_env, database_name, table_name, table_engine, columns, signer, signature) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)'
      ).run(dsId, url, passwordEnv, database, wanted.table, engine, JSON.stringify(columns), signer, signature)
    },
    audit: { kind: 'officer/link-clickhouse', detail: { name, table: chShown(where), engine, sharding } }
  })
}
