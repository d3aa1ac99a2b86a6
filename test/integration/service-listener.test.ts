/**
 * Where the HTTP door listens (issue "Two deployments"): HTTPS on every address but loopback, or no start at all (one
 * sentence); plain HTTP to the TLS listener gets one sentence naming the https:// address and nothing else; the
 * workbench stays plain HTTP on loopback.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { request } from 'node:http'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { startHeadless, type HeadlessServer } from '../../src-main/server'
import { parseListen, isLoopback } from '../../src-main/door/listener'
import { tempWorkspace } from './helpers'
import { type TestCertificate, httpsCall, makeCertificate } from './tls-fixture'

const ROOT = resolve(__dirname, '../..')
let ws: ReturnType<typeof tempWorkspace>
let tls: TestCertificate
let rendererDir: string

beforeAll(() => {
  ws = tempWorkspace('qa-listener-')
  tls = makeCertificate(ws.dir)
  rendererDir = join(ws.dir, 'renderer')
  mkdirSync(rendererDir)
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>ui</title>')
})
afterAll(() => ws?.cleanup())

function plain(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((ok, fail) => {
    const r = request({ host: '127.0.0.1', port, path, method: 'GET' }, (res) => {
      let body = ''
      res.on('data', (d) => (body += String(d)))
      res.on('end', () => ok({ status: res.statusCode ?? 0, body }))
    })
    r.on('error', fail)
    r.end()
  })
}

describe('the service listener', () => {
  it('refuses to start on an address other than loopback without TLS, with one sentence and nothing opened', async () => {
    const db = join(ws.dir, 'never.sqlite')
    const e = await startHeadless({ dbPath: db, rendererDir, deployment: 'service', listen: { host: '0.0.0.0', port: 0 } }).catch((x: unknown) => x)
    expect((e as Error).name).toBe('UserError')
    expect((e as Error).message).toBe(
      '0.0.0.0:0 is not a loopback address, so the service must use HTTPS there: give --tls-cert and --tls-key (plain HTTP is only for 127.0.0.1)'
    )
    // The workbench listens on loopback only, TLS or not.
    const wb = await startHeadless({ dbPath: db, rendererDir, listen: { host: '0.0.0.0', port: 0 }, tls }).catch((x: unknown) => x)
    expect((wb as Error).message).toMatch(/^The workbench listens on loopback only/)
    expect(existsSync(db)).toBe(false)
  })

  it('`npm run serve -- --listen` refuses the same way from the command line (exit 2, one line), and checks the PEM files', () => {
    const serve = (...args: string[]) =>
      spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src-main/server.ts'), '--db', join(ws.dir, 'cli.sqlite'), ...args], {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 60_000
      })
    const open = serve('--listen', '0.0.0.0:0')
    expect(open.status).toBe(2)
    expect(open.stderr.trim().split('\n')).toEqual([
      'quiet-alarm serve: 0.0.0.0:0 is not a loopback address, so the service must use HTTPS there: give --tls-cert and --tls-key (plain HTTP is only for 127.0.0.1)'
    ])
    const notPem = serve('--listen', '0.0.0.0:0', '--tls-cert', join(rendererDir, 'index.html'), '--tls-key', tls.keyPath)
    expect(notPem.status).toBe(2)
    expect(notPem.stderr).toMatch(/^quiet-alarm serve: The TLS certificate file .* is not in PEM format/)
    const half = serve('--listen', '127.0.0.1:0', '--tls-cert', tls.certPath)
    expect(half.stderr).toMatch(/Give both --tls-cert and --tls-key/)
    expect(serve('--listen', 'nowhere').stderr).toMatch(/--listen takes HOST:PORT/)
  })

  it('serves HTTPS with the certificate, and answers plain HTTP on the same port with one sentence only', async () => {
    const h: HeadlessServer = await startHeadless({
      dbPath: ws.db,
      rendererDir,
      poolSize: 1,
      deployment: 'service',
      cadenceMs: 50,
      listen: { host: '127.0.0.1', port: 0 },
      tls
    })
    try {
      expect(h.url).toMatch(new RegExp(`^https://127\\.0\\.0\\.1:${h.port}/#token=`))
      const ok = await httpsCall(h.port, tls.cert, '/api/call/app/status', {
        method: 'POST',
        headers: { Authorization: `Bearer ${h.token}` },
        body: '{"req":{}}'
      })
      expect(ok.status).toBe(200)
      expect(JSON.parse(ok.body).ok).toBe(true)
      const page = await plain(h.port, '/api/call/app/status')
      expect(page.status).toBe(400)
      expect(JSON.parse(page.body)).toEqual({
        ok: false,
        error: { message: `This Quiet Alarm service speaks HTTPS only: open https://127.0.0.1:${h.port}/`, code: 'bad-request' }
      })
      // A client that does not trust the certificate gets no answer at all.
      await expect(httpsCall(h.port, Buffer.from(''), '/')).rejects.toThrow()
    } finally {
      await h.close()
    }
  })

  it('parses listen addresses and knows loopback', () => {
    expect(parseListen('127.0.0.1:8443')).toEqual({ host: '127.0.0.1', port: 8443 })
    expect(parseListen('[::1]:9')).toEqual({ host: '::1', port: 9 })
    expect(parseListen(':7')).toEqual({ host: '127.0.0.1', port: 7 })
    expect(() => parseListen('host:99999')).toThrow(/--listen takes HOST:PORT/)
    for (const h of ['127.0.0.1', '127.3.2.1', 'localhost', '::1']) expect(isLoopback(h), h).toBe(true)
    for (const h of ['0.0.0.0', '::', '10.0.0.1', '128.0.0.1', 'example.org']) expect(isLoopback(h), h).toBe(false)
  })
})
