/**
 * The CLI's exit codes after a release that was charged but not answered: 1 (something was written, the charge), not 2
 * ("bad input, nothing written"). The CLI reads that from the error's `wroteSomething`, not from its code's text.
 *
 * No value in the data can fail a release after its charge (a value that no longer fits its column is read as empty);
 * the only failure after the charge is one that does not depend on the data: the engine went away. A real PostgreSQL
 * (pg-cluster.ts) behind a real proxy (a child process forwarding its Unix socket) that answers the checks before the
 * charge and goes away when the release's read of the relation starts: the server is unreachable from then on.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ReleaseFailedError, UserError, isUserError } from '../../src-main/services'
import type { Store } from '../../src-main/services/store/store'
import { linkFile } from '../../src-main/services/datasets/link-file'
import { linkPostgres } from '../../src-main/services/datasets/link-postgres'
import { closePg } from '../../src-main/services/sources/pg-sync'
import { type PgCluster, startPgCluster } from './sources/pg-cluster'
import type { ledgerHandlers } from '../../src-main/services/releases/ledger-handlers'
import { closeLedgerWorkspace, openLedgerWorkspace, saveQuery } from './ledger/fixtures'
import { officerAct } from './officer-fixture'
import type { tempWorkspace } from './helpers'
import { runCli } from './cli-runner'

let ws: ReturnType<typeof tempWorkspace>
let store: Store
let h: ReturnType<typeof ledgerHandlers>

beforeEach(() => {
  ;({ ws, store, h } = openLedgerWorkspace('qa-cli-release-failed-'))
})
afterEach(() => closeLedgerWorkspace(store, ws))

const cli = (args: string[]) => runCli(args, { cwd: ws.dir })

const ledgerRows = () => (store.db.prepare('SELECT count(*) n FROM ledger_entries').get() as { n: number }).n

describe('CLI: a release charged but not answered', () => {
  it('ReleaseFailedError is a user error that wrote something and carries its release id', () => {
    const e = new ReleaseFailedError(17, 'the release could not be computed')
    expect(isUserError(e)).toBe(true)
    expect(e.releaseId).toBe(17)
    expect(e.wroteSomething).toBe(true)
    expect(e.message).toBe('Release 17 was charged but not answered (the release could not be computed); the charge stays in the ledger')
    expect(new UserError('bad').wroteSomething).toBe(false)
  })

  it('exits 2 for bad input; a value that no longer fits its column is empty and the release is answered, never failed after its charge', async () => {
    const csv = join(ws.dir, 'badges.csv')
    writeFileSync(csv, 'person,room,floor\n' + Array.from({ length: 300 }, (_, i) => `p${i % 30},R${1 + (i % 3)},${i % 4}`).join('\n') + '\n')
    const ds = linkFile(store.db, { name: 'badges csv', file: csv, personColumn: null, ...officerAct(store.db) }).id
    const q = saveQuery(store.db, ds, 'rooms', {
      kind: 'threshold',
      groupBy: ['room'],
      filter: [{ column: 'floor', op: '>=', value: 1 }],
      count: { kind: 'rows' },
      threshold: { kind: 'constant', value: 40 },
      groups: [['R1'], ['R2']]
    })
    await h['budgets/set']({ datasetId: ds, epsilon: '5', reason: 'test', ...officerAct(store.db, 'olga') })
    const release = ['release', '--db', ws.db, '--query', String(q), '--mechanism', 'tslm', '--alpha', '10', '--beta', '0.05']

    const bad = await cli([...release.slice(0, -2), '--beta', '2'])
    expect(bad.code).toBe(2)
    const before = ledgerRows()

    // Same header, a value that no longer fits the integer column: read as empty (NULL) when the rows are read, after the
    // charge, so the release is answered like any other.
    writeFileSync(csv, 'person,room,floor\np1,R1,1\np2,R2,upstairs\n')
    const answered = await cli(release)
    expect(answered.code).toBe(0)
    expect(answered.err).toBe('')
    expect(answered.out).not.toMatch(/charged but not answered/)
    expect(ledgerRows()).toBe(before + 1)
  })
})

/**
 * A proxy on a Unix socket in a directory of its own (the URL's host) to the cluster's socket. It forwards every byte
 * until a client message names `marker` (the quoted relation, which only the release's read of the rows names: the
 * checks before the charge pass names as parameters); then it drops every connection and stops listening.
 */
const PROXY = `
const net = require('node:net')
const { unlinkSync } = require('node:fs')
const [, listenPath, targetPath, marker] = process.argv
const open = new Set()
let cut = false
const server = net.createServer((client) => {
  const upstream = net.connect(targetPath)
  open.add(client).add(upstream)
  const end = () => { client.destroy(); upstream.destroy() }
  client.on('error', end).on('close', end)
  upstream.on('error', end).on('close', end)
  upstream.on('data', (d) => client.write(d))
  client.on('data', (d) => {
    if (!cut && d.includes(marker)) {
      cut = true
      server.close()
      try { unlinkSync(listenPath) } catch {}
      for (const s of open) s.destroy()
      process.stdout.write('cut\\n')
      return
    }
    if (!cut) upstream.write(d)
  })
})
server.listen(listenPath, () => process.stdout.write('listening\\n'))
`

describe('CLI: the engine goes away after the charge', () => {
  const PASSWORD = `pw-${process.pid}-release-failed`
  let cluster: PgCluster
  let proxyDir: string
  let proxy: ChildProcess
  let proxyOut = ''
  const proxySays = (word: string) =>
    new Promise<void>((resolve, reject) => {
      const check = () => (proxyOut.split('\n').includes(word) ? resolve() : undefined)
      proxy.stdout!.on('data', check)
      proxy.on('exit', () => reject(new Error(`the proxy exited before saying "${word}"`)))
      check()
    })
  const saved = process.env.PGPASSWORD

  beforeAll(async () => {
    cluster = await startPgCluster()
    await cluster.createRole('qa_reader', PASSWORD)
    await cluster.admin('CREATE SCHEMA hr')
    await cluster.admin(`CREATE TABLE hr.cut_badges AS SELECT 'p' || (i % 30) AS person, 'R' || (1 + (i % 3)) AS room, (i % 4) AS floor
      FROM generate_series(0, 299) AS t(i)`)
    await cluster.admin('GRANT USAGE ON SCHEMA hr TO qa_reader')
    await cluster.admin('GRANT SELECT ON hr.cut_badges TO qa_reader')
    proxyDir = mkdtempSync(join(tmpdir(), 'qa-pg-proxy-'))
    const socket = (dir: string) => join(dir, `.s.PGSQL.${cluster.port}`)
    proxy = spawn(process.execPath, ['-e', PROXY, socket(proxyDir), socket(cluster.socketDir), '"cut_badges"'], {
      stdio: ['ignore', 'pipe', 'inherit']
    })
    proxy.stdout!.on('data', (d: Buffer) => (proxyOut += d.toString()))
    await proxySays('listening')
    process.env.PGPASSWORD = PASSWORD
  }, 120_000)
  afterAll(async () => {
    if (saved === undefined) delete process.env.PGPASSWORD
    else process.env.PGPASSWORD = saved
    await closePg()
    proxy?.kill()
    await cluster?.destroy()
    if (proxyDir) rmSync(proxyDir, { recursive: true, force: true })
  })

  it('exits 1 with the neutral sentence and nothing about the data; the charge stays and the ledger verifies', async () => {
    const url = `postgresql://qa_reader@${encodeURIComponent(proxyDir)}:${cluster.port}/${cluster.database}`
    const ds = linkPostgres(store.db, { name: 'badges', url, table: 'hr.cut_badges', personColumn: 'person', ...officerAct(store.db, 'olga') }).id
    const q = saveQuery(store.db, ds, 'rooms', {
      kind: 'threshold',
      groupBy: ['room'],
      filter: [{ column: 'floor', op: '>=', value: 1 }],
      count: { kind: 'persons', personColumn: 'person', cap: 2 },
      threshold: { kind: 'constant', value: 40 },
      groups: [['R1'], ['R2']]
    })
    await h['budgets/set']({ datasetId: ds, epsilon: '5', reason: 'test', ...officerAct(store.db, 'olga') })
    const before = ledgerRows()
    expect(proxyOut).not.toContain('cut')

    const failed = await cli(['release', '--db', ws.db, '--query', String(q), '--mechanism', 'tslm', '--alpha', '10', '--beta', '0.05'])
    expect(failed.code).toBe(1)
    expect(failed.out).toBe('')
    expect(failed.err).toMatch(
      /^quiet-alarm: Release \d+ was charged but not answered \(the answer could not be computed from the data\); the charge stays in the ledger\n$/
    )
    expect(ledgerRows()).toBe(before + 1)
    // The proxy went away during the release's read of the rows (after the checks before the charge).
    await proxySays('cut')
    const release = store.db.prepare('SELECT status, answer FROM releases ORDER BY id DESC LIMIT 1').get() as {
      status: string
      answer: string | null
    }
    expect(release).toEqual({ status: 'failed', answer: null })
    const verify = await cli(['ledger', 'verify', '--db', ws.db])
    expect(verify.code).toBe(0)
    expect(verify.out).toMatch(/^Ledger verified/)
  })
})
