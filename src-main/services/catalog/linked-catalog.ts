/**
 * What linking a dataset does whatever the engine (a file through DuckDB, a PostgreSQL relation): the range check that
 * keeps integers exact, the refusal of per-person declarations (a linked source can change), and the catalog rows
 * (`datasets`, `dataset_columns`, `dataset_units`, and the engine's own source row) written in one transaction.
 */
import { randomUUID } from 'node:crypto'
import type Database from 'better-sqlite3'
import type { ColumnType } from '../../contract/datasets'
import { UserError } from '../platform/errors'
import { checkDatasetName, nameTaken } from './catalog'
import { freshDatasetId, freshDatasetUid } from './fresh-dataset-id'

const SAFE = Number.MAX_SAFE_INTEGER

/** What every link request names: the dataset and its privacy unit. */
export interface LinkUnitRequest {
  name: string
  /** The person column, or null for a row-level dataset. */
  personColumn: string | null
  /** Person-level: columns declared to hold one value per person: refused on a linked source (`linkedPerPerson`). */
  perPersonColumns?: string[]
}

/** The new dataset's name, checked and not taken. */
export function newDatasetName(db: Database.Database, raw: unknown): string {
  const name = checkDatasetName(raw)
  if (nameTaken(db, name)) throw new UserError(`Another dataset is already named "${name}"; choose another name`, 'conflict')
  return name
}

export interface LinkedColumn {
  name: string
  type: ColumnType
}

/** Runs one statement on the linked source and returns its rows. */
export type RunOnSource = (sql: string) => unknown[][]

/**
 * Integers must be exact JS numbers: each of `ints` with a value beyond 2^53 becomes text (as an import makes it).
 * `ident` quotes a column's name, `relation` is the source's relation, `double` the engine's double type.
 */
export function textIfBeyondSafe(ints: LinkedColumn[], ident: (name: string) => string, relation: string, double: string, run: RunOnSource): void {
  if (ints.length === 0) return
  const r = run(
    `SELECT ${ints.map((c) => `CAST(min(${ident(c.name)}) AS ${double}), CAST(max(${ident(c.name)}) AS ${double})`).join(', ')} FROM ${relation}`
  )[0]
  ints.forEach((c, i) => {
    const lo = r[2 * i] as number | null
    const hi = r[2 * i + 1] as number | null
    if ((lo !== null && lo < -SAFE) || (hi !== null && hi > SAFE)) c.type = 'text'
  })
}

/**
 * Person-level: the per-person flags of the columns (null for row-level): the person column only. Other columns cannot
 * be declared one value per person on a linked source. The source may change after the link (a person gaining a second
 * value), so the declaration could not be kept for the charge (privacy-unit.ts ignores it for linked datasets), and
 * checking it over the rows at link time told the caller, uncharged, whether some person in the private rows has two
 * values. Refused before anything is read, in words that depend on the request only.
 */
export function linkedPerPerson(columns: LinkedColumn[], personColumn: string | null, declared: readonly string[]): boolean[] | null {
  if (personColumn === null) return null
  const others = declared.filter((c) => c !== personColumn)
  if (others.length > 0) {
    throw new UserError(
      `Columns cannot be declared one value per person on a linked source (${others.map((c) => `"${c.slice(0, 80)}"`).join(', ')}): the source can change ` +
        'after it is linked, so the declaration could not be kept. Link without declaring them (questions grouped by them are charged as ' +
        'one person in every group), or import a copy, where the declaration is checked and fixed.',
      'bad-input'
    )
  }
  return columns.map((c) => c.name === personColumn)
}

export interface LinkedCatalogEntry {
  name: string
  /** What the catalog shows as the source: a file's base name, or schema.table. */
  sourceFile: string
  sourceBytes: number
  /** A count (files) or an estimate (databases). */
  rowCount: number
  columns: LinkedColumn[]
  personColumn: string | null
  perPerson: boolean[] | null
  /** Writes the engine's source row for the new dataset id and uid (same transaction; the link signs both). */
  writeSource: (datasetId: number, datasetUid: string) => void
}

/** Writes a linked dataset's catalog rows in one transaction; returns its id. */
export function insertLinkedDataset(db: Database.Database, e: LinkedCatalogEntry): number {
  const uid = freshDatasetUid()
  return db.transaction(() => {
    const info = db
      .prepare(
        'INSERT INTO datasets (id, uid, name, table_name, source_file, source_bytes, delimiter, row_count, skipped_rows) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0)'
      )
      .run(freshDatasetId(db), uid, e.name, `linked_pending_${randomUUID()}`, e.sourceFile, e.sourceBytes, ',', e.rowCount)
    const dsId = Number(info.lastInsertRowid)
    // The generated table name is reserved (no table exists behind a linked dataset).
    db.prepare('UPDATE datasets SET table_name = ? WHERE id = ?').run(`ds_${dsId}`, dsId)
    const addCol = db.prepare(
      'INSERT INTO dataset_columns (dataset_id, position, name, sql_name, type, type_source, per_person) VALUES (?, ?, ?, ?, ?, ?, ?)'
    )
    e.columns.forEach((c, j) =>
      addCol.run(dsId, j + 1, c.name, `c${j + 1}`, c.type, 'inferred', e.perPerson === null ? null : e.perPerson[j] ? 1 : 0)
    )
    db.prepare('INSERT INTO dataset_units (dataset_id, person_column) VALUES (?, ?)').run(dsId, e.personColumn)
    e.writeSource(dsId, uid)
    return dsId
  })()
}
