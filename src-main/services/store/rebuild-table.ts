/**
 * Rebuilding one table inside a migration's transaction, for the changes SQLite cannot make in place (a CHECK, a
 * column's type or constraint), with foreign keys on and kept whole (docs/dev/migrations.md).
 *
 * `PRAGMA foreign_keys` cannot change inside a transaction, so the table is rebuilt with them on:
 * 1. its rows are copied to a temporary table;
 * 2. with `PRAGMA defer_foreign_keys = ON`, it is dropped: the implicit DELETE of DROP TABLE orphans the child rows that
 *    reference it (release_ex_post -> releases), which only counts deferred violations (no trigger fires: a dropped
 *    table's triggers go first);
 * 3. it is created again under its own name from the new definition, so that every child's `REFERENCES <table>` names it
 *    again (no ALTER TABLE RENAME, which would rewrite the children's references to the old table's new name);
 * 4. the rows are copied back unchanged, column by column: each insert of a parent row settles the violations its
 *    children counted, so the transaction commits;
 * 5. its AUTOINCREMENT counter, indexes and triggers are put back (triggers after the copy, so none fires on it);
 * 6. `PRAGMA foreign_key_check` must find nothing, or the rebuild throws and the caller's transaction rolls back.
 *
 * Refused: a table some child references with an ON DELETE action (CASCADE, SET NULL, SET DEFAULT, RESTRICT): the
 * implicit DELETE would carry it out on the children.
 */
import type Database from 'better-sqlite3'

type Db = Database.Database

export interface RebuildTableOptions {
  /** The table rebuilt (in the main schema). */
  table: string
  /**
   * The new CREATE TABLE statement, naming the table by its own name (a self-reference writes `REFERENCES <table>`).
   * Its columns must be the old table's, by name (any order): every value is copied unchanged.
   */
  create: string
  /**
   * The CREATE INDEX and CREATE TRIGGER statements of the rebuilt table; default: the old table's own, as they were
   * (indexes made by UNIQUE or PRIMARY KEY come with `create`).
   */
  objects?: string[]
}

export interface RebuildTableResult {
  rows: number
  /** The schema objects re-created after the copy (indexes, then triggers). */
  objects: string[]
}

const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`

interface ForeignKeyRow {
  table: string
  on_delete: string
}

/** Every table with a foreign key to `table` (itself included), and the ON DELETE action of each such key. */
function childKeys(db: Db, table: string): Array<{ child: string; onDelete: string }> {
  const tables = db.prepare("SELECT name FROM main.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").pluck().all() as string[]
  const out: Array<{ child: string; onDelete: string }> = []
  for (const child of tables) {
    for (const fk of db.prepare(`SELECT * FROM pragma_foreign_key_list(?)`).all(child) as ForeignKeyRow[]) {
      if (fk.table.toLowerCase() === table.toLowerCase()) out.push({ child, onDelete: fk.on_delete })
    }
  }
  return out
}

function columnsOf(db: Db, schema: 'main' | 'temp', table: string): string[] {
  return (db.prepare(`SELECT name FROM pragma_table_xinfo(?, ?) WHERE hidden = 0`).all(table, schema) as Array<{ name: string }>).map((c) => c.name)
}

/** Rebuild `table` from `create` inside the caller's transaction, keeping its rows, its children's references and its objects. */
export function rebuildTable(db: Db, options: RebuildTableOptions): RebuildTableResult {
  if (!db.inTransaction) throw new Error("rebuildTable runs inside a transaction (a migration's)")
  const { table } = options
  const old = db.prepare("SELECT sql FROM main.sqlite_master WHERE type = 'table' AND name = ?").get(table) as { sql: string } | undefined
  if (!old) throw new Error(`rebuildTable: there is no table ${table}`)
  if (!new RegExp(`^\\s*CREATE\\s+TABLE\\s+(IF\\s+NOT\\s+EXISTS\\s+)?("${table}"|${table})\\s*\\(`, 'i').test(options.create)) {
    throw new Error(`rebuildTable: the new definition must be a CREATE TABLE ${table} (...) statement`)
  }
  for (const k of childKeys(db, table)) {
    if (k.onDelete !== 'NO ACTION') {
      throw new Error(`rebuildTable: ${k.child} references ${table} ON DELETE ${k.onDelete}, which dropping ${table} would carry out`)
    }
  }
  const objects =
    options.objects ??
    (
      db
        .prepare(
          "SELECT sql FROM main.sqlite_master WHERE tbl_name = ? AND type IN ('index', 'trigger') AND sql IS NOT NULL ORDER BY type = 'trigger', rowid"
        )
        .pluck()
        .all(table) as string[]
    ).slice()
  const oldColumns = columnsOf(db, 'main', table)
  const sequence = db.prepare('SELECT seq FROM main.sqlite_sequence WHERE name = ?').pluck()
  const hasSequence = db.prepare("SELECT 1 FROM main.sqlite_master WHERE name = 'sqlite_sequence'").get() !== undefined
  const savedSeq = hasSequence ? (sequence.get(table) as number | undefined) : undefined
  const hold = `qa_rebuild_${table}`
  const deferred = db.pragma('defer_foreign_keys', { simple: true }) as number
  db.pragma('defer_foreign_keys = ON')
  try {
    db.exec(`CREATE TEMP TABLE ${quoted(hold)} AS SELECT * FROM main.${quoted(table)}`)
    const rows =
      (db
        .prepare(`SELECT count(*) FROM temp.${quoted(hold)}`)
        .pluck()
        .get() as number) ?? 0
    db.exec(`DROP TABLE main.${quoted(table)}`)
    db.exec(options.create)
    const newColumns = columnsOf(db, 'main', table)
    const missing = oldColumns.filter((c) => !newColumns.includes(c))
    const added = newColumns.filter((c) => !oldColumns.includes(c))
    if (missing.length || added.length) {
      throw new Error(
        `rebuildTable copies ${table}'s columns unchanged; the new definition ${missing.length ? `lacks ${missing.join(', ')}` : ''}` +
          `${missing.length && added.length ? ' and ' : ''}${added.length ? `adds ${added.join(', ')}` : ''}`
      )
    }
    const cols = oldColumns.map(quoted).join(', ')
    db.exec(`INSERT INTO main.${quoted(table)} (${cols}) SELECT ${cols} FROM temp.${quoted(hold)} ORDER BY rowid`)
    if (savedSeq !== undefined && /\bAUTOINCREMENT\b/i.test(options.create)) {
      const now = sequence.get(table) as number | undefined
      if (now === undefined) db.prepare('INSERT INTO main.sqlite_sequence (name, seq) VALUES (?, ?)').run(table, savedSeq)
      else if (now < savedSeq) db.prepare('UPDATE main.sqlite_sequence SET seq = ? WHERE name = ?').run(savedSeq, table)
    }
    for (const sql of objects) db.exec(sql)
    db.exec(`DROP TABLE temp.${quoted(hold)}`)
    const broken = db.prepare('PRAGMA main.foreign_key_check').all() as Array<{ table: string; rowid: number; parent: string }>
    if (broken.length) {
      const first = broken[0]
      throw new Error(
        `rebuildTable(${table}) left ${broken.length} row(s) whose foreign key points nowhere (first: ${first.table} rowid ${first.rowid} -> ${first.parent})`
      )
    }
    return { rows, objects }
  } finally {
    db.pragma(`defer_foreign_keys = ${deferred ? 'ON' : 'OFF'}`)
  }
}
