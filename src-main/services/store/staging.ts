/**
 * Staging tables of imports in progress. An import writes into `import_staging_<pid>_<random>` in batched
 * transactions; only its last transaction renames the table into place and writes the catalog rows. A table left by a
 * process that died (crash, SIGKILL) is an orphan: `dropOrphanStagingTables` removes it when a workspace is opened by
 * the services or the CLI. Tables of imports still running (in this process or in another live one) are left alone.
 */
import { randomBytes } from 'node:crypto'
import type Database from 'better-sqlite3'

const PREFIX = 'import_staging_'
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

export function listStagingTables(db: Database.Database): string[] {
  return (
    db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'import\\_staging\\_%' ESCAPE '\\'").all() as Array<{
      name: string
    }>
  ).map((r) => r.name)
}

/** Drops staging tables whose import can no longer finish. Returns how many were dropped. */
export function dropOrphanStagingTables(db: Database.Database): number {
  let dropped = 0
  for (const name of listStagingTables(db)) {
    const m = /^import_staging_(\d+)_[0-9a-f]+$/.exec(name)
    if (!m) continue
    const pid = Number(m[1])
    const orphan = pid === process.pid ? !activeHere.has(name) : !processAlive(pid)
    if (!orphan) continue
    try {
      db.exec(`DROP TABLE IF EXISTS "${name}"`)
      dropped++
    } catch {
      /* another connection holds it; a later open retries */
    }
  }
  return dropped
}
