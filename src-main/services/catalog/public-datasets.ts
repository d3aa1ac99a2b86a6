/**
 * Public datasets (ALGORITHMS.md section 5). A dataset is public only by the privacy officer's act, with a reason,
 * recorded as a ledger entry of kind 'public' (hash-chained) and an audit event. Only a public dataset may supply values
 * that reach a release: column thresholds, group lists, the individuals of a search. Everything else is private,
 * including which keys occur in a private dataset.
 *
 * The checks here read the public dataset's own rows (never a private one's), so their messages may name rows and
 * values: whatever they say is public.
 */
import type Database from 'better-sqlite3'
import type { LedgerEntry } from '../../contract/ledger'
import { UserError } from '../platform/errors'
import { type EntryRow, appendEntry, officerSignedEntry, recordAudit } from '../chain/ledger-chain'
import { toLedgerEntry } from '../ledger/ledger-views'
import { unlockOfficer, writeCheckpoint } from '../trust/officers'
import { type CatalogColumn, type CatalogDataset, getDataset, ident } from './catalog'
import { groupKey, toDisplay } from './column-types'

export interface DeclarePublicInput {
  datasetId: number
  reason: string
  /** The officer's registered name or key id (may be left out when only one officer is registered). */
  officer?: string
  /** The officer's passphrase: declaring a dataset public is an officer act, signed (issue 15). Never stored. */
  passphrase?: string
}

/** The officer's act: records that `datasetId` is public. Idempotent acts are refused (it is already public). */
export function declarePublic(db: Database.Database, input: DeclarePublicInput): LedgerEntry {
  const ds = getDataset(db, input.datasetId)
  const reason = typeof input.reason === 'string' ? input.reason.trim() : ''
  if (reason.length < 3)
    throw new UserError('Declaring a dataset public needs a reason (a few words saying why its values may be released); it is recorded in the ledger')
  if (reason.length > 500) throw new UserError('The reason is too long (at most 500 characters)')
  if (ds.info.public) throw new UserError(`Dataset "${ds.info.name}" is already public`, 'conflict')
  const key = unlockOfficer(db, { officer: input.officer, passphrase: input.passphrase })
  const officer = key.name
  const run = db.transaction(() => {
    const row = appendEntry(db, {
      kind: 'public',
      datasetId: ds.info.id,
      datasetName: ds.info.name,
      notion: null,
      amountNano: 0,
      cells: [],
      releaseId: null,
      actor: officer.slice(0, 100),
      description: reason,
      detail: { act: 'declare-public', columns: ds.info.columns.map((c) => c.name) },
      signer: key
    })
    recordAudit(db, 'officer/declare-public', officer.slice(0, 100), `dataset:${ds.info.id}`, { seq: row.seq, reason })
    writeCheckpoint(db, key)
    return row
  })
  return toLedgerEntry(run.immediate())
}

/**
 * Whether the dataset was declared public by an officer: a ledger entry of kind 'public' that is what an officer signed
 * (review H10: any 'public' row counted, so one appended with the file made a private dataset browsable, a group list,
 * and a workload swept against its true counts without a charge, until someone ran `ledger verify`).
 */
export function isPublicDataset(db: Database.Database, datasetId: number): boolean {
  const rows = db.prepare(`SELECT * FROM ledger_entries WHERE kind = 'public' AND dataset_id = ? ORDER BY seq`).all(datasetId) as EntryRow[]
  return rows.some((e) => officerSignedEntry(db, e))
}

/**
 * A dataset that a query names as the source of released values (`role`, e.g. "threshold table"): it must exist, be
 * public and not be the counted dataset itself. One sentence otherwise (the sentence names only public facts).
 */
export function publicSource(db: Database.Database, datasetId: unknown, countedId: number, role: string): CatalogDataset {
  const other = getDataset(db, datasetId)
  if (other.info.id === countedId) {
    throw new UserError(
      `The ${role} cannot be the counted dataset "${other.info.name}" itself: its values would be released; use a public dataset`,
      'not-public'
    )
  }
  if (other.info.source === 'linked-file' || other.info.source === 'linked-postgres') {
    const what = other.info.source === 'linked-file' ? 'a linked file' : 'a linked PostgreSQL table'
    throw new UserError(
      `The ${role} "${other.info.name}" is ${what}; public tables must be imported datasets for now (import a copy of it)`,
      'not-public'
    )
  }
  if (!other.info.public) {
    throw new UserError(
      `The ${role} "${other.info.name}" is not public: its values would reach the release. Ask the privacy officer to declare it public (quiet-alarm datasets public), or use another source`,
      'not-public'
    )
  }
  return other
}

/** The distinct key tuples of a public dataset's columns, in first-appearance order, with their stored values. */
export function publicKeys(db: Database.Database, ds: CatalogDataset, cols: CatalogColumn[]): Array<{ key: string; values: unknown[] }> {
  const sel = cols.map((c) => ident(c.sqlName)).join(', ')
  const rows = db
    .prepare(`SELECT ${sel} FROM ${ident(ds.tableName)} ORDER BY rowid`)
    .raw()
    .all() as unknown[][]
  const seen = new Set<string>()
  const out: Array<{ key: string; values: unknown[] }> = []
  const types = cols.map((c) => c.type)
  for (const r of rows) {
    const key = groupKey(types, r)
    if (seen.has(key)) continue
    seen.add(key)
    out.push({ key, values: r })
  }
  return out
}

/** The distinct values of one public column as the catalog shows them (text), empty values left out. */
export function publicValues(db: Database.Database, ds: CatalogDataset, col: CatalogColumn): string[] {
  const rows = db
    .prepare(`SELECT ${ident(col.sqlName)} FROM ${ident(ds.tableName)} WHERE ${ident(col.sqlName)} IS NOT NULL ORDER BY rowid`)
    .raw()
    .all() as unknown[][]
  const out: string[] = []
  const seen = new Set<string>()
  for (const [v] of rows) {
    const s = String(toDisplay(col.type, v))
    if (!seen.has(s)) {
      seen.add(s)
      out.push(s)
    }
  }
  return out
}
