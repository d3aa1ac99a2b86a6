/**
 * Backup and restore as a custodian meets them (a TLS service in this process with its real release runner, the CLI's
 * `backup` and `restore`), as attacks:
 * - a backup taken while analysts release holds every charge answered before it began, and verifies;
 * - restoring that copy once the service has charged more is refused with one sentence (it would hand spent budget
 *   back), and changes nothing: the workspace's bytes and the head record stay as they were;
 * - a `cp` of the old copy over the workspace does not get served either: `serve` refuses a workspace that does not hold
 *   its head record;
 * - a restore while the service holds the workspace is refused; with the officer's signature the rollback is done and
 *   recorded (a signed `officer/rollback` audit event), and the restored workspace verifies.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { createHash } from 'node:crypto'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { startHeadless, type HeadlessServer } from '../../../src-main/server'
import { setBudget } from '../../../src-main/services/ledger/budgets'
import { tempWorkspace, waitFor } from '../helpers'
import { type TestPki, makeTestPki } from '../../support/tls'
import { credentialFor, httpsCall } from '../https-call'
import { officerAct, testPassphrase, TEST_OFFICER } from '../officer-fixture'
import { sixRoomVisits } from '../privacy/six-rooms-fixture'
import { runCli } from '../cli-runner'

let ws: ReturnType<typeof tempWorkspace>
let pki: TestPki
let rendererDir: string
let dbPath: string
let queryId: number
const creds: string[] = []

const serviceOptions = () => ({
  dbPath,
  rendererDir,
  poolSize: 1,
  deployment: 'service' as const,
  cadenceMs: 50,
  listen: { host: '127.0.0.1', port: 0 },
  tls: { cert: pki.cert, key: pki.key }
})

beforeAll(() => {
  ws = tempWorkspace('qa-backup-')
  pki = makeTestPki()
  rendererDir = join(ws.dir, 'renderer')
  mkdirSync(rendererDir)
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>ui</title>')
  dbPath = join(ws.dir, 'served', 'ws.sqlite')
  mkdirSync(join(ws.dir, 'served'), { mode: 0o700 })
})
afterAll(() => {
  ws?.cleanup()
  pki?.cleanup()
})

const fileHash = (p: string) => createHash('sha256').update(readFileSync(p)).digest('hex')
const tslm = { kind: 'threshold', mechanism: 'tslm', beta: 0.1, alpha: 2 }

/** `n` analysts releasing in a loop until `stop()`; each answered release's id is pushed when its answer arrives. */
function load(h: HeadlessServer, answered: number[], failures: string[]): { stop: () => Promise<void> } {
  let running = true
  const loops = creds.map(async (c) => {
    while (running) {
      const r = await httpsCall(h.port, pki.ca, '/api/call/releases/run', {
        method: 'POST',
        headers: { Authorization: `Bearer ${c}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ req: { queryId, params: tslm } })
      })
      const body = JSON.parse(r.body) as { ok: boolean; value?: { releaseId: number } }
      if (body.ok && body.value) answered.push(body.value.releaseId)
      else failures.push(r.body)
    }
  })
  return {
    stop: async () => {
      running = false
      await Promise.all(loops)
    }
  }
}

const chargedIn = (file: string): Set<number> => {
  const db = new Database(file, { readonly: true })
  try {
    return new Set(
      (db.prepare(`SELECT release_id FROM ledger_entries WHERE kind = 'charge'`).all() as { release_id: number }[]).map((r) => r.release_id)
    )
  } finally {
    db.close()
  }
}

describe('backup and restore', () => {
  const copy = () => join(ws.dir, 'copies', 'first.sqlite')

  it('takes a backup mid-load that holds every charge answered before it began, and verifies', async () => {
    const h = await startHeadless(serviceOptions())
    try {
      const db = h.services.context.store.db
      const ds = sixRoomVisits(db)
      queryId = ds.queryId
      setBudget(db, { datasetId: ds.id, epsilon: '100000', reason: 'the load test', ...officerAct(db) })
      for (const name of ['ana', 'bo', 'cy']) {
        creds.push(credentialFor(db, name, 'analyst'))
        const { id } = db.prepare('SELECT id FROM accounts WHERE name = ?').get(name) as { id: number }
        setBudget(db, { datasetId: ds.id, epsilon: '30000', reason: `${name}'s share`, analyst: id, ...officerAct(db) })
      }
      const answered: number[] = []
      const failures: string[] = []
      const l = load(h, answered, failures)
      await waitFor(() => answered.length >= 6 || failures.length > 0, 'six releases answered')
      expect(failures).toEqual([])
      const before = [...answered]
      mkdirSync(join(ws.dir, 'copies'), { mode: 0o700 })
      const b = await runCli(['backup', '--db', dbPath, '--to', copy(), '--json'])
      expect(b.err).toBe('')
      expect(b.code).toBe(0)
      await waitFor(() => answered.length >= before.length + 6 || failures.length > 0, 'six more releases answered')
      await l.stop()
      expect(failures).toEqual([])
      const out = JSON.parse(b.out) as { to: string; entries: number; headHash: string; headSeq: number }
      expect(out.to).toBe(copy())
      expect(out.headHash).toMatch(/^[0-9a-f]{64}$/)
      const held = chargedIn(copy())
      for (const id of before) expect(held.has(id), `release ${id}, answered before the backup began`).toBe(true)
      // The load went on past the backup: the workspace holds more than the copy.
      expect(chargedIn(dbPath).size).toBeGreaterThan(held.size)
      const v = await runCli(['ledger', 'verify', '--db', copy(), '--json'])
      expect(v.code).toBe(0)
      expect((JSON.parse(v.out) as { verify: { headHash: string } }).verify.headHash).toBe(out.headHash)
      // A backup never overwrites.
      const again = await runCli(['backup', '--db', dbPath, '--to', copy()])
      expect(again.code).toBe(2)
      expect(again.err.trim()).toBe(`quiet-alarm: ${copy()} exists already; a backup never overwrites a file: give a new name`)
      // While the service holds the workspace, restore is refused.
      const busy = await runCli(['restore', '--db', dbPath, '--from', copy()])
      expect(busy.code).not.toBe(0)
      expect(busy.err.trim()).toMatch(/^quiet-alarm: A service \(process \d+\) holds .*: stop it first; nothing was restored$/)
    } finally {
      await h.close()
    }
  }, 120_000)

  it('refuses to restore the older copy, changing nothing, and serve refuses a cp of it; the officer may sign the rollback', async () => {
    const record = `${dbPath}.head.json`
    expect(existsSync(record)).toBe(true)
    const wsBefore = fileHash(dbPath)
    const recordBefore = readFileSync(record, 'utf8')
    const refused = await runCli(['restore', '--db', dbPath, '--from', copy()])
    expect(refused.code).toBe(2)
    expect(refused.err.trim()).toMatch(
      /^quiet-alarm: The copy .* holds the ledger up to entry \d+, older than the head recorded at .* \(entry \d+\): charges made since would be handed back; nothing was restored\. An officer may sign the rollback: add --reason TEXT and the officer's passphrase$/
    )
    expect(fileHash(dbPath)).toBe(wsBefore)
    expect(readFileSync(record, 'utf8')).toBe(recordBefore)

    // The obvious restore: the old copy copied over the workspace. The service does not start on it.
    const aside = join(ws.dir, 'newer.sqlite')
    copyFileSync(dbPath, aside)
    copyFileSync(copy(), dbPath)
    const e = await startHeadless(serviceOptions()).catch((x: unknown) => x)
    expect((e as Error).name).toBe('UserError')
    expect((e as Error).message).toMatch(/older than the head recorded at .*; the service does not start on it \(head record /)
    copyFileSync(aside, dbPath)

    // The record deleted beside the old copy: no record is no proof, so the restore is still refused.
    renameSync(record, `${record}.aside`)
    const unrecorded = await runCli(['restore', '--db', dbPath, '--from', copy()])
    expect(unrecorded.code).toBe(2)
    expect(unrecorded.err.trim()).toMatch(
      /^quiet-alarm: There is no head record at .* to show that .* holds every charge made; nothing was restored\. An officer may sign/
    )
    expect(fileHash(dbPath)).toBe(wsBefore)
    renameSync(`${record}.aside`, record)

    // The officer signs the rollback: done, recorded, and the result verifies.
    const passFile = join(ws.dir, 'officer.pass')
    writeFileSync(passFile, testPassphrase(TEST_OFFICER), { mode: 0o600 })
    const signed = await runCli([
      'restore',
      '--db',
      dbPath,
      '--from',
      copy(),
      '--reason',
      'the disk was replaced',
      '--officer',
      TEST_OFFICER,
      '--passphrase-file',
      passFile,
      '--json'
    ])
    expect(signed.err).toBe('')
    expect(signed.code).toBe(0)
    const r = JSON.parse(signed.out) as { rolledBack: boolean; replaced: string }
    expect(r.rolledBack).toBe(true)
    expect(fileHash(r.replaced)).toBe(wsBefore)
    const db = new Database(dbPath, { readonly: true })
    try {
      const ev = db.prepare(`SELECT actor, detail, signer FROM audit_events WHERE kind = 'officer/rollback'`).all() as {
        actor: string
        detail: string
        signer: string | null
      }[]
      expect(ev).toHaveLength(1)
      expect(ev[0].actor).toBe(TEST_OFFICER)
      expect(ev[0].signer).not.toBeNull()
      expect(JSON.parse(ev[0].detail).reason).toBe('the disk was replaced')
    } finally {
      db.close()
    }
    const verified = await runCli(['ledger', 'verify', '--db', dbPath])
    expect(verified.out + verified.err).not.toMatch(/fail|broken|not verify/i)
    expect(verified.code).toBe(0)
    // The record now names the restored heads: the service starts on it.
    const h = await startHeadless(serviceOptions())
    await h.close()
  }, 120_000)
})
