/**
 * The workspace store: one SQLite file per workspace (better-sqlite3), WAL, foreign keys on, numbered migrations.
 * Opening refuses a database written by a newer version of the app, or one whose migration history is not ours.
 */
import Database from 'better-sqlite3'
import { closeSync, existsSync, mkdirSync, openSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { homedir } from 'node:os'
import { UserError } from '../platform/errors'
import type { Store } from '../platform/handler-types'
import { LATEST_SCHEMA_VERSION, type Migration, migrations as defaultMigrations } from './migrations'
import { nativeBindingFor } from './native-binding'
import { dropOrphanStagingTables } from './staging'

export type { Store }

/** How long a write waits for another process's write lock before it fails with one sentence (platform/errors.ts). */
export const BUSY_TIMEOUT_MS = 30_000

export interface OpenStoreOptions {
  /** For tests of the migration machinery only. */
  migrations?: Migration[]
  /** Project root, to find the Electron build of the native module. */
  projectRoot?: string
  readonly?: boolean
  /**
   * Another connection of a process that opened this workspace already (the release runner): no migration (the schema
   * must be the latest) and no clean-up of staging tables (this process's imports may be running).
   */
  secondary?: boolean
}

/** Default workspace file: $QUIET_ALARM_DB, else the user's data directory. */
export function defaultDatabasePath(env = process.env): string {
  if (env.QUIET_ALARM_DB) return resolve(env.QUIET_ALARM_DB)
  const base =
    process.platform === 'win32'
      ? (env.APPDATA ?? resolve(homedir(), 'AppData', 'Roaming'))
      : process.platform === 'darwin'
        ? resolve(homedir(), 'Library', 'Application Support')
        : (env.XDG_DATA_HOME ?? resolve(homedir(), '.local', 'share'))
  return resolve(base, 'quiet-alarm', 'workspace.sqlite')
}

function appliedVersions(db: Database.Database): Array<{ version: number; name: string }> {
  return db.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all() as Array<{ version: number; name: string }>
}

export function openStore(path: string, options: OpenStoreOptions = {}): Store {
  const list = options.migrations ?? defaultMigrations
  const latest = list.length ? list[list.length - 1].version : 0
  const abs = path === ':memory:' ? path : resolve(path)
  if (abs !== ':memory:') {
    // A new workspace holds raw rows: its folder is created 0700 and the file 0600 (SQLite gives -wal and -shm the
    // file's mode), so that no other user of the machine can read it.
    try {
      mkdirSync(dirname(abs), { recursive: true, mode: 0o700 })
    } catch (e) {
      throw new UserError(`Cannot create the workspace folder ${dirname(abs)}: ${(e as Error).message}`, 'store')
    }
    if (!(options.readonly ?? false) && !existsSync(abs)) {
      try {
        closeSync(openSync(abs, 'wx', 0o600))
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST')
          throw new UserError(`Cannot create the workspace ${abs}: ${(e as Error).message}`, 'store')
      }
    }
  }
  let db: Database.Database
  try {
    db = new Database(abs, { nativeBinding: nativeBindingFor(options.projectRoot), readonly: options.readonly ?? false })
  } catch (e) {
    throw new UserError(`Cannot open the workspace database ${abs}: ${(e as Error).message}`, 'store')
  }
  try {
    // Fails with SQLITE_NOTADB on a file that is not a database.
    db.pragma('journal_mode = WAL')
    db.pragma('foreign_keys = ON')
    // Writers queue for the lock (releases from several processes take it IMMEDIATE): up to 30 s before one sentence.
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`)
    db.pragma('synchronous = NORMAL')
    if (options.secondary) {
      const v = (db.prepare('SELECT max(version) v FROM schema_migrations').get() as { v: number | null }).v ?? 0
      if (v !== latest) throw new UserError(`The workspace changed while open (schema ${v}, expected ${latest}); restart Quiet Alarm`, 'store')
      return storeOf(db, abs)
    }
    migrate(db, list, latest)
    // A crash during an import leaves its staging table: dropped on every open (CLI, services, tests), never kept
    // until the next import. Tables of imports still running in a live process are left alone.
    if (!(options.readonly ?? false)) dropOrphanStagingTables(db)
  } catch (e) {
    db.close()
    if (e instanceof UserError) throw e
    const msg = (e as Error).message
    if (/not a database|file is encrypted/i.test(msg)) {
      throw new UserError(`${abs} is not a Quiet Alarm workspace (not an SQLite database)`, 'store')
    }
    throw new UserError(`Cannot open the workspace database ${abs}: ${msg}`, 'store')
  }
  return storeOf(db, abs)
}

function storeOf(db: Database.Database, path: string): Store {
  return {
    db,
    path,
    schemaVersion: () => (db.prepare('SELECT max(version) v FROM schema_migrations').get() as { v: number | null }).v ?? 0,
    close: () => db.close()
  }
}

function migrate(db: Database.Database, list: Migration[], latest: number): void {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
  )`)
  const applied = appliedVersions(db)
  const newest = applied.length ? applied[applied.length - 1].version : 0
  if (newest > latest) {
    throw new UserError(
      `This workspace was written by a newer version of Quiet Alarm (schema ${newest}; this version knows up to ${latest}). ` +
        'Open it with a newer version, or choose another workspace.',
      'store-newer'
    )
  }
  // The applied history must be exactly our first migrations, in order.
  applied.forEach((a, i) => {
    const m = list[i]
    if (!m || m.version !== a.version || m.name !== a.name) {
      throw new UserError(
        `This workspace's schema history is not one Quiet Alarm wrote (found migration ${a.version} "${a.name}" where ` +
          `${m ? `${m.version} "${m.name}"` : 'none'} was expected). Refusing to open it.`,
        'store-history'
      )
    }
  })
  for (const m of list.slice(applied.length)) {
    const run = db.transaction(() => {
      m.up(db)
      db.prepare('INSERT INTO schema_migrations (version, name) VALUES (?, ?)').run(m.version, m.name)
    })
    run()
  }
}

export { LATEST_SCHEMA_VERSION }
