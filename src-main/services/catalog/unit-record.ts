/**
 * The privacy unit as the catalog records and names it: the import request's options, the unit in words, and the rows
 * written at import (`dataset_units`, `dataset_columns.per_person`). What the accounting uses is the unit in force
 * (trust/privacy-unit.ts: the one the officer signed with the budget).
 */
import type Database from 'better-sqlite3'
import type { PrivacyUnit } from '../../contract/datasets'
import { UserError } from '../platform/errors'
import { columnWithSeveralValues } from '../trust/unit-declaration'

type Db = Database.Database

/** The unit in a sentence: "each person" / "each row". */
export function unitWord(unit: PrivacyUnit): 'person' | 'row' {
  return unit.kind === 'person' ? 'person' : 'row'
}

/** The unit as the CLI/JSON contract names it: "row", or the person column's name. */
export function unitName(unit: PrivacyUnit): string {
  return unit.kind === 'person' ? unit.column : 'row'
}

/** The unit in words for the catalog, the ledger and reports: "row-level (each row is a different person)" / "person-level (person column "p")". */
export function unitText(unit: PrivacyUnit): string {
  return unit.kind === 'person' ? `person-level (person column "${unit.column}")` : 'row-level (each row is a different person)'
}

/**
 * Checks an import request's `personColumn` (undefined or null: row-level). Returns the column name or null. The column
 * itself is checked against the header later (`checkPersonColumnInHeader`).
 */
export function checkPersonColumnOption(raw: unknown): string | null {
  if (raw === undefined || raw === null) return null
  if (typeof raw !== 'string' || raw.trim() === '')
    throw new UserError('The person column must be the name of a column (or leave it out: each row is a different person)', 'bad-input')
  return raw
}

/** Checks an import request's `perPersonColumns` (absent: none). Only for person-level imports. */
export function checkPerPersonColumnsOption(raw: unknown, personColumn: string | null): string[] {
  if (raw === undefined || raw === null) return []
  if (!Array.isArray(raw) || raw.some((c) => typeof c !== 'string' || c.trim() === ''))
    throw new UserError('perPersonColumns must be a list of column names', 'bad-input')
  if (raw.length > 0 && personColumn === null)
    throw new UserError('Columns with one value per person can only be declared on a person-level import (give the person column)', 'bad-input')
  return [...new Set(raw as string[])]
}

/** The person column must be in the file's header. */
export function checkPersonColumnInHeader(personColumn: string | null, header: string[]): void {
  if (personColumn !== null && !header.includes(personColumn)) {
    throw new UserError(
      `The person column "${personColumn.slice(0, 80)}" is not in the header row; name a column of the file, or import row-level`,
      'bad-input'
    )
  }
}

/**
 * Records the unit of a freshly imported dataset and, for a person-level one, which columns hold one value per person.
 * That is a DECLARATION made at import (`perPersonColumns`: a fact of the domain, e.g. a person's department), not an
 * observation: an observed flag would tell anyone who reads the catalog, or a price, whether some person in the private
 * rows has two values. The declaration is enforced over all rows (an empty value counts as a value;
 * rows with an empty person field are taken as one person): if a declared column has a person with several values the
 * import fails with one sentence (the importer holds the file) and nothing is stored. Undeclared columns count as
 * several values per person. Runs inside the import's last transaction, on the final table.
 */
export function recordPrivacyUnit(db: Db, datasetId: number, personColumn: string | null, declared: readonly string[] = []): void {
  if (!db.inTransaction) throw new Error('the privacy unit is recorded inside the import transaction')
  const cols = db.prepare('SELECT name, sql_name FROM dataset_columns WHERE dataset_id = ? ORDER BY position').all(datasetId) as Array<{
    name: string
    sql_name: string
  }>
  const table = (db.prepare('SELECT table_name FROM datasets WHERE id = ?').get(datasetId) as { table_name: string } | undefined)?.table_name
  if (table === undefined) throw new Error(`dataset ${datasetId} is not in the catalog`)
  if (personColumn === null) {
    db.prepare('INSERT INTO dataset_units (dataset_id, person_column) VALUES (?, NULL)').run(datasetId)
    return
  }
  const person = cols.find((c) => c.name === personColumn)
  if (!person) throw new UserError(`The person column "${personColumn.slice(0, 80)}" is not a column of the dataset`, 'bad-input')
  for (const name of declared) {
    if (!cols.some((c) => c.name === name))
      throw new UserError(`The column "${name.slice(0, 80)}" declared one value per person is not in the file`, 'bad-input')
  }
  const setFlag = db.prepare('UPDATE dataset_columns SET per_person = ? WHERE dataset_id = ? AND name = ?')
  for (const c of cols) setFlag.run(c.name === personColumn ? 1 : 0, datasetId, c.name)
  const checked = cols.filter((c) => declared.includes(c.name) && c.name !== personColumn)
  const several = columnWithSeveralValues(db, table, person.sql_name, checked)
  if (several !== null) {
    throw new UserError(
      `The column "${several.slice(0, 80)}" was declared to hold one value per person, but the file has a person with several values in it; import without declaring it`,
      'bad-input'
    )
  }
  for (const c of checked) setFlag.run(1, datasetId, c.name)
  db.prepare('INSERT INTO dataset_units (dataset_id, person_column) VALUES (?, ?)').run(datasetId, personColumn)
}
