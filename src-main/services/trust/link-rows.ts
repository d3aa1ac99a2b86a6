/**
 * Every stored link, checked against its officer's signature as the kernel reads the workspace: what a use of the link
 * refuses (sources/linked-file.ts, linked-postgres.ts, linked-clickhouse.ts rebuild the same signed facts), `ledger
 * verify` reports. A link with no signer at all (made before links were signed) is refused at use until an officer
 * links it again, and is not a finding; a link carrying a signer whose signature does not cover what is stored was
 * changed in the workspace file.
 */
import type Database from 'better-sqlite3'
import { fileLinkSigningText, linkFactsText, linkSigningText, uidFact } from './link-signature'

interface LinkRow {
  dataset_id: number
  name: string
  uid: string | null
  person_column: string | null
  signer: string | null
  signature: string | null
}

function parsed<T>(text: string): T[] | null {
  try {
    const v = JSON.parse(text) as unknown
    return Array.isArray(v) ? (v as T[]) : null
  } catch {
    return null
  }
}

/** The datasets whose signed link no longer matches its signature (or the catalog's columns), with the link's kind. */
export function forgedLinks(
  db: Database.Database,
  signedBy: (text: string, signer: string, signature: string) => boolean
): Array<{ datasetId: number; name: string; kind: 'file' | 'PostgreSQL' | 'ClickHouse' }> {
  const out: Array<{ datasetId: number; name: string; kind: 'file' | 'PostgreSQL' | 'ClickHouse' }> = []
  const catalogOf = db.prepare('SELECT name, type FROM dataset_columns WHERE dataset_id = ? ORDER BY position')
  const sameCatalog = (id: number, columns: Array<{ name: string; type: string }>) => {
    const c = catalogOf.all(id) as Array<{ name: string; type: string }>
    return c.length === columns.length && c.every((x, i) => x.name === columns[i].name && x.type === columns[i].type)
  }
  const check = (
    r: LinkRow,
    kind: 'file' | 'PostgreSQL' | 'ClickHouse',
    text: (() => string) | null,
    columns: Array<{ name: string; type: string }> | null
  ) => {
    if (r.signer === null) return
    const ok = text !== null && columns !== null && sameCatalog(r.dataset_id, columns) && signedBy(text(), r.signer, r.signature ?? '')
    if (!ok) out.push({ datasetId: r.dataset_id, name: r.name, kind })
  }
  const join = 'JOIN datasets d ON d.id = s.dataset_id LEFT JOIN dataset_units u ON u.dataset_id = s.dataset_id'
  for (const r of db
    .prepare(
      `SELECT s.dataset_id, d.name, d.uid, u.person_column, s.signer, s.signature, s.format, s.path, s.schema, s.identity FROM dataset_sources s ${join}`
    )
    .all() as Array<LinkRow & { format: string; path: string; schema: string; identity: string | null }>) {
    const columns = parsed<{ name: string; duckType: string; type: string }>(r.schema)
    check(
      r,
      'file',
      columns &&
        (() =>
          fileLinkSigningText({
            datasetId: r.dataset_id,
            datasetUid: r.uid,
            path: r.path,
            format: r.format,
            columns,
            personColumn: r.person_column,
            identity: r.identity ?? ''
          })),
      columns
    )
  }
  for (const r of db
    .prepare(
      `SELECT s.dataset_id, d.name, d.uid, u.person_column, s.signer, s.signature, s.url, s.password_env, s.schema_name, s.relation_name, s.columns, s.fingerprint FROM dataset_postgres_sources s ${join}`
    )
    .all() as Array<
    LinkRow & { url: string; password_env: string | null; schema_name: string; relation_name: string; columns: string; fingerprint: string }
  >) {
    const columns = parsed<{ name: string; pgType: string; type: string }>(r.columns)
    let kind: unknown
    try {
      kind = (JSON.parse(r.fingerprint) as { kind?: unknown }).kind
    } catch {
      kind = undefined
    }
    check(
      r,
      'PostgreSQL',
      columns &&
        (() =>
          linkSigningText({
            datasetId: r.dataset_id,
            datasetUid: r.uid,
            url: r.url,
            passwordEnv: r.password_env,
            schema: r.schema_name,
            table: r.relation_name,
            kind: String(kind),
            columns,
            personColumn: r.person_column
          })),
      columns
    )
  }
  for (const r of db
    .prepare(
      `SELECT s.dataset_id, d.name, d.uid, u.person_column, s.signer, s.signature, s.url, s.password_env, s.database_name, s.table_name, s.table_engine, s.columns FROM dataset_clickhouse_sources s ${join}`
    )
    .all() as Array<
    LinkRow & { url: string; password_env: string | null; database_name: string; table_name: string; table_engine: string; columns: string }
  >) {
    const columns = parsed<{ name: string; chType: string; type: string }>(r.columns)
    check(
      r,
      'ClickHouse',
      columns &&
        (() =>
          linkFactsText('clickhouse', {
            datasetId: r.dataset_id,
            ...uidFact(r.uid),
            url: r.url,
            passwordEnv: r.password_env,
            database: r.database_name,
            table: r.table_name,
            engine: r.table_engine,
            columns: columns.map((c) => ({ name: c.name, chType: c.chType, type: c.type })),
            personColumn: r.person_column
          })),
      columns
    )
  }
  return out
}

/** The source table each signed link audit event's dataset must have a row in, with the link's kind. */
const LINK_EVENTS: Record<string, { table: string; kind: 'file' | 'PostgreSQL' | 'ClickHouse' }> = {
  'officer/link-file': { table: 'dataset_sources', kind: 'file' },
  'officer/link-postgres': { table: 'dataset_postgres_sources', kind: 'PostgreSQL' },
  'officer/link-clickhouse': { table: 'dataset_clickhouse_sources', kind: 'ClickHouse' }
}

/**
 * The datasets an officer linked (a signed link audit event names them) that hold no signed source row of that kind
 * now (a row put back in the unsigned form of links made before signing counts as removed). An
 * event naming a uid counts only for the dataset with that uid; one without (linked before datasets had uids) for the
 * dataset holding its id. The caller passes only events whose signature it checks (the kernel reports a bad one).
 */
export function removedLinks(
  db: Database.Database,
  signedEvents: ReadonlyArray<{ kind: string; subject: string | null; detail: string }>,
  uids: ReadonlyMap<number, string | null>
): Array<{ datasetId: number; name: string; kind: 'file' | 'PostgreSQL' | 'ClickHouse' }> {
  const out: Array<{ datasetId: number; name: string; kind: 'file' | 'PostgreSQL' | 'ClickHouse' }> = []
  const seen = new Set<number>()
  for (const a of signedEvents) {
    // Only the three link kinds: an event written with the file may carry any kind ("constructor", "toString").
    const link = Object.hasOwn(LINK_EVENTS, a.kind) ? LINK_EVENTS[a.kind] : undefined
    const m = /^dataset:(\d+)$/.exec(a.subject ?? '')
    if (!link || !m) continue
    const datasetId = Number(m[1])
    if (seen.has(datasetId) || !uids.has(datasetId)) continue
    let named: unknown
    try {
      named = (JSON.parse(a.detail) as { datasetUid?: unknown }).datasetUid
    } catch {
      named = undefined
    }
    if (typeof named === 'string' && named !== uids.get(datasetId)) continue
    if (db.prepare(`SELECT 1 FROM ${link.table} WHERE dataset_id = ? AND signer IS NOT NULL`).get(datasetId) !== undefined) continue
    seen.add(datasetId)
    const name = (db.prepare('SELECT name FROM datasets WHERE id = ?').get(datasetId) as { name: string } | undefined)?.name ?? String(datasetId)
    out.push({ datasetId, name, kind: link.kind })
  }
  return out
}
