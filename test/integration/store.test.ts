import { afterEach, describe, expect, it } from 'vitest'
import { writeFileSync } from 'node:fs'
import Database from 'better-sqlite3'
import { openStore } from '../../src-main/services/store/store'
import { LATEST_SCHEMA_VERSION, migrations } from '../../src-main/services/store/migrations'
import { tempWorkspace } from './helpers'

let cleanup: (() => void) | undefined
afterEach(() => cleanup?.())

describe('store', () => {
  it('creates a workspace with WAL, foreign keys and every migration recorded', () => {
    const ws = tempWorkspace()
    cleanup = ws.cleanup
    const store = openStore(ws.db)
    expect(store.db.pragma('journal_mode', { simple: true })).toBe('wal')
    expect(store.db.pragma('foreign_keys', { simple: true })).toBe(1)
    expect(store.schemaVersion()).toBe(LATEST_SCHEMA_VERSION)
    const rows = store.db.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all()
    expect(rows).toEqual(migrations.map((m) => ({ version: m.version, name: m.name })))
    store.close()
    // Re-opening applies nothing twice.
    const again = openStore(ws.db)
    expect(again.db.prepare('SELECT count(*) n FROM schema_migrations').get()).toEqual({ n: migrations.length })
    again.close()
  })

  it('refuses a database written by a newer version, with a clear message, and leaves it untouched', () => {
    const ws = tempWorkspace()
    cleanup = ws.cleanup
    openStore(ws.db).close()
    const raw = new Database(ws.db)
    raw.prepare('INSERT INTO schema_migrations (version, name) VALUES (?, ?)').run(LATEST_SCHEMA_VERSION + 7, 'from the future')
    raw.close()
    expect(() => openStore(ws.db)).toThrow(
      new RegExp(
        `written by a newer version of Quiet Alarm \\(schema ${LATEST_SCHEMA_VERSION + 7}; this version knows up to ${LATEST_SCHEMA_VERSION}\\)`
      )
    )
    const check = new Database(ws.db)
    expect(check.prepare('SELECT max(version) v FROM schema_migrations').get()).toEqual({ v: LATEST_SCHEMA_VERSION + 7 })
    check.close()
  })

  it('refuses a migration history that is not ours', () => {
    const ws = tempWorkspace()
    cleanup = ws.cleanup
    const raw = new Database(ws.db)
    raw.exec(
      "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT); INSERT INTO schema_migrations VALUES (1, 'something else', 'x')"
    )
    raw.close()
    expect(() => openStore(ws.db)).toThrow(/schema history is not one Quiet Alarm wrote/)
  })

  it('rolls back a failing migration whole', () => {
    const ws = tempWorkspace()
    cleanup = ws.cleanup
    const broken = [
      ...migrations,
      { version: 999, name: 'half done', up: (db: Database.Database) => db.exec('CREATE TABLE half (x); SELECT * FROM no_such_table') }
    ]
    expect(() => openStore(ws.db, { migrations: broken })).toThrow(/no such table/)
    const store = openStore(ws.db)
    expect(store.schemaVersion()).toBe(LATEST_SCHEMA_VERSION)
    expect(store.db.prepare("SELECT count(*) n FROM sqlite_master WHERE name = 'half'").get()).toEqual({ n: 0 })
    store.close()
  })

  it('says so when the file is not a database', () => {
    const ws = tempWorkspace()
    cleanup = ws.cleanup
    writeFileSync(ws.db, 'name,value\n1,2\n'.repeat(200))
    expect(() => openStore(ws.db)).toThrow(/is not a Quiet Alarm workspace \(not an SQLite database\)/)
  })

  it('keeps audit events append-only', () => {
    const ws = tempWorkspace()
    cleanup = ws.cleanup
    const store = openStore(ws.db)
    store.db.prepare("INSERT INTO audit_events (kind, detail) VALUES ('test', '{}')").run()
    expect(() => store.db.prepare("UPDATE audit_events SET kind = 'x'").run()).toThrow(/append-only/)
    expect(() => store.db.prepare('DELETE FROM audit_events').run()).toThrow(/append-only/)
    store.close()
  })
})
