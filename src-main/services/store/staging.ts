/**
 * Staging of imports in progress. An import writes its rows into a staging database of its own beside the workspace
 * (`<workspace>-import_staging_<pid>_<random>`, attached to the connection) in batched transactions; only its last
 * transaction copies them into the workspace (`ds_<id>`) with the catalog rows. So a failed import (a full disk, bad
 * rows, a cancel) deletes one file and leaves the workspace and its WAL as they were, and the space comes back at once.
 * (An in-memory workspace keeps its staging table inside, as older versions did with every workspace.)
 *
 * Staging left by a process that died (crash, SIGKILL) is an orphan: `dropOrphanStagingTables` removes it (files and
 * tables) when a workspace is opened by the services or the CLI. Staging of imports still running (in this process or
 * in another live one) is left alone.
 */
import { randomBytes } from 'node:crypto'
import { existsSync, readdirSync, rmSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import type Database from 'better-sqlite3'

const PREFIX = 'import_staging_'
const NAME = /^import_staging_(\d+)_([0-9a-f]+)$/
const activeHere = new Set<string>()

export function newStagingName(): string {
  const name = `${PREFIX}${process.pid}_${randomBytes(6).toString('hex')}`
  activeHere.add(name)
  return name
}

export function releaseStagingName(name: string): void {
  activeHere.delete(name)
}

function processAlive(pid: number): boolean {
  if (pid === process.pid) return true
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** The workspace's file, or null for an in-memory one. */
function workspaceFile(db: Database.Database): string | null {
  return db.name === ':memory:' || db.name === '' || db.memory ? null : db.name
}

/** An import's staging: the schema and table its rows go to, and its file (null: a table inside the workspace). */
export interface Staging {
  name: string
  /** The attached schema (`name`), or 'main'. */
  schema: string
  /** `"schema"."table"`, for SQL. */
  qualified: string
  file: string | null
}

/** Opens a new import's staging (outside any transaction: ATTACH needs that). */
export function openStaging(db: Database.Database): Staging {
  const name = newStagingName()
  const ws = workspaceFile(db)
  if (ws === null) return { name, schema: 'main', qualified: `"main"."${name}"`, file: null }
  const file = `${ws}-${name}`
  db.prepare(`ATTACH DATABASE ? AS "${name}"`).run(file)
  // Throwaway rows: no durability needed, and a failed batch rolls back in memory.
  db.exec(`PRAGMA "${name}".journal_mode = MEMORY; PRAGMA "${name}".synchronous = OFF`)
  return { name, schema: name, qualified: `"${name}"."${name}"`, file }
}

function removeFiles(file: string): void {
  for (const f of [file, `${file}-journal`, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true })
}

/** Ends an import's staging: detached and deleted (a staging table inside the workspace is dropped). Best effort. */
export function closeStaging(db: Database.Database, s: Staging): void {
  try {
    if (s.file === null) db.exec(`DROP TABLE IF EXISTS ${s.qualified}`)
    else db.exec(`DETACH DATABASE "${s.schema}"`)
  } catch {
    /* left for the orphan cleanup */
  }
  if (s.file !== null && !(db.prepare('SELECT 1 FROM pragma_database_list WHERE name = ?').get(s.schema) !== undefined)) removeFiles(s.file)
  releaseStagingName(s.name)
}

/** Staging files beside the workspace (their names), and staging tables inside it (as older versions made them). */
export function listStagingTables(db: Database.Database): string[] {
  const tables = (
    db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'import\\_staging\\_%' ESCAPE '\\'").all() as Array<{
      name: string
    }>
  ).map((r) => r.name)
  const ws = workspaceFile(db)
  if (ws === null || !existsSync(dirname(ws))) return tables
  const prefix = `${basename(ws)}-`
  const files = readdirSync(dirname(ws))
    .filter((f) => f.startsWith(prefix) && NAME.test(f.slice(prefix.length)))
    .map((f) => f.slice(prefix.length))
  return [...tables, ...files]
}

/** Drops staging whose import can no longer finish (tables, and files beside the workspace). Returns how many. */
export function dropOrphanStagingTables(db: Database.Database): number {
  let dropped = 0
  const ws = workspaceFile(db)
  const attached = new Set((db.prepare('SELECT name FROM pragma_database_list').all() as Array<{ name: string }>).map((r) => r.name))
  for (const name of listStagingTables(db)) {
    const m = NAME.exec(name)
    if (!m || attached.has(name)) continue
    const pid = Number(m[1])
    const orphan = pid === process.pid ? !activeHere.has(name) : !processAlive(pid)
    if (!orphan) continue
    try {
      db.exec(`DROP TABLE IF EXISTS "${name}"`)
      if (ws !== null) removeFiles(join(dirname(ws), `${basename(ws)}-${name}`))
      dropped++
    } catch {
      /* another connection holds it; a later open retries */
    }
  }
  return dropped
}
