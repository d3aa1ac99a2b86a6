/**
 * Linked PostgreSQL tables and materialized views: a relation in the organisation's PostgreSQL registered in the
 * catalog and queried where it lives; only aggregates come back.
 *
 * - The connection is stored as a URL WITHOUT a password (a URL with one is refused) and, optionally, the name of the
 *   environment variable holding the password (default PGPASSWORD). The password is read from the environment at each
 *   use and goes to the PostgreSQL worker only: never into the workspace, the ledger, logs or error sentences.
 * - Every statement runs in a READ ONLY transaction with a statement timeout (pg-sync.ts).
 * - Linking is an officer act: the officer signs what the link is (link-signature.ts), and every
 *   use checks the stored link against the signature before it connects (the password goes to the URL's host).
 * - Linking reads the relation's identity (schema, name, oid, kind) and declared columns (information_schema.columns:
 *   the schema, never the rows) and maps each declared type to a catalog type (bigint is integer whatever the values).
 *   No row is read, counted or estimated for the analyst: the catalog's row count of a linked relation is 0 and says
 *   "not counted".
 * - Fingerprint: the relation's identity (schema.table and oid, kind) and the planner's row estimate, taken at each
 *   release and recorded in its ledger entry (`params.source`), sealed to the officers; the link keeps no estimate.
 * - Before a release is charged, the relation must be reachable, readable by the connection's role and have the
 *   columns and types it was linked with, and its values must be stored, not computed as it is read (`computedAtRead`:
 *   no view, foreign table, row-level security or virtual generated column; checked when linking and at every use, since a table can be
 *   replaced by a view of the same name and columns); otherwise one sentence, and nothing is charged. A read that fails after the
 *   charge (connection lost, timeout) is the release service's neutral failure after a charge.
 */
import { createRequire } from 'node:module'
import type Database from 'better-sqlite3'
import { UserError } from '../platform/errors'
import { type LinkedRelation, type PgSchemaColumn, pgRelation } from './dialect-postgres'
import { type PgConnection, PgError, pgAll, pgFailureKind, statementTimeoutMs } from './pg-sync'
import { linkSignedByOfficer } from '../trust/link-signature'
import { catalogIsSigned, checkDoorHosts, checkPasswordVariable, connectionWithPassword, durationText, schemaChange } from './warehouse-link'

export interface PgFingerprint {
  /** schema.table */
  relation: string
  oid: number
  /** 'table', 'view', 'materialized view', 'partitioned table' or 'foreign table'. */
  kind: string
  /** The planner's row estimate (pg_class.reltuples), or null when the relation has never been analysed (or is a view). */
  rowEstimate: number | null
}

export interface LinkedPostgresRecord extends LinkedRelation {
  datasetId: number
  datasetName: string
  /** The connection URL, without a password. */
  url: string
  /** The environment variable holding the password (null: PGPASSWORD). */
  passwordEnv: string | null
  /** When linked: the relation's identity (no row estimate: it is taken, sealed, at each release). */
  fingerprint: Omit<PgFingerprint, 'rowEstimate'>
}

export const KINDS: Record<string, string> = { r: 'table', p: 'partitioned table', v: 'view', m: 'materialized view', f: 'foreign table' }

interface SourceRow {
  url: string
  password_env: string | null
  schema_name: string
  relation_name: string
  columns: string
  fingerprint: string
  signer: string | null
  signature: string | null
  name: string
  uid: string | null
  person_column: string | null
}

/**
 * The linked PostgreSQL relation of a dataset, or null. Every use goes through here: the stored link must be exactly
 * what a privacy officer signed (its URL, password variable, relation, columns, and the dataset's catalog columns and
 * unit), otherwise one sentence and no connection is made.
 */
export function linkedPostgresOf(db: Database.Database, datasetId: number): LinkedPostgresRecord | null {
  const row = db
    .prepare(
      `SELECT s.url, s.password_env, s.schema_name, s.relation_name, s.columns, s.fingerprint, s.signer, s.signature, d.name, d.uid, u.person_column
         FROM dataset_postgres_sources s JOIN datasets d ON d.id = s.dataset_id LEFT JOIN dataset_units u ON u.dataset_id = s.dataset_id WHERE s.dataset_id = ?`
    )
    .get(datasetId) as SourceRow | undefined
  if (!row) return null
  const unsigned = () =>
    new UserError(
      `The PostgreSQL link of dataset "${row.name}" is not the one a privacy officer signed (its connection, relation, columns or unit were changed in the workspace file); ask the officer to link it again. Nothing was charged.`,
      'source-changed'
    )
  let fingerprint: LinkedPostgresRecord['fingerprint']
  let columns: PgSchemaColumn[]
  try {
    fingerprint = JSON.parse(row.fingerprint) as LinkedPostgresRecord['fingerprint']
    columns = JSON.parse(row.columns) as PgSchemaColumn[]
    if (!Array.isArray(columns)) throw new Error('columns')
  } catch {
    throw unsigned()
  }
  const signed = {
    datasetId,
    datasetUid: row.uid,
    url: row.url,
    passwordEnv: row.password_env,
    schema: row.schema_name,
    table: row.relation_name,
    kind: String(fingerprint.kind),
    columns,
    personColumn: row.person_column
  }
  if (!catalogIsSigned(db, datasetId, columns) || !linkSignedByOfficer(db, signed, row.signer, row.signature)) throw unsigned()
  return {
    datasetId,
    datasetName: row.name,
    url: row.url,
    passwordEnv: row.password_env,
    schema: row.schema_name,
    table: row.relation_name,
    relkind: Object.entries(KINDS).find(([, k]) => k === fingerprint.kind)?.[0] ?? 'v',
    columns,
    fingerprint
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Connections

/**
 * Checks a connection URL: postgres:// or postgresql://, and no password in it (neither user:password@ nor a
 * `password=` parameter). The sentence never repeats the URL.
 */
export function checkPostgresUrl(url: unknown): string {
  if (typeof url !== 'string' || !/^postgres(ql)?:\/\//i.test(url.trim())) {
    throw new UserError('The PostgreSQL connection must be a URL like postgresql://user@host:5432/database', 'bad-input')
  }
  const u = url.trim()
  const rest = u.replace(/^postgres(ql)?:\/\//i, '')
  const authority = rest.split(/[/?#]/, 1)[0]
  const at = authority.lastIndexOf('@')
  const userinfo = at < 0 ? '' : authority.slice(0, at)
  if (userinfo.includes(':') || /[?&]password=/i.test(rest)) {
    throw new UserError(
      'The PostgreSQL URL contains a password; give the URL without it and put the password in the PGPASSWORD environment variable (or the variable named by --password-env)',
      'bad-input'
    )
  }
  return u
}

/**
 * The name of the environment variable holding the password. It must end in PGPASSWORD (e.g. HR_PGPASSWORD): a
 * connection can only ever be given a variable meant for PostgreSQL, never another secret of the process.
 */
export function checkPasswordEnv(name: unknown): string | null {
  return checkPasswordVariable(name, 'PGPASSWORD')
}

/** The URL's hosts (pg's own parser; a unix socket is its directory; several hosts are comma-separated). */
export function postgresHosts(url: string): string[] {
  const pgPath = createRequire(import.meta.url).resolve('pg')
  const { parse } = createRequire(pgPath)('pg-connection-string') as { parse: (u: string) => { host?: string | null } }
  const host = parse(url).host ?? process.env.PGHOST ?? 'localhost'
  return host.split(',').map((h) => h.trim().toLowerCase())
}

/** The door's host check (warehouse-link.ts) over the URL's hosts; the list of other allowed hosts is QA_PG_HOSTS. */
export function checkDoorHost(url: string): void {
  checkDoorHosts(postgresHosts(url), 'PostgreSQL', 'QA_PG_HOSTS')
}

/** The connection of a URL at use: the password from the environment (never stored). */
export function connectionAtUse(url: string, passwordEnv: string | null): PgConnection {
  return connectionWithPassword(url, passwordEnv, 'PGPASSWORD')
}

/** What a PostgreSQL failure means, in one sentence about `what` (never the driver's message, the URL or a password). */
export function failureSentence(e: unknown, what: string, passwordEnv: string | null, relation: string | null): string {
  switch (pgFailureKind(e)) {
    case 'unreachable':
      return `The PostgreSQL server of ${what} cannot be reached (it is down, or the connection was lost)`
    case 'auth':
      return `PostgreSQL refused the login for ${what}: set the role's password in the ${passwordEnv ?? 'PGPASSWORD'} environment variable`
    case 'no-database':
      return what === 'this connection'
        ? 'The database named in this connection does not exist'
        : `The database named in the connection of ${what} does not exist`
    case 'permission':
      return `The PostgreSQL role of ${what} may not read ${relation ?? 'the relation'}; ask the database's owner to grant SELECT on it`
    case 'no-relation':
      return `The PostgreSQL relation ${relation ?? ''} of ${what} is gone`
    case 'no-column':
    case 'data':
      return `The PostgreSQL relation ${relation ?? ''} of ${what} no longer has the columns and types it was linked with`
    case 'timeout':
      return `The aggregate on ${what} took longer than the PostgreSQL statement timeout (${durationText(statementTimeoutMs())}; QA_PG_STATEMENT_TIMEOUT_MS sets it)`
    default:
      return `PostgreSQL could not answer for ${what} (SQLSTATE ${e instanceof PgError && e.code ? e.code.slice(0, 16) : 'unknown'})`
  }
}

/** A read of a linked relation failed (after the checks): one sentence naming the dataset. */
export function linkedPostgresFailure(rec: LinkedPostgresRecord, e: unknown): Error {
  if (!(e instanceof PgError)) return e as Error
  return new UserError(failureSentence(e, `dataset "${rec.datasetName}"`, rec.passwordEnv, pgRelation(rec)), 'source-changed')
}

export interface RelationInfo {
  oid: number
  schema: string
  table: string
  relkind: string
  reltuples: number
  canRead: boolean
}

export const RELATION_SQL = `SELECT CAST(c.oid AS bigint), n.nspname, c.relname, CAST(c.relkind AS text), CAST(c.reltuples AS double precision), has_table_privilege(c.oid, 'SELECT')
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace`

export function relationRow(r: unknown[] | undefined): RelationInfo | null {
  if (!r) return null
  return { oid: Number(r[0]), schema: String(r[1]), table: String(r[2]), relkind: String(r[3]), reltuples: Number(r[4]), canRead: r[5] === true }
}

/**
 * The declared columns of schema.table the role may see, in order, each with its type named as
 * information_schema.columns.data_type names it (`bigint`, `numeric`, `timestamp with time zone`, `ARRAY`,
 * `USER-DEFINED`...). Read from pg_attribute with information_schema's own definition because information_schema.columns
 * leaves materialized views out.
 */
export function columnsOf(conn: PgConnection, schema: string, table: string): Array<{ name: string; pgType: string }> {
  return pgAll(
    conn,
    `SELECT a.attname,
            CASE WHEN t.typtype = 'd' THEN
                   CASE WHEN bt.typelem <> 0 AND bt.typlen = -1 THEN 'ARRAY' WHEN nbt.nspname = 'pg_catalog' THEN format_type(t.typbasetype, NULL) ELSE 'USER-DEFINED' END
                 ELSE
                   CASE WHEN t.typelem <> 0 AND t.typlen = -1 THEN 'ARRAY' WHEN nt.nspname = 'pg_catalog' THEN format_type(a.atttypid, NULL) ELSE 'USER-DEFINED' END
            END
       FROM pg_attribute a
       JOIN pg_class c ON c.oid = a.attrelid
       JOIN pg_namespace nc ON nc.oid = c.relnamespace
       JOIN pg_type t ON t.oid = a.atttypid
       JOIN pg_namespace nt ON nt.oid = t.typnamespace
       LEFT JOIN (pg_type bt JOIN pg_namespace nbt ON nbt.oid = bt.typnamespace) ON t.typtype = 'd' AND t.typbasetype = bt.oid
      WHERE nc.nspname = $1 AND c.relname = $2 AND a.attnum > 0 AND NOT a.attisdropped
        AND (pg_has_role(c.relowner, 'USAGE') OR has_column_privilege(c.oid, a.attnum, 'SELECT, INSERT, UPDATE, REFERENCES'))
      ORDER BY a.attnum`,
    [schema, table]
  ).rows.map((r) => ({ name: String(r[0]), pgType: String(r[1]) }))
}

/** One row of `computedAtRead`'s catalog statement: the relation or one of its partitions or child tables. */
export interface RelationCatalogRow {
  /** pg_class.relkind. */
  kind: string
  /** The linked relation itself (not a partition or child). */
  root: boolean
  rowSecurityActive: boolean
  populated: boolean
  /** Columns whose pg_attribute.attgenerated is neither '' (plain) nor 's' (stored), such as PostgreSQL 18's virtual ('v'), listed; '' for none. */
  computedColumns: string
}

/**
 * Why a relation's values are computed when it is read rather than stored, as the end of a sentence about it, or null
 * when every value a release reads is stored. A read-time computation (a view's cast or division, a foreign-data
 * wrapper's parse, a row-level-security policy's function, a virtual generated column's expression) runs only on the
 * rows a query's filter keeps, so a value it fails on fails exactly the releases that read that person's rows, after
 * their charge: a bit about that person per release. Stored: tables, partitioned tables and materialized views whose
 * columns are plain or STORED generated columns, with no foreign table among their partitions or child tables and no
 * row-level security applying to the connection's role.
 */
export function computedAtRead(conn: PgConnection, oid: number): string | null {
  const rows = pgAll(
    conn,
    `WITH RECURSIVE d(oid) AS (SELECT CAST($1 AS oid) UNION SELECT i.inhrelid FROM pg_inherits i JOIN d ON i.inhparent = d.oid)
     SELECT CAST(c.relkind AS text), c.oid = CAST($1 AS oid), row_security_active(c.oid), c.relispopulated,
            COALESCE((SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY a.attnum) FROM pg_attribute a
                       WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated NOT IN ('', 's')), '')
       FROM d JOIN pg_class c ON c.oid = d.oid`,
    [oid]
  ).rows
  return readTimeComputation(
    rows.map((r) => ({
      kind: String(r[0]),
      root: r[1] === true,
      rowSecurityActive: r[2] === true,
      populated: r[3] === true,
      computedColumns: String(r[4] ?? '')
    }))
  )
}

/** `computedAtRead`'s decision over its catalog rows. */
export function readTimeComputation(rows: RelationCatalogRow[]): string | null {
  const root = rows.find((r) => r.root)
  if (!root) return null
  const kind = root.kind
  if (kind === 'v') {
    return 'is a view: its values are computed each time it is read, so an expression that fails on one row (a cast, a division, a function) would fail a release after its charge for the questions that read that row; link the table it reads, or a materialized view of it'
  }
  if (kind === 'f' || rows.some((r) => r.kind === 'f')) {
    return `${kind === 'f' ? 'is a foreign table' : 'has a foreign table among its partitions or child tables'}: its rows are fetched and converted by a foreign-data wrapper each time it is read, so a value that fails there would fail a release after its charge; link a local copy (a table or a materialized view)`
  }
  if (root.rowSecurityActive) {
    return "has row-level security that applies to the connection's role: its policies are evaluated on each row read, so a policy that fails on one row would fail a release after its charge; link through a role the policies do not apply to (the table's owner or a BYPASSRLS role), or a materialized view"
  }
  const computed = [...new Set(rows.map((r) => r.computedColumns).filter((c) => c !== ''))]
  if (computed.length > 0) {
    return `has virtual generated columns (${computed.join('; ').slice(0, 120)}): they are computed from other columns each time the table is read, so an expression that fails on one row (a cast, a division, a function) would fail a release after its charge for the questions that read that row; make them STORED generated columns, or link a table or materialized view without them`
  }
  if (kind === 'm' && !root.populated) return 'is a materialized view that has not been populated; REFRESH MATERIALIZED VIEW it first'
  return null
}

export function fingerprintOf(rel: RelationInfo): PgFingerprint {
  return {
    relation: `${rel.schema}.${rel.table}`,
    oid: rel.oid,
    kind: KINDS[rel.relkind] ?? rel.relkind,
    rowEstimate: rel.reltuples >= 0 && rel.relkind !== 'v' ? Math.round(rel.reltuples) : null
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Before a charge

/**
 * Checks a linked relation before a release is charged: reachable, readable, with the columns and types it was linked
 * with. Returns its fingerprint now (for the ledger entry). Reads no rows; one sentence ending "Nothing was charged."
 */
export function checkPostgresSource(rec: LinkedPostgresRecord): PgFingerprint & { engine: 'postgres' } {
  const what = `dataset "${rec.datasetName}"`
  const rel = pgRelation(rec)
  const nothing = (s: string) => new UserError(`${s}. Nothing was charged.`, 'source-changed')
  const conn = connectionAtUse(rec.url, rec.passwordEnv)
  let info: RelationInfo | null
  let cols: Array<{ name: string; pgType: string }>
  try {
    info = relationRow(pgAll(conn, `${RELATION_SQL} WHERE n.nspname = $1 AND c.relname = $2`, [rec.schema, rec.table]).rows[0])
    cols = info ? columnsOf(conn, rec.schema, rec.table) : []
  } catch (e) {
    throw nothing(failureSentence(e, what, rec.passwordEnv, rel))
  }
  if (!info) throw nothing(`The PostgreSQL relation ${rel} linked as ${what} is gone; link the dataset again`)
  if (!info.canRead) throw nothing(`The PostgreSQL role of ${what} may not read ${rel}; ask the database's owner to grant SELECT on it`)
  let computed: string | null
  try {
    computed = computedAtRead(conn, info.oid)
  } catch (e) {
    throw nothing(failureSentence(e, what, rec.passwordEnv, rel))
  }
  if (computed) throw nothing(`The PostgreSQL relation ${rel} linked as ${what} ${computed}`)
  const change = schemaChange(rec.columns, cols, 'pgType')
  if (change) throw nothing(`The PostgreSQL relation ${rel} linked as ${what} has changed its schema: ${change}; link it again as a new dataset`)
  return { engine: 'postgres', ...fingerprintOf(info) }
}
