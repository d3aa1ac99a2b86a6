/**
 * The privacy unit of a dataset (ALGORITHMS.md section 6): what its guarantees and its ledger protect.
 *
 * - **row-level**: each row is a different person; a guarantee covers one row.
 * - **person-level**: a person column identifies the person; a person may have many rows, and a guarantee covers all of
 *   them together.
 *
 * Declared at import (`personColumn` in the import request, `import --person-column NAME` or `--row-level`), stored in
 * `dataset_units` (migration 006) and fixed for good. At import, each column of a person-level dataset is checked over
 * all rows: does it hold at most one value per person (`dataset_columns.per_person`)? Cells over such columns hold each
 * person whole, so parallel composition across them is sound for persons; over any other column a person may lie in
 * many cells and the cells must be charged as the whole dataset (`cellsForUnit`).
 */
import type Database from 'better-sqlite3'
import { statement } from '../store/statements'

type Db = Database.Database

/**
 * The unit and the columns declared one value per person, as the workspace's tables hold them (`dataset_units`,
 * `dataset_columns.per_person`). Those tables are plain rows that anyone with the workspace file can rewrite (review:
 * setting `per_person = 1` on a column a person spans dropped a charge six-fold, and verify noticed nothing). So the
 * accounting does not trust them alone: the privacy officer signs them with every budget (`unitDeclaration` is part
 * of the budget's signed ledger entry), and a release uses the signed declaration (`signedUnit`); `unitProblem` denies
 * a release when the tables no longer match what was signed. A dataset without a recorded unit (imported before
 * units existed, or crafted) is row-level.
 */
function storedUnit(db: Db, datasetId: number): { kind: 'row' } | { kind: 'person'; column: string } {
  const row = statement(db, 'SELECT person_column FROM dataset_units WHERE dataset_id = ?').get(datasetId) as
    { person_column: string | null } | undefined
  return row && row.person_column !== null ? { kind: 'person', column: row.person_column } : { kind: 'row' }
}

/** A linked source (file or database table) can change after it was linked: its per-person declarations are not trusted. */
function isLinked(db: Db, datasetId: number): boolean {
  const inTable = (t: string) => statement(db, `SELECT 1 FROM ${t} WHERE dataset_id = ?`).get(datasetId) !== undefined
  return inTable('dataset_sources') || inTable('dataset_postgres_sources') || inTable('dataset_clickhouse_sources')
}

/** What the officer signs with a budget: the person column (null: row-level) and the columns declared one value per person. */
export interface UnitDeclaration {
  person: string | null
  perPerson: string[]
}

/**
 * The declaration as the workspace's tables hold it now. Columns of a linked source are never declared one value per
 * person: the source may change between releases (a person gaining a second value after the link), and checking it
 * again before a release would tell the analyst, uncharged, whether some person now has two values.
 */
export function unitDeclaration(db: Db, datasetId: number): UnitDeclaration {
  const unit = storedUnit(db, datasetId)
  if (unit.kind === 'row') return { person: null, perPerson: [] }
  const flagged = isLinked(db, datasetId)
    ? []
    : (
        statement(db, 'SELECT name FROM dataset_columns WHERE dataset_id = ? AND per_person = 1 AND name <> ? ORDER BY name').all(
          datasetId,
          unit.column
        ) as Array<{ name: string }>
      ).map((r) => r.name)
  return { person: unit.column, perPerson: flagged }
}

export function sameDeclaration(a: UnitDeclaration, b: UnitDeclaration): boolean {
  return a.person === b.person && a.perPerson.length === b.perPerson.length && a.perPerson.every((c, i) => c === b.perPerson[i])
}

/** The declaration a budget entry's hashed detail carries ('unsigned': none, as budgets set before units were signed). */
export function declarationOf(detail: string): UnitDeclaration | 'unsigned' {
  let unit: unknown
  try {
    unit = (JSON.parse(detail) as { unit?: unknown }).unit
  } catch {
    return 'unsigned'
  }
  const u = unit as { person?: unknown; perPerson?: unknown } | undefined
  if (!u || (u.person !== null && typeof u.person !== 'string') || !Array.isArray(u.perPerson) || u.perPerson.some((c) => typeof c !== 'string'))
    return 'unsigned'
  return { person: u.person, perPerson: [...(u.perPerson as string[])].sort() }
}

/** How many columns are checked per pass over the table (SQLite allows 2,000 result columns; two aggregates each). */
const CHECK_CHUNK = 200

/**
 * The first of `columns` in which some person (rows grouped by `personSql`) has several values, or null. An empty value
 * counts as a value; rows with an empty person field are taken as one person. Reads every row: for the import, and
 * for the officer's act that signs a declaration (never for anything the analyst sees).
 */
export function columnWithSeveralValues(
  db: Db,
  table: string,
  personSql: string,
  columns: ReadonlyArray<{ name: string; sql_name: string }>
): string | null {
  const q = (id: string) => {
    if (!/^c\d+$/.test(id) && !/^ds_\d+$/.test(id)) throw new Error('refusing a non-generated SQL identifier')
    return `"${id}"`
  }
  for (let i = 0; i < columns.length; i += CHECK_CHUNK) {
    const chunk = columns.slice(i, i + CHECK_CHUNK)
    // Per person: distinct non-empty values + 1 if an empty value occurs; more than 1 anywhere = not per-person.
    const inner = chunk.map((c, j) => `count(DISTINCT ${q(c.sql_name)}) + max(${q(c.sql_name)} IS NULL) AS n${j}`).join(', ')
    const outer = chunk.map((_, j) => `coalesce(max(n${j}), 0) <= 1 AS ok${j}`).join(', ')
    const row = statement(db, `SELECT ${outer} FROM (SELECT ${inner} FROM ${q(table)} GROUP BY ${q(personSql)})`).get() as Record<string, number>
    const bad = chunk.find((_, j) => row[`ok${j}`] !== 1)
    if (bad) return bad.name
  }
  return null
}

/**
 * Why the declaration the tables hold now must not be signed, or null: a column declared one value per person has a
 * person with several values (the tables were rewritten outside the app: a budget signed whatever the tables held would
 * sign a declaration forged before the officer's first budget, and it would never be detected), or the person
 * column is not a column of the dataset. For the officer's act only, after the passphrase was checked: the sentence
 * tells a fact about the rows. A linked source has no declarations to check (`unitDeclaration`).
 */
export function declarationProblem(db: Db, datasetId: number, datasetName: string): string | null {
  const d = unitDeclaration(db, datasetId)
  if (d.person === null || d.perPerson.length === 0) return null
  const cols = statement(db, 'SELECT name, sql_name FROM dataset_columns WHERE dataset_id = ?').all(datasetId) as Array<{
    name: string
    sql_name: string
  }>
  const table = (statement(db, 'SELECT table_name FROM datasets WHERE id = ?').get(datasetId) as { table_name: string } | undefined)?.table_name
  const person = cols.find((c) => c.name === d.person)
  const declared = cols.filter((c) => d.perPerson.includes(c.name))
  const outside = `Nothing was signed. The dataset's tables were changed outside the app: re-import it, or run "quiet-alarm ledger verify".`
  if (table === undefined || !person || declared.length !== d.perPerson.length) {
    return `The privacy unit of dataset "${datasetName}" names a column it does not have. ${outside}`
  }
  const several = columnWithSeveralValues(db, table, person.sql_name, declared)
  if (several === null) return null
  return `The column "${several.slice(0, 80)}" is declared to hold one value per person, but a person of "${datasetName}" has several values in it. ${outside}`
}
