/**
 * What linking a dataset does whatever the engine (a file through DuckDB, a PostgreSQL relation): the range check that
 * keeps integers exact, the check of the columns declared one value per person over every row, and the catalog rows
 * (`datasets`, `dataset_columns`, `dataset_units`, and the engine's own source row) written in one transaction.
 */
import type Database from 'better-sqlite3'
import type { ColumnType } from '../../contract/datasets'
import { UserError } from '../errors'
import { checkDatasetName, nameTaken } from '../datasets/catalog'

const SAFE = Number.MAX_SAFE_INTEGER

/** What every link request names: the dataset and its privacy unit. */
export interface LinkUnitRequest {
  name: string
  /** The person column, or null for a row-level dataset. */
  personColumn: string | null
  /** Person-level: the columns declared to hold one value per person (checked over every row). */
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
  const r = run(`SELECT ${ints.map((c) => `CAST(min(${ident(c.name)}) AS ${double}), CAST(max(${ident(c.name)}) AS ${double})`).join(', ')} FROM ${relation}`)[0]
  ints.forEach((c, i) => {
    const lo = r[2 * i] as number | null
    const hi = r[2 * i + 1] as number | null
    if ((lo !== null && lo < -SAFE) || (hi !== null && hi > SAFE)) c.type = 'text'
  })
}

/**
 * Person-level: the per-person flags of the columns (null for row-level). Only the columns DECLARED to hold one value
 * per person are flagged (an observed flag would tell the catalog's readers whether some person has two values), each
 * checked over all rows (an empty value counts as a value). `where` names the source in sentences ("the file").
 */
export function declaredPerPerson<C extends LinkedColumn>(
  columns: C[],
  personColumn: string | null,
  declared: readonly string[],
  stored: (c: C) => string,
  relation: string,
  where: string,
  run: RunOnSource
): boolean[] | null {
  if (personColumn === null) return null
  for (const name of declared) {
    if (!columns.some((c) => c.name === name)) throw new UserError(`The column "${name.slice(0, 80)}" declared one value per person is not in ${where}`, 'bad-input')
  }
  const checked = columns.filter((c) => declared.includes(c.name) && c.name !== personColumn)
  if (checked.length > 0) {
    const p = stored(columns.find((c) => c.name === personColumn)!)
    const inner = checked.map((c, j) => `count(DISTINCT ${stored(c)}) + max(CAST(${stored(c)} IS NULL AS INTEGER)) AS n${j}`).join(', ')
    const outer = checked.map((_, j) => `coalesce(max(n${j}), 0) <= 1`).join(', ')
    const r = run(`SELECT ${outer} FROM (SELECT ${inner} FROM ${relation} GROUP BY ${p}) AS per_person`)[0]
    checked.forEach((c, j) => {
      if (r[j] !== true) {
        throw new UserError(
          `The column "${c.name.slice(0, 80)}" was declared to hold one value per person, but ${where} has a person with several values in it; link without declaring it`,
          'bad-input'
        )
      }
    })
  }
  return columns.map((c) => c.name === personColumn || checked.includes(c))
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
  /** Writes the engine's source row for the new dataset id (same transaction). */
  writeSource: (datasetId: number) => void
}

/** Writes a linked dataset's catalog rows in one transaction; returns its id. */
export function insertLinkedDataset(db: Database.Database, e: LinkedCatalogEntry): number {
  return db.transaction(() => {
    const info = db
      .prepare('INSERT INTO datasets (name, table_name, source_file, source_bytes, delimiter, row_count, skipped_rows) VALUES (?, ?, ?, ?, ?, ?, 0)')
      .run(e.name, `linked_${process.pid}_${Date.now()}_${Math.random().toString(16).slice(2)}`, e.sourceFile, e.sourceBytes, ',', e.rowCount)
    const dsId = Number(info.lastInsertRowid)
    // The generated table name is reserved (no table exists behind a linked dataset).
    db.prepare('UPDATE datasets SET table_name = ? WHERE id = ?').run(`ds_${dsId}`, dsId)
    const addCol = db.prepare('INSERT INTO dataset_columns (dataset_id, position, name, sql_name, type, type_source, per_person) VALUES (?, ?, ?, ?, ?, ?, ?)')
    e.columns.forEach((c, j) => addCol.run(dsId, j + 1, c.name, `c${j + 1}`, c.type, 'inferred', e.perPerson === null ? null : e.perPerson[j] ? 1 : 0))
    db.prepare('INSERT INTO dataset_units (dataset_id, person_column) VALUES (?, ?)').run(dsId, e.personColumn)
    e.writeSource(dsId)
    return dsId
  })()
}
