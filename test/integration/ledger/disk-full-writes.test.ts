/**
 * A full disk on the write paths other than the import, as a user meets it: the workspace on a real 3 MiB tmpfs filled
 * to the last byte, then a budget, a release and a file link from the CLI. Each is one sentence with exit 2 ("bad
 * environment, nothing written"), never "unexpected failure" with exit 1; once space is freed the workspace is exactly
 * as it was (no charge, no entry, no dataset) and verifies. Needs mount rights (root on Linux); skipped elsewhere.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { closeSync, mkdirSync, openSync, rmSync, writeSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { headOf } from '../../../src-main/services/chain/ledger-chain'
import { auditHead } from '../../../src-main/services/chain/audit-chain'
import { verifyLedger } from '../../../src-main/services/ledger/verify'
import { type Store, openStore } from '../../../src-main/services/store/store'
import { runCli } from '../cli-runner'
import { TEST_OFFICER, officerAct, testPassphrase } from '../officer-fixture'
import { sixRoomVisits } from '../privacy/six-rooms-fixture'
import { tempWorkspace } from '../helpers'

const ws = tempWorkspace('qa-fullwrites-')
const disk = join(ws.dir, 'disk')
const db = join(disk, 'workspace.sqlite')
const junk = join(disk, 'junk')
let mounted = false
let holder: Store | undefined
let queryId = 0

/** Fills the disk: a file grown until the file system refuses another byte. */
function fillDisk(): void {
  const fd = openSync(junk, 'w')
  const chunk = Buffer.alloc(4096, 1)
  try {
    for (;;) writeSync(fd, chunk)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e
  }
  try {
    for (;;) writeSync(fd, chunk, 0, 1)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e
  } finally {
    closeSync(fd)
  }
}

beforeAll(() => {
  mkdirSync(disk)
  mounted =
    process.platform === 'linux' && process.getuid?.() === 0 && spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=3m', 'tmpfs', disk]).status === 0
  if (!mounted) return
  holder = openStore(db)
  queryId = sixRoomVisits(holder.db).queryId
  officerAct(holder.db)
  // The WAL emptied; this connection stays open, so the WAL and shared-memory files exist for the CLI's connection.
  holder.db.pragma('wal_checkpoint(TRUNCATE)')
  writeFileSync(join(ws.dir, 'visits.csv'), 'person,room\np1,R1\np2,R2\n')
})
afterAll(() => {
  holder?.close()
  if (mounted) spawnSync('umount', [disk])
  ws.cleanup()
})

describe('a full disk on budget, release and link', () => {
  it('is one sentence with exit 2 on each, and nothing is written', async (ctx) => {
    if (!mounted) {
      process.stdout.write('full disk on writes: skipped (cannot mount a tmpfs here)\n')
      ctx.skip()
    }
    const before = { ledger: headOf(holder!.db), audit: auditHead(holder!.db) }
    const env = { QUIET_ALARM_PASSPHRASE: testPassphrase(TEST_OFFICER) }
    fillDisk()
    try {
      const budget = await runCli(['budget', '--db', db, '--dataset', 'visits', '--epsilon', '9', '--reason', 'more room'], { env })
      const release = await runCli(['release', '--db', db, '--query', String(queryId), '--beta', '0.05', '--alpha', '4'], { env })
      const link = await runCli(['link', '--db', db, '--name', 'linked visits', '--file', join(ws.dir, 'visits.csv'), '--row-level'], { env })
      for (const r of [budget, release, link]) {
        expect(r.err).toMatch(/^quiet-alarm: Not enough space: the disk holding the workspace is full, so nothing was written\./)
        expect(r.err).not.toMatch(/unexpected failure/)
        expect(r.code).toBe(2)
      }
    } finally {
      rmSync(junk, { force: true })
    }
    const d = holder!.db
    expect({ ledger: headOf(d), audit: auditHead(d) }).toEqual(before)
    expect(d.prepare('SELECT count(*) AS n FROM releases').get()).toEqual({ n: 0 })
    expect(d.prepare('SELECT count(*) AS n FROM datasets').get()).toEqual({ n: 1 })
    expect(verifyLedger(d).ok).toBe(true)
    // With space again, the same release goes through.
    const again = await runCli(['release', '--db', db, '--query', String(queryId), '--beta', '0.05', '--alpha', '4'], { env })
    expect(again.code).toBe(0)
  })
})
