/**
 * The attack: racing releases on one workspace (a user, or a script, firing many at once). A deferred transaction
 * upgraded to a write under WAL returns busy at once, which would lose denials ("database is locked" instead of the
 * sentence, nothing recorded). The charge and the denial are one IMMEDIATE transaction that waits for the lock (busy
 * timeout): each of 60 racing releases, 30 from separate CLI processes and 30 through the headless server's HTTP API at
 * the same time, is admitted or denied with its sentence, every denial is recorded in the audit log, and the budget
 * holds exactly.
 */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { startHeadless, type HeadlessServer } from '../../../src-main/server'
import { setBudget } from '../../../src-main/services/ledger/budgets'
import { verifyLedger } from '../../../src-main/services/ledger/verify'
import { openStore } from '../../../src-main/services/store/store'
import { sixRoomVisits } from '../privacy/six-rooms-fixture'
import { officerAct } from '../officer-fixture'
import { tempWorkspace } from '../helpers'

const ROOT = join(__dirname, '../../..')
const CLI = join(ROOT, 'out/main/cli.js')
/** One release of the rooms question costs 6 x ln(10)/4 = 3.4539; a budget of 17.5 admits exactly five. */
const ADMITTED = 5
const PER_DOOR = 30

function cliRelease(db: string, queryId: number): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'release', '--db', db, '--query', String(queryId), '--beta', '0.05', '--alpha', '4', '--json'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe']
    })
    let out = ''
    let err = ''
    child.stdout.on('data', (d) => (out += String(d)))
    child.stderr.on('data', (d) => (err += String(d)))
    child.on('error', reject)
    // 'close', not 'exit': the child's output may still be in its pipes when it exits.
    child.on('close', (code) => resolve({ code, out, err }))
  })
}

let h: HeadlessServer | undefined
const ws = tempWorkspace('qa-race-')
afterAll(async () => {
  await h?.close()
  ws.cleanup()
})

describe('racing releases', () => {
  it(
    `${2 * PER_DOOR} releases at once, ${PER_DOOR} from CLI processes and ${PER_DOOR} over HTTP: each admitted or denied with its sentence, every denial recorded`,
    { timeout: 600_000 },
    async () => {
      expect(existsSync(CLI), 'the CLI build (npx electron-vite build)').toBe(true)
      const store = openStore(ws.db)
      const { id, queryId } = sixRoomVisits(store.db)
      setBudget(store.db, { datasetId: id, epsilon: '17.5', reason: 'five releases', ...officerAct(store.db) })
      store.close()
      h = await startHeadless({ dbPath: ws.db, poolSize: 1 })
      const server = h
      const viaHttp = async () => {
        const r = await fetch(`http://127.0.0.1:${server.port}/api/call/releases/run`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ req: { queryId, params: { kind: 'threshold', mechanism: 'tslm', beta: 0.05, alpha: 4 } } })
        })
        return (await r.json()) as { ok: boolean; error?: { message: string; code: string } }
      }
      const [cli, http] = await Promise.all([
        Promise.all(Array.from({ length: PER_DOOR }, () => cliRelease(ws.db, queryId))),
        Promise.all(Array.from({ length: PER_DOOR }, () => viaHttp()))
      ])
      const denial = /^quiet-alarm: Denied: this release requests epsilon 3\.45\d* \(predicate-wise DP\) but only .* Nothing was spent\./
      for (const r of cli) {
        expect(r.err, `exit ${r.code}`).not.toMatch(/locked|busy|unexpected failure/i)
        if (r.code === 0) expect(JSON.parse(r.out).release.status).toBe('answered')
        else {
          expect(r.code, r.out + r.err).toBe(2)
          expect(r.err).toMatch(denial)
        }
      }
      for (const r of http) {
        if (r.ok) continue
        expect(r.error?.code, r.error?.message).toBe('denied')
        expect(r.error?.message).toMatch(/^Denied: this release requests epsilon .* Nothing was spent\./)
      }
      const admitted = cli.filter((r) => r.code === 0).length + http.filter((r) => r.ok).length
      expect(admitted).toBe(ADMITTED)
      await server.close()
      h = undefined
      const check = openStore(ws.db)
      const denied = (check.db.prepare(`SELECT count(*) AS n FROM audit_events WHERE kind = 'release/denied'`).get() as { n: number }).n
      const charged = (check.db.prepare(`SELECT count(*) AS n FROM ledger_entries WHERE kind = 'charge'`).get() as { n: number }).n
      expect(charged).toBe(ADMITTED)
      expect(denied).toBe(2 * PER_DOOR - ADMITTED)
      expect(verifyLedger(check.db).ok).toBe(true)
      check.close()
    }
  )
})
