/**
 * A full disk during an import: a full database (SQLite's max_page_count, as a full disk looks to SQLite) is one
 * sentence naming the workspace,
 * its limit or its disk's free space and what the import needed, with nothing stored; orphan staging tables go when
 * the workspace is opened.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { ImportResult } from '../../../src-main/contract/datasets'
import { openStore } from '../../../src-main/services/store/store'
import { listStagingTables } from '../../../src-main/services/store/staging'
import { planImport, runImport } from '../../../src-main/services/datasets/import-dataset'
import { tempWorkspace } from '../helpers'
import { type Harness, harness } from './harness'

let h: Harness
beforeAll(() => {
  h = harness()
})
afterAll(() => h?.cleanup())

describe('disk full during import', () => {
  it('is a bad-environment error naming the workspace, its limit and what was needed; nothing is stored', async () => {
    const p = join(h.dir, 'big.csv')
    const rows = Array.from({ length: 60_000 }, (_, i) => `${i},room-${i % 97},${(i * 7919) % 1000},note number ${i}`)
    writeFileSync(p, `id,room,count,note\n${rows.join('\n')}\n`)
    const db = h.store.db
    const datasetsBefore = db.prepare('SELECT count(*) n FROM datasets').get()
    const pages = Number(db.pragma('page_count', { simple: true }))
    // Room for about 200 KiB more: the file needs several MiB.
    db.pragma(`max_page_count = ${pages + 50}`)
    try {
      const info = await h.importAndWait({ path: p, name: 'too big' })
      expect(info.state).toBe('failed')
      expect(info.error).toMatch(
        new RegExp(
          `^Not enough space to import big\\.csv: the workspace ${h.store.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} reached its size limit of [0-9.]+ [KM]iB \\(SQLite max_page_count\\); ` +
            `the import needs about [0-9.]+ [KM]iB \\(the size of big\\.csv(; [0-9.]+ [KM]iB of it had been read)?\\)\\. Nothing was imported\\. ` +
            'Use another workspace \\(--db\\), or open this one without the limit\\.$'
        )
      )
      expect(info.error).not.toMatch(/unexpected|database or disk is full/)
      process.stdout.write(`disk full: ${info.error}\n`)
      expect(db.prepare('SELECT count(*) n FROM datasets').get()).toEqual(datasetsBefore)
      expect(listStagingTables(db)).toEqual([])
    } finally {
      db.pragma('max_page_count = 4294967294')
    }
    // With room again, the same file imports.
    const ok = await h.importAndWait({ path: p, name: 'fits now' })
    expect(ok.state, ok.error ?? '').toBe('done')
    expect((ok.result as ImportResult).dataset.rowCount).toBe(60_000)
  })
})

/** A real full disk: a 3 MiB tmpfs holds the workspace (needs mount rights: root on Linux; skipped elsewhere). */
function mountTinyDisk(dir: string): boolean {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return false
  return spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=3m', 'tmpfs', dir]).status === 0
}

describe('a really full disk', () => {
  it('names the disk and its free space; nothing is stored and the workspace still opens', async () => {
    const ws = tempWorkspace('qa-fulldisk-')
    const disk = join(ws.dir, 'disk')
    mkdirSync(disk)
    if (!mountTinyDisk(disk)) {
      process.stdout.write('a really full disk: skipped (cannot mount a tmpfs here)\n')
      ws.cleanup()
      return
    }
    const file = join(ws.dir, 'big.csv')
    writeFileSync(file, `id,note\n${Array.from({ length: 200_000 }, (_, i) => `${i},note number ${i}`).join('\n')}\n`)
    try {
      const store = openStore(join(disk, 'workspace.sqlite'))
      try {
        const plan = planImport(store.db, { path: file, name: 'big' })
        const err = await runImport(store.db, plan).then(
          () => null,
          (e: Error) => e
        )
        expect(err?.message).toMatch(
          new RegExp(
            `^Not enough space to import big\\.csv: the disk holding the workspace \\(${disk.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\) is full \\([0-9.]+ [KM]iB free\\); the import needs about [0-9.]+ MiB`
          )
        )
        expect((err as { code?: string }).code).toBe('disk-full')
        process.stdout.write(`really full disk: ${err?.message}\n`)
        expect(store.db.prepare('SELECT count(*) n FROM datasets').get()).toEqual({ n: 0 })
      } finally {
        store.close()
      }
      const again = openStore(join(disk, 'workspace.sqlite'))
      expect(listStagingTables(again.db)).toEqual([])
      again.close()
    } finally {
      spawnSync('umount', [disk])
      ws.cleanup()
    }
  })
})

describe('orphan staging tables', () => {
  it('are dropped when the workspace is opened, not at the next import; a live import elsewhere keeps its table', () => {
    const ws = tempWorkspace('qa-staging-')
    try {
      let dead = 4_000_000
      for (; ; dead++) {
        try {
          process.kill(dead, 0)
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code === 'ESRCH') break
        }
      }
      const s1 = openStore(ws.db)
      s1.db.exec(`CREATE TABLE "import_staging_${dead}_0123456789ab" (c1 TEXT) STRICT`)
      s1.db.exec(`INSERT INTO "import_staging_${dead}_0123456789ab" VALUES ('half an import')`)
      // The parent process (the test runner) is alive: its import may still be running.
      s1.db.exec(`CREATE TABLE "import_staging_${process.ppid}_0123456789ab" (c1 TEXT) STRICT`)
      s1.close()
      const s2 = openStore(ws.db)
      expect(listStagingTables(s2.db)).toEqual([`import_staging_${process.ppid}_0123456789ab`])
      s2.close()
    } finally {
      ws.cleanup()
    }
  })
})
