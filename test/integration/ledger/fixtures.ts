/**
 * Test fixtures for the ledger: a crafted dataset written straight into the datasets area's tables (schema of migration
 * 002), so that ledger and release tests do not depend on the CSV import.
 */
import type Database from 'better-sqlite3'
import { openStore, type Store } from '../../../src-main/services/store/store'
import { ledgerHandlers } from '../../../src-main/services/releases/ledger-handlers'
import type { ServiceContext } from '../../../src-main/services/platform/handler-types'
import { inlineReleases } from '../../../src-main/services/releases/release-service'
import { tempWorkspace } from '../helpers'
import type { QueryDefinition } from '../../../src-main/contract/datasets'

export interface CraftedColumn {
  name: string
  type: 'integer' | 'real' | 'text' | 'timestamp'
}

export function craftDataset(db: Database.Database, name: string, columns: CraftedColumn[], rows: Array<Array<string | number | null>>): number {
  const tx = db.transaction(() => {
    const id = Number(
      db
        .prepare(`INSERT INTO datasets (name, table_name, source_file, source_bytes, delimiter, row_count) VALUES (?, ?, 'crafted.csv', 0, ',', ?)`)
        .run(name, `pending_${name}`, rows.length).lastInsertRowid
    )
    const table = `ds_${id}`
    db.prepare('UPDATE datasets SET table_name = ? WHERE id = ?').run(table, id)
    const sqlType = (t: CraftedColumn['type']) => (t === 'text' ? 'TEXT' : t === 'real' ? 'REAL' : 'INTEGER')
    db.exec(`CREATE TABLE ${table} (${columns.map((c, i) => `c${i + 1} ${sqlType(c.type)}`).join(', ')})`)
    const insCol = db.prepare(
      `INSERT INTO dataset_columns (dataset_id, position, name, sql_name, type, type_source) VALUES (?, ?, ?, ?, ?, 'inferred')`
    )
    columns.forEach((c, i) => insCol.run(id, i + 1, c.name, `c${i + 1}`, c.type))
    const ins = db.prepare(`INSERT INTO ${table} VALUES (${columns.map(() => '?').join(', ')})`)
    for (const r of rows) ins.run(...r)
    return id
  })
  return tx()
}

export function saveQuery(db: Database.Database, datasetId: number, name: string, definition: QueryDefinition): number {
  return Number(
    db
      .prepare('INSERT INTO queries (dataset_id, name, kind, definition) VALUES (?, ?, ?, ?)')
      .run(datasetId, name, definition.kind, JSON.stringify(definition)).lastInsertRowid
  )
}

/** Distinctive numbers: nothing else in an output is likely to contain them by accident. */
export const DISTINCTIVE = [7919, 104729, 1299709, 15485863, 86028121, 179424673]

/** A fresh workspace, its store and the ledger area's handlers (each test file's beforeEach). */
export function openLedgerWorkspace(prefix: string): { ws: ReturnType<typeof tempWorkspace>; store: Store; h: ReturnType<typeof ledgerHandlers> } {
  const ws = tempWorkspace(prefix)
  const store = openStore(ws.db)
  return { ws, store, h: ledgerHandlers(inlineContext(store)) }
}

/** A services context whose releases run inline on this thread (as the CLI runs them), for the handlers under test. */
export function inlineContext(store: Store): ServiceContext {
  return { store, releases: inlineReleases(store.db), deployment: 'workbench', cadenceMs: null } as unknown as ServiceContext
}

/** Close the store (a test may have closed it already) and remove the workspace (each test file's afterEach). */
export function closeLedgerWorkspace(store: Store, ws: ReturnType<typeof tempWorkspace>): void {
  try {
    store.close()
  } catch {
    /* closed */
  }
  ws.cleanup()
}

/** The number of charges in the ledger for a dataset. */
export function chargeCount(db: Database.Database, datasetId: number): number {
  return (db.prepare(`SELECT count(*) AS n FROM ledger_entries WHERE kind = 'charge' AND dataset_id = ?`).get(datasetId) as { n: number }).n
}
