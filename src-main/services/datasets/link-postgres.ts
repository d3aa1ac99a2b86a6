/**
 * Linking a PostgreSQL table or materialized view: the connection test and table list the app shows, and the link itself,
 * an officer act signed over what the link is (trust/link-signature.ts). The read path of a linked relation is
 * sources/linked-postgres.ts.
 */
import type Database from 'better-sqlite3'
import type { CountedDatasetInfo } from '../../contract/datasets'
import { newDatasetName } from '../catalog/linked-catalog'
import { UserError } from '../platform/errors'
import { type PgSchemaColumn, pgCatalogType, pgRelation } from '../sources/dialect-postgres'
import {
  KINDS,
  RELATION_SQL,
  type RelationInfo,
  checkPasswordEnv,
  checkPostgresUrl,
  columnsOf,
  computedAtRead,
  connectionAtUse,
  failureSentence,
  fingerprintOf,
  relationRow
} from '../sources/linked-postgres'
import { PgError, pgAll, pgFailureKind } from '../sources/pg-sync'
import { signLink } from '../trust/link-signature'
import { type OfficerKey, unlockOfficer } from '../trust/officers'
import { type LinkWarehouseRequest, type WarehouseConnectionRequest, checkPersonColumn, insertWarehouseLink } from './warehouse-link-act'

/**
 * Connects and lists the tables and materialized views the role may read (schema, name, kind): the kinds whose values
 * are stored (views and foreign tables are refused when linked, `computedAtRead`); one sentence if it cannot. From a
 * door the password is the server's, so the caller passes `officer` (checked first, see `datasetsHandlers`).
 */
export function listPostgresRelations(req: WarehouseConnectionRequest): Array<{ schema: string; table: string; kind: string }> {
  const url = checkPostgresUrl(req.url)
  const env = checkPasswordEnv(req.passwordEnv)
  try {
    return pgAll(
      connectionAtUse(url, env),
      `SELECT n.nspname, c.relname, CAST(c.relkind AS text) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE c.relkind IN ('r', 'p', 'm') AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'
          AND has_table_privilege(c.oid, 'SELECT') ORDER BY 1, 2 LIMIT 1000`
    ).rows.map((r) => ({ schema: String(r[0]), table: String(r[1]), kind: KINDS[String(r[2])] ?? String(r[2]) }))
  } catch (e) {
    throw new UserError(failureSentence(e, 'this connection', env, null), 'bad-input')
  }
}

/**
 * Links a PostgreSQL table or materialized view (`table`: as PostgreSQL names it, `schema.table`, quoted identifiers
 * allowed) as a dataset: an officer act (the officer's credentials are checked before any connection), signed over
 * what the link is and recorded in the audit log with a checkpoint.
 */
export function linkPostgres(db: Database.Database, req: LinkWarehouseRequest): CountedDatasetInfo {
  const name = newDatasetName(db, req.name)
  const url = checkPostgresUrl(req.url)
  const passwordEnv = checkPasswordEnv(req.passwordEnv)
  if (typeof req.table !== 'string' || req.table.trim() === '' || req.table.length > 300) {
    throw new UserError('Name the table or view to link (schema.table)', 'bad-input')
  }
  const key: OfficerKey = unlockOfficer(db, { officer: req.officer, passphrase: req.passphrase })
  const conn = connectionAtUse(url, passwordEnv)
  const shown = `"${req.table.slice(0, 120)}"`
  // to_regclass parses the name as PostgreSQL does (search_path, quoting) and gives null for no such relation.
  let info: RelationInfo | null
  try {
    info = relationRow(pgAll(conn, `${RELATION_SQL} WHERE c.oid = to_regclass($1)`, [req.table.trim()]).rows[0])
  } catch (e) {
    if (e instanceof PgError && e.code !== null && /^42/.test(e.code) && pgFailureKind(e) === 'other') {
      throw new UserError(`${shown} is not a valid table name; give schema.table`, 'bad-input')
    }
    throw new UserError(`Linking ${shown}: ${failureSentence(e, 'this connection', passwordEnv, shown)}`, 'bad-input')
  }
  if (!info) throw new UserError(`There is no table or view ${shown} in that database (as the connection's role sees it)`, 'not-found')
  if (!(info.relkind in KINDS)) throw new UserError(`${shown} is not a table or view`, 'bad-input')
  const rel = pgRelation(info)
  if (!info.canRead) throw new UserError(`The connection's role may not read ${rel}; ask the database's owner to grant SELECT on it`, 'bad-input')
  let schema: Array<{ name: string; pgType: string }>
  let computed: string | null
  try {
    computed = computedAtRead(conn, info.oid)
    schema = columnsOf(conn, info.schema, info.table)
  } catch (e) {
    throw new UserError(`Linking ${shown}: ${failureSentence(e, 'this connection', passwordEnv, shown)}`, 'bad-input')
  }
  if (computed) throw new UserError(`${rel} ${computed}`, 'bad-input')
  if (schema.length === 0) throw new UserError(`${rel} has no columns`, 'bad-input')
  checkPersonColumn(schema, req.personColumn, rel)
  // The declared types only: a bigint is integer whatever its values. A value beyond 2^53 that a
  // release must bring back as a number fails that release after its charge (the neutral failure), never before.
  const columns: PgSchemaColumn[] = schema.map((c) => ({ ...c, type: pgCatalogType(c.pgType) }))
  const { rowEstimate: _estimate, ...fingerprint } = fingerprintOf(info)
  void _estimate
  const found = info
  return insertWarehouseLink(db, key, req, {
    name,
    sourceFile: fingerprint.relation,
    columns,
    writeSource: (dsId, datasetUid) => {
      const { signer, signature } = signLink(key, {
        datasetId: dsId,
        datasetUid,
        url,
        passwordEnv,
        schema: found.schema,
        table: found.table,
        kind: fingerprint.kind,
        columns,
        personColumn: req.personColumn
      })
      db.prepare(
        'INSERT INTO dataset_postgres_sources (dataset_id, url, password_env, schema_name, relation_name, columns, fingerprint, signer, signature) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)'
      ).run(dsId, url, passwordEnv, found.schema, found.table, JSON.stringify(columns), JSON.stringify(fingerprint), signer, signature)
    },
    audit: { kind: 'officer/link-postgres', detail: { name, relation: fingerprint.relation, kind: fingerprint.kind } }
  })
}
