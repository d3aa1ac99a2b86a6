/**
 * The workspace store: one SQLite file per workspace (better-sqlite3), WAL, foreign keys on, numbered migrations.
 * Opening refuses a database written by a newer version of the app, or one whose migration history is not ours.
 */
import Database from 'better-sqlite3'
import { chmodSync, closeSync, existsSync, lstatSync, mkdirSync, openSync } from 'node:fs'
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
   * false: a workspace of an older schema is refused with one sentence naming the command that migrates it, and
   * nothing is written (the read-only commands: ledger, ledger verify, report). Default true: pending migrations run,
   * after a copy of the workspace as it was is kept beside it (`migratedCopyPath`).
   */
  migrate?: boolean
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

/**
 * Where a workspace is kept as it was before it is migrated to `latest`: `<file>.before-v<latest>`, or with `.2`,
 * `.3`, ... when that name is taken (an earlier copy is never overwritten).
 */
export function migratedCopyPath(path: string, latest: number): string {
  const base = `${path}.before-v${latest}`
  for (let i = 1; ; i++) {
    const candidate = i === 1 ? base : `${base}.${i}`
    // lstat: a dangling symbolic link counts as taken (the copy is never written through one).
    try {
      lstatSync(candidate)
    } catch {
      return candidate
    }
  }
}

/** The sentence a read-only command answers for a workspace of an older schema. */
export function olderSchemaMessage(path: string, found: number, latest: number): string {
  return (
    `This workspace has schema ${found}, older than this version's ${latest}, and this command only reads: ` +
    `migrate it first with "quiet-alarm migrate --db ${path}" (it keeps a copy as it was); nothing was changed`
  )
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
  let migrated: Store['migrated']
  try {
    // Fails with SQLITE_NOTADB on a file that is not a database. A reader that may not migrate does not set it either
    // (setting it writes the file's header); every workspace this app wrote is in WAL mode already.
    db.pragma(options.migrate === false ? 'journal_mode' : 'journal_mode = WAL')
    db.pragma('foreign_keys = ON')
    // Writers queue for the lock (releases from several processes take it IMMEDIATE): up to 30 s before one sentence.
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`)
    db.pragma('synchronous = NORMAL')
    if (options.secondary) {
      const v = (db.prepare('SELECT max(version) v FROM schema_migrations').get() as { v: number | null }).v ?? 0
      if (v !== latest) throw new UserError(`The workspace changed while open (schema ${v}, expected ${latest}); restart Quiet Alarm`, 'store')
      return storeOf(db, abs)
    }
    migrated = migrate(db, list, latest, abs, options.migrate ?? true)
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
  return storeOf(db, abs, migrated)
}

/**
 * The schema version of the workspace at `path`, read without writing anything (0: no schema yet); for `status`, which
 * reports an older workspace instead of migrating it.
 */
export function readSchemaVersion(path: string, projectRoot?: string): number {
  let db: Database.Database
  try {
    db = new Database(resolve(path), { nativeBinding: nativeBindingFor(projectRoot), readonly: true, fileMustExist: true })
  } catch (e) {
    throw new UserError(`Cannot open the workspace database ${resolve(path)}: ${(e as Error).message}`, 'store')
  }
  try {
    const has = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get() !== undefined
    return has ? ((db.prepare('SELECT max(version) v FROM schema_migrations').get() as { v: number | null }).v ?? 0) : 0
  } catch (e) {
    if (/not a database|file is encrypted/i.test((e as Error).message)) {
      throw new UserError(`${resolve(path)} is not a Quiet Alarm workspace (not an SQLite database)`, 'store')
    }
    throw new UserError(`Cannot open the workspace database ${resolve(path)}: ${(e as Error).message}`, 'store')
  } finally {
    db.close()
  }
}

function storeOf(db: Database.Database, path: string, migrated?: Store['migrated']): Store {
  return {
    db,
    path,
    migrated,
    schemaVersion: () => (db.prepare('SELECT max(version) v FROM schema_migrations').get() as { v: number | null }).v ?? 0,
    close: () => db.close()
  }
}

function migrate(db: Database.Database, list: Migration[], latest: number, path: string, allowed: boolean): Store['migrated'] {
  const hasHistory = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get() !== undefined
  if (!allowed && !hasHistory) throw new UserError(olderSchemaMessage(path, 0, latest), 'store-older')
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
  const pending = list.slice(applied.length)
  if (!pending.length) return undefined
  if (!allowed) throw new UserError(olderSchemaMessage(path, newest, latest), 'store-older')
  // A workspace that holds a schema already is copied as it was before its first migration runs (a new one has
  // nothing to keep). The copy is one consistent snapshot (VACUUM INTO), private like the workspace.
  let copy: string | null = null
  if (applied.length && path !== ':memory:') {
    copy = migratedCopyPath(path, latest)
    try {
      db.prepare('VACUUM INTO ?').run(copy)
      chmodSync(copy, 0o600)
    } catch (e) {
      throw new UserError(
        `Cannot keep a copy of the workspace before migrating it (to ${copy}): ${(e as Error).message}; it was not migrated, nothing was changed`,
        'store'
      )
    }
  }
  for (const m of pending) {
    const run = db.transaction(() => {
      m.up(db)
      db.prepare('INSERT INTO schema_migrations (version, name) VALUES (?, ?)').run(m.version, m.name)
    })
    run()
  }
  return { from: newest, to: latest, copy }
}

export { LATEST_SCHEMA_VERSION }
