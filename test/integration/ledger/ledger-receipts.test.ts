/**
 * Receipts. The workspace file alone cannot show a rollback to an older copy, nor a consistent rewrite after
 * the last checkpoint (every hash recomputed). A receipt the officer keeps elsewhere (`ledger checkpoint --receipt F`)
 * can: `ledger verify --receipt F` fails on both, and on a receipt that was altered.
 */
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { DEMO_PASSPHRASE } from '../../../src-main/cli/commands/ledger-commands'
import { entryHash } from '../../../src-main/services/chain/canonical'
import { type EntryRow, hashedFields } from '../../../src-main/services/chain/ledger-chain'
import { tempWorkspace } from '../helpers'
import { runCli } from '../cli-runner'

const cli = (args: string[], cwd: string) => runCli(args, { cwd, env: { QUIET_ALARM_PASSPHRASE: DEMO_PASSPHRASE } })

let cleanup: (() => void) | undefined
afterEach(() => {
  cleanup?.()
  cleanup = undefined
})

async function demo() {
  const ws = tempWorkspace('qa-receipts-')
  cleanup = ws.cleanup
  const r = await cli(['demo', '--db', ws.db], ws.dir)
  expect(r.code, r.err).toBe(0)
  return ws
}

const release = (db: string, dir: string) => cli(['release', '--db', db, '--query', '2', '--mechanism', 'sp', '--epsilon', '0.5'], dir)

describe('ledger receipts', () => {
  it('a rollback to an older copy of the workspace passes verify alone and fails against the receipt', async () => {
    const ws = await demo()
    const older = join(ws.dir, 'older.sqlite')
    const checkpointed = await cli(['ledger', 'checkpoint', '--db', ws.db], ws.dir)
    expect(checkpointed.code, checkpointed.err).toBe(0)
    // The file as it was (WAL folded in), then two more releases and a receipt of the newer heads.
    const raw = new Database(ws.db)
    raw.pragma('wal_checkpoint(TRUNCATE)')
    raw.close()
    copyFileSync(ws.db, older)
    expect((await release(ws.db, ws.dir)).code).toBe(0)
    expect((await release(ws.db, ws.dir)).code).toBe(0)
    const receipt = join(ws.dir, 'receipt.json')
    const c = await cli(['ledger', 'checkpoint', '--db', ws.db, '--receipt', receipt], ws.dir)
    expect(c.code, c.err).toBe(0)
    expect(c.out).toContain('Receipt written to')
    expect(JSON.parse(readFileSync(receipt, 'utf8'))).toMatchObject({
      v: 1,
      kind: 'quiet-alarm/ledger-receipt',
      officer: { name: 'Privacy Officer (demo)' }
    })
    expect((await cli(['ledger', 'verify', '--db', ws.db, '--receipt', receipt], ws.dir)).code).toBe(0)
    // The analyst puts the older file back: consistent, signed, checkpointed ...
    copyFileSync(older, ws.db)
    for (const s of ['-wal', '-shm']) writeFileSync(ws.db + s, '')
    expect((await cli(['ledger', 'verify', '--db', ws.db], ws.dir)).code).toBe(0)
    // ... but not what the receipt covers.
    const v = await cli(['ledger', 'verify', '--db', ws.db, '--receipt', receipt], ws.dir)
    expect(v.code).toBe(3)
    expect(v.err).toMatch(
      /entry \d+, covered by the receipt signed by officer "Privacy Officer \(demo\)" at .*, is missing: the workspace was rolled back or cut short/
    )
  })

  it('the last checkpoint deleted and the charges after the one before halved (every hash recomputed): verify alone passes, the receipt fails', async () => {
    const ws = await demo()
    expect((await release(ws.db, ws.dir)).code).toBe(0)
    expect((await release(ws.db, ws.dir)).code).toBe(0)
    const receipt = join(ws.dir, 'receipt.json')
    expect((await cli(['ledger', 'checkpoint', '--db', ws.db, '--receipt', receipt], ws.dir)).code).toBe(0)
    // The analyst deletes that checkpoint (no officer act after the one before it, so nothing is left uncovered) and
    // rewrites what came after the one before: consistent, every hash recomputed.
    const db = new Database(ws.db)
    for (const t of db.prepare(`SELECT name FROM sqlite_master WHERE type = 'trigger'`).pluck().all() as string[]) db.exec(`DROP TRIGGER "${t}"`)
    db.exec('DELETE FROM ledger_checkpoints WHERE id = (SELECT max(id) FROM ledger_checkpoints)')
    const covered = (db.prepare('SELECT max(ledger_seq) AS s FROM ledger_checkpoints').get() as { s: number }).s
    const rows = db.prepare('SELECT * FROM ledger_entries WHERE seq > ? ORDER BY seq').all(covered) as EntryRow[]
    expect(rows.filter((r) => r.kind === 'charge')).toHaveLength(2)
    let prev = rows[0].prev_hash
    db.transaction(() => {
      for (const r of rows) {
        if (r.kind === 'charge') r.amount_nano = Math.floor(r.amount_nano / 2)
        r.prev_hash = prev
        r.hash = entryHash(prev, hashedFields(r))
        db.prepare('UPDATE ledger_entries SET amount_nano = ?, prev_hash = ?, hash = ? WHERE seq = ?').run(r.amount_nano, r.prev_hash, r.hash, r.seq)
        db.prepare('UPDATE ledger_cell_charges SET amount_nano = ? WHERE entry_seq = ?').run(r.amount_nano, r.seq)
        if (r.release_id !== null) db.prepare('UPDATE releases SET charge_nano = ? WHERE id = ?').run(r.amount_nano, r.release_id)
        prev = r.hash
      }
      db.prepare('UPDATE ledger_head SET hash = ? WHERE id = 1').run(prev)
    })()
    db.close()
    expect((await cli(['ledger', 'verify', '--db', ws.db], ws.dir)).code).toBe(0)
    const v = await cli(['ledger', 'verify', '--db', ws.db, '--receipt', receipt], ws.dir)
    expect(v.code).toBe(3)
    expect(v.err).toMatch(
      /the ledger up to entry \d+ was rewritten after the receipt signed by officer "Privacy Officer \(demo\)" at .*: it no longer matches the receipt/
    )
  })

  it('an altered receipt is refused in one sentence (exit 2), and so is a file that is not one', async () => {
    const ws = await demo()
    const receipt = join(ws.dir, 'receipt.json')
    expect((await cli(['ledger', 'checkpoint', '--db', ws.db, '--receipt', receipt], ws.dir)).code).toBe(0)
    const r = JSON.parse(readFileSync(receipt, 'utf8')) as { ledgerSeq: number }
    writeFileSync(receipt, JSON.stringify({ ...r, ledgerSeq: r.ledgerSeq - 1 }))
    const v = await cli(['ledger', 'verify', '--db', ws.db, '--receipt', receipt], ws.dir)
    expect(v.code).toBe(2)
    expect(v.err).toMatch(/^quiet-alarm: The receipt does not carry a valid officer signature/)
    writeFileSync(receipt, '{"hello": 1}')
    const w = await cli(['ledger', 'verify', '--db', ws.db, '--receipt', receipt], ws.dir)
    expect(w.code).toBe(2)
    expect(w.err).toMatch(/is not a ledger receipt/)
  })
})
