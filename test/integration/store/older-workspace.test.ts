/**
 * A workspace of an older schema: the commands that only read (ledger, ledger verify, report) refuse it with one
 * sentence naming `quiet-alarm migrate` and change nothing (its bytes stay the same); status reads its version without
 * writing; migrate keeps a copy of it as it was (`<file>.before-v<latest>`, 0600, never overwritten) before migrating,
 * and refuses to migrate when the copy cannot be kept.
 */
import { afterEach, describe, expect, it } from 'vitest'
import Database from 'better-sqlite3'
import { createHash } from 'node:crypto'
import { copyFileSync, existsSync, readFileSync, readdirSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { LATEST_SCHEMA_VERSION } from '../../../src-main/services/store/migrations'
import { runCli } from '../cli-runner'
import { tempWorkspace } from '../helpers'

const OLDER = LATEST_SCHEMA_VERSION - 1
const fixture = resolve(__dirname, `../../fixtures/migrations/v${OLDER}.sqlite`)

let ws: ReturnType<typeof tempWorkspace> | undefined
afterEach(() => {
  ws?.cleanup()
  ws = undefined
})

/** The older fixture as a workspace of then was on disk: in WAL mode, closed. */
function olderWorkspace(name = 'workspace.sqlite'): string {
  ws = tempWorkspace('qa-older-')
  const path = join(ws.dir, name)
  copyFileSync(fixture, path)
  const db = new Database(path)
  db.pragma('journal_mode = WAL')
  db.close()
  return path
}

const digest = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex')
const schemaOf = (path: string) => {
  const db = new Database(path, { readonly: true })
  try {
    return db.prepare('SELECT max(version) FROM schema_migrations').pluck().get() as number
  } finally {
    db.close()
  }
}
const rowsOf = (path: string) => {
  const db = new Database(path, { readonly: true })
  try {
    return ['releases', 'ledger_entries', 'audit_events', 'ledger_checkpoints'].map((t) => db.prepare(`SELECT * FROM ${t} ORDER BY rowid`).all())
  } finally {
    db.close()
  }
}

describe('an older workspace', () => {
  it('is refused by every command that only reads, with one sentence naming migrate, and not one byte changes', async () => {
    const path = olderWorkspace()
    const before = digest(path)
    const out = join(ws!.dir, 'report.csv')
    for (const args of [
      ['ledger', '--db', path],
      ['ledger', 'verify', '--db', path],
      ['report', '--db', path, '--format', 'csv', '--out', out]
    ]) {
      const r = await runCli(args)
      expect(r.code, args.join(' ')).toBe(2)
      expect(r.out).toBe('')
      expect(r.err.trim().split('\n')).toHaveLength(1)
      expect(r.err).toContain(`This workspace has schema ${OLDER}, older than this version's ${LATEST_SCHEMA_VERSION}`)
      expect(r.err).toContain(`migrate it first with "quiet-alarm migrate --db ${path}"`)
      expect(r.err).toContain('nothing was changed')
      expect(digest(path), args.join(' ')).toBe(before)
      expect(schemaOf(path)).toBe(OLDER)
    }
    expect(existsSync(out)).toBe(false)
    expect(readdirSync(ws!.dir).filter((f) => f.includes('.before-v'))).toEqual([])
  })

  it('is reported by status without writing', async () => {
    const path = olderWorkspace()
    const before = digest(path)
    const r = await runCli(['status', '--db', path])
    expect(r.code, r.err).toBe(0)
    expect(r.out).toContain(
      `Schema:     version ${OLDER} (older than this version's ${LATEST_SCHEMA_VERSION}: "quiet-alarm migrate --db ${path}" migrates it)`
    )
    const j = await runCli(['status', '--db', path, '--json'])
    expect(JSON.parse(j.out)).toMatchObject({ schemaVersion: OLDER, latestSchemaVersion: LATEST_SCHEMA_VERSION })
    expect(digest(path)).toBe(before)
  })

  it('is migrated by migrate, which first keeps a private copy of it as it was; then it verifies', async () => {
    const path = olderWorkspace()
    const rows = rowsOf(path)
    const r = await runCli(['migrate', '--db', path])
    expect(r.code, r.err).toBe(0)
    const copy = `${path}.before-v${LATEST_SCHEMA_VERSION}`
    expect(r.out.trim()).toBe(`Migrated ${path} from schema ${OLDER} to ${LATEST_SCHEMA_VERSION}; the workspace as it was is kept at ${copy}`)
    expect(schemaOf(path)).toBe(LATEST_SCHEMA_VERSION)
    expect(schemaOf(copy)).toBe(OLDER)
    expect(rowsOf(copy)).toEqual(rows)
    expect(statSync(copy).mode & 0o777).toBe(0o600)
    const v = await runCli(['ledger', 'verify', '--db', path])
    expect(v.code, v.out + v.err).toBe(0)
    // Current now: nothing to migrate, and no second copy.
    const again = await runCli(['migrate', '--db', path])
    expect(again.out.trim()).toBe(`${path} has this version's schema (${LATEST_SCHEMA_VERSION}): nothing to migrate`)
    expect(readdirSync(ws!.dir).filter((f) => f.includes('.before-v'))).toEqual([`workspace.sqlite.before-v${LATEST_SCHEMA_VERSION}`])
  })

  it('never overwrites an earlier copy: the next one takes the next name', async () => {
    const path = olderWorkspace()
    copyFileSync(path, `${path}.before-v${LATEST_SCHEMA_VERSION}`)
    const kept = digest(`${path}.before-v${LATEST_SCHEMA_VERSION}`)
    const r = await runCli(['migrate', '--db', path])
    expect(r.code, r.err).toBe(0)
    expect(r.out).toContain(`kept at ${path}.before-v${LATEST_SCHEMA_VERSION}.2`)
    expect(digest(`${path}.before-v${LATEST_SCHEMA_VERSION}`)).toBe(kept)
    expect(schemaOf(`${path}.before-v${LATEST_SCHEMA_VERSION}.2`)).toBe(OLDER)
  })

  it('is not migrated when its copy cannot be written, and nothing changes', async () => {
    // A file name so long that the copy's name is over the file system's limit (255 bytes).
    const path = olderWorkspace(`${'w'.repeat(240)}.sqlite`)
    const before = digest(path)
    const r = await runCli(['migrate', '--db', path])
    expect(r.code).toBe(2)
    expect(r.err).toContain('Cannot keep a copy of the workspace before migrating it')
    expect(r.err).toContain('it was not migrated, nothing was changed')
    expect(schemaOf(path)).toBe(OLDER)
    expect(digest(path)).toBe(before)
  })
})
