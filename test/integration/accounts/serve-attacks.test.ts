/**
 * The service as the custodian starts it (`quiet-alarm serve --db W --listen 127.0.0.1:0 --tls-cert C --tls-key K`, a
 * real process over TLS on loopback, certificates made here), attacked by its own accounts through the Node client the
 * CLI and the desktop app use:
 * - `serve` prints its https:// URL on its first line; on a workspace other users of the host can read it refuses
 *   (exit 2, one line saying how to fix it) and nothing listens;
 * - an analyst's officer acts (even with the officer's passphrase) and custodian acts: one sentence, code `forbidden`,
 *   nothing written (both chains' heads and every table an act fills, read beside the running service);
 * - a credential the officer revokes over TLS is refused from its next call on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process'
import { chmodSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import Database from 'better-sqlite3'
import { ServiceClient } from '../../../src-main/client/service-client'
import { addAccount } from '../../../src-main/services/accounts/account-store'
import { auditHead } from '../../../src-main/services/chain/audit-chain'
import { headOf } from '../../../src-main/services/chain/ledger-chain'
import { openStore } from '../../../src-main/services/store/store'
import { officerAct, testPassphrase, TEST_OFFICER } from '../officer-fixture'
import { sixRoomVisits } from '../privacy/six-rooms-fixture'
import { tempWorkspace } from '../helpers'
import { type TestPki, makeTestPki } from '../../support/tls'

const ROOT = resolve(__dirname, '../../..')
const CLI = join(ROOT, 'src-main/cli.ts')

let ws: ReturnType<typeof tempWorkspace>
let pki: TestPki
let datasetId: number
const credentials: Record<'ana' | 'olga' | 'carl', string> = { ana: '', olga: '', carl: '' }

beforeAll(() => {
  ws = tempWorkspace('qa-serve-')
  pki = makeTestPki()
  const store = openStore(ws.db)
  try {
    datasetId = sixRoomVisits(store.db).id
    credentials.ana = addAccount(store.db, { name: 'ana', role: 'analyst', days: 2 }, officerAct(store.db)).credential
    credentials.olga = addAccount(store.db, { name: 'olga', role: 'officer', days: 2 }, officerAct(store.db)).credential
    credentials.carl = addAccount(store.db, { name: 'carl', role: 'custodian', days: 2 }, officerAct(store.db)).credential
  } finally {
    store.close()
  }
})
afterAll(() => {
  ws?.cleanup()
  pki?.cleanup()
})

interface Served {
  url: string
  child: ChildProcessWithoutNullStreams
  stop(): Promise<number | null>
}

/** `quiet-alarm serve` as a process; resolves with its first line (the URL) once it is out. */
function serve(db: string): Promise<Served> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      CLI,
      'serve',
      '--db',
      db,
      '--listen',
      '127.0.0.1:0',
      '--tls-cert',
      pki.certPath,
      '--tls-key',
      pki.keyPath,
      '--cadence-ms',
      '50',
      '--workers',
      '1'
    ],
    { cwd: ROOT }
  )
  let out = ''
  let err = ''
  child.stderr.on('data', (d: Buffer) => (err += String(d)))
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)))
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve printed nothing in 60 s; stderr: ${err}`)), 60_000)
    child.stdout.on('data', (d: Buffer) => {
      out += String(d)
      const nl = out.indexOf('\n')
      if (nl < 0) return
      clearTimeout(timer)
      resolvePromise({
        url: out.slice(0, nl),
        child,
        stop: () => {
          child.kill('SIGTERM')
          return exited
        }
      })
    })
    void exited.then((code) => reject(new Error(`serve exited (${code}) before printing its URL: ${err}`)))
  })
}

const client = (url: string, who: keyof typeof credentials) => new ServiceClient({ url, credential: credentials[who], ca: pki.ca })

/** Everything an officer or custodian act could write, read beside the running service (WAL readers see committed state). */
function written(db: string): string {
  const d = new Database(db, { readonly: true, fileMustExist: true })
  try {
    const n = (t: string) => (d.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n
    return JSON.stringify({
      ledger: headOf(d),
      audit: auditHead(d),
      datasets: n('datasets'),
      accounts: n('accounts'),
      checkpoints: n('ledger_checkpoints'),
      officers: n('officers'),
      meta: d.prepare('SELECT * FROM workspace_meta ORDER BY key').all()
    })
  } finally {
    d.close()
  }
}

describe('quiet-alarm serve, attacked by its own accounts over TLS', () => {
  it("refuses an analyst's officer and custodian acts with one sentence and nothing written, and a revoked credential from its next call", async () => {
    const s = await serve(ws.db)
    try {
      expect(s.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/?$/)
      const ana = client(s.url, 'ana')
      expect(await ana.call('accounts/whoami', {})).toMatchObject({ ok: true, value: { kind: 'account', name: 'ana', roles: ['analyst'] } })
      const before = written(ws.db)
      // Officer acts, with the officer's real passphrase: the account is an analyst's, so the passphrase does not matter.
      const officer = { officer: TEST_OFFICER, passphrase: testPassphrase(TEST_OFFICER) }
      const officerActs = [
        ana.call('budgets/set', { datasetId, epsilon: '1000', reason: 'more for me', ...officer }),
        ana.call('accounts/add', { name: 'mallory', role: 'officer', days: 30, ...officer }),
        ana.call('accounts/revoke', { name: 'olga', reason: 'in my way', ...officer }),
        ana.call('datasets/declare-public', { datasetId, reason: 'it is public now', ...officer }),
        ana.call('ledger/checkpoint', officer),
        ana.call('officer/register', { name: 'Mallory', passphrase: 'a long enough passphrase of mine', by: officer })
      ]
      // Custodian acts: the data and the host.
      const custodianActs = [
        ana.call('datasets/delete', { datasetId }),
        ana.call('datasets/rename', { datasetId, name: 'gone' }),
        ana.call('app/set-workers', { workers: 3 })
      ]
      const upload = join(ws.dir, 'rows.csv')
      writeFileSync(upload, 'person,room\nP,R1\n')
      const answers = await Promise.all([...officerActs, ...custodianActs, ana.upload(upload, 'rows.csv')])
      for (const a of answers) {
        expect(a).toMatchObject({ ok: false, error: { code: 'forbidden' } })
        if (!a.ok) {
          expect(a.error.message).toMatch(
            /^Forbidden: .* is (an officer's|the custodian's)( or an officer's)? act, and account "ana" is an analyst; nothing was done\.$/
          )
          expect(a.error.message.split('\n')).toHaveLength(1)
        }
      }
      expect(written(ws.db)).toBe(before)

      // The officer account revokes ana over TLS: her very next call is refused, and so is every later one.
      const olga = client(s.url, 'olga')
      const revoked = await olga.call('accounts/revoke', { name: 'ana', reason: 'left the team', ...officer })
      expect(revoked).toMatchObject({ ok: true, value: { name: 'ana', status: 'revoked' } })
      for (const method of ['accounts/whoami', 'datasets/list', 'releases/list'] as const) {
        const r = await ana.call(method, {})
        expect(r).toMatchObject({ ok: false, error: { code: 'unauthorized' } })
      }
      // The custodian's account still works: the revocation named ana only.
      expect(await client(s.url, 'carl').call('accounts/whoami', {})).toMatchObject({ ok: true, value: { name: 'carl' } })
    } finally {
      expect(await s.stop()).toBe(0)
    }
  }, 120_000)

  it('refuses to serve a workspace other users of the host can read: exit 2, one line with the fix, nothing listens', () => {
    chmodSync(ws.db, 0o644)
    try {
      const r = spawnSync(
        process.execPath,
        ['--import', 'tsx', CLI, 'serve', '--db', ws.db, '--listen', '127.0.0.1:0', '--tls-cert', pki.certPath, '--tls-key', pki.keyPath],
        { cwd: ROOT, encoding: 'utf8', timeout: 60_000 }
      )
      expect(r.status).toBe(2)
      expect(r.stdout).toBe('')
      const lines = r.stderr.trim().split('\n')
      expect(lines).toHaveLength(1)
      expect(lines[0]).toMatch(/^quiet-alarm: Refusing to serve: .* is 0644 .*chmod 600 /)
    } finally {
      chmodSync(ws.db, 0o600)
    }
  }, 90_000)
})
