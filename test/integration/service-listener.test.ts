/**
 * Where the HTTP door listens (issue "Two deployments"): HTTPS on every address but loopback, or no start at all (one
 * sentence); plain HTTP to the TLS listener gets one sentence naming the https:// address and nothing else; the
 * workbench stays plain HTTP on loopback.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { request } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { startHeadless, type HeadlessServer } from '../../src-main/server'
import { parseListen, isLoopback } from '../../src-main/door/listener'
import { tempWorkspace, waitFor } from './helpers'
import { type TestPki, makeTestPki } from '../support/tls'
import { credentialFor, httpsCall } from './https-call'

const ROOT = resolve(__dirname, '../..')
let ws: ReturnType<typeof tempWorkspace>
let tls: TestPki
let rendererDir: string

beforeAll(() => {
  ws = tempWorkspace('qa-listener-')
  tls = makeTestPki()
  rendererDir = join(ws.dir, 'renderer')
  mkdirSync(rendererDir)
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>ui</title>')
})
afterAll(() => {
  ws?.cleanup()
  tls?.cleanup()
})

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
    const wb = await startHeadless({ dbPath: db, rendererDir, listen: { host: '0.0.0.0', port: 0 }, tls: { cert: tls.cert, key: tls.key } }).catch(
      (x: unknown) => x
    )
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

  it('serves HTTPS to accounts, and answers plain HTTP on the same port with one sentence only', async () => {
    const h: HeadlessServer = await startHeadless({
      dbPath: ws.db,
      rendererDir,
      poolSize: 1,
      deployment: 'service',
      cadenceMs: 50,
      listen: { host: '127.0.0.1', port: 0 },
      tls: { cert: tls.cert, key: tls.key },
      maxUploadBytes: 1000
    })
    try {
      // An upload over the cap gets its 413 sentence through the socket gate (the connection closes after it, not before).
      const custodian = credentialFor(h.services.context.store.db, 'cody', 'custodian')
      const big = await httpsCall(h.port, tls.ca, '/api/upload?name=big.csv', {
        method: 'POST',
        headers: { Authorization: `Bearer ${custodian}`, 'Content-Length': '5000' },
        body: Buffer.alloc(5000, 0x61)
      }).catch((e: Error) => ({ status: 0, body: e.message }))
      expect(big.status).toBe(413)
      expect(JSON.parse(big.body)).toMatchObject({ ok: false, error: { code: 'too-large' } })
      // No token in a service's address: its callers are accounts.
      expect(h.url).toBe(`https://127.0.0.1:${h.port}/`)
      const analyst = credentialFor(h.services.context.store.db, 'ana', 'analyst')
      const status = (credential: string) =>
        httpsCall(h.port, tls.ca, '/api/call/app/status', { method: 'POST', headers: { Authorization: `Bearer ${credential}` }, body: '{"req":{}}' })
      const ok = await status(analyst)
      expect(ok.status).toBe(200)
      expect(JSON.parse(ok.body)).toMatchObject({ ok: true, value: { deployment: 'service' } })
      expect(JSON.parse(ok.body).value).not.toHaveProperty('databasePath')
      // The workbench's token means nothing here.
      expect((await status(h.token)).status).toBe(401)
      const page = await plain(h.port, '/api/call/app/status')
      expect(page.status).toBe(400)
      expect(JSON.parse(page.body)).toEqual({
        ok: false,
        error: { message: `This Quiet Alarm service speaks HTTPS only: open https://127.0.0.1:${h.port}/`, code: 'bad-request' }
      })
      // A client that does not trust the certificate gets no answer at all.
      await expect(httpsCall(h.port, readFileSync(tls.otherCaPath), '/')).rejects.toThrow()
    } finally {
      await h.close()
    }
  })

  it('signs a browser in with a session cookie (HttpOnly, Secure, SameSite=Strict) that calls, uploads by role and the event stream accept; signs out', async () => {
    const h = await startHeadless({
      dbPath: join(ws.dir, 'cookies.sqlite'),
      rendererDir,
      poolSize: 1,
      deployment: 'service',
      cadenceMs: 50,
      listen: { host: '127.0.0.1', port: 0 },
      tls: { cert: tls.cert, key: tls.key }
    })
    try {
      const db = h.services.context.store.db
      const analyst = credentialFor(db, 'ana', 'analyst')
      const custodian = credentialFor(db, 'cody', 'custodian')
      const api = (path: string, o: { method?: string; headers?: Record<string, string>; body?: string } = {}) => httpsCall(h.port, tls.ca, path, o)
      expect(JSON.parse((await api('/api/session')).body)).toEqual({ ok: true, value: { deployment: 'service', principal: null, expiresAt: null } })
      expect((await api('/api/call/app/status', { method: 'POST', body: '{}' })).status).toBe(401)
      const bad = await api('/api/session', { method: 'POST', body: JSON.stringify({ credential: analyst.slice(0, -1) + 'x' }) })
      expect(bad.status).toBe(401)
      expect(JSON.parse(bad.body).error.code).toBe('unauthorized')
      const signed = await api('/api/session', { method: 'POST', body: JSON.stringify({ credential: analyst }) })
      expect(signed.status).toBe(200)
      expect(JSON.parse(signed.body).value.principal).toEqual({ accountId: 1, name: 'ana', roles: ['analyst'] })
      const setCookie = String(signed.headers['set-cookie'])
      expect(setCookie).toMatch(/^qa_session=qas_[A-Za-z0-9_-]+; HttpOnly; SameSite=Strict; Path=\/api; Max-Age=\d+; Secure$/)
      const session = { Cookie: setCookie.split(';')[0] }
      expect(JSON.parse((await api('/api/session', { headers: session })).body).value.principal.name).toBe('ana')
      expect((await api('/api/call/datasets/list', { method: 'POST', headers: session, body: '{}' })).status).toBe(200)
      // Another site's page cannot use it (SameSite, and the Origin check).
      expect(
        (await api('/api/call/datasets/list', { method: 'POST', headers: { ...session, Origin: 'https://evil.example' }, body: '{}' })).status
      ).toBe(403)
      // Uploads are the custodian's: one sentence, code forbidden, for the analyst.
      const upload = await api('/api/upload?name=a.csv', { method: 'POST', headers: session, body: 'a,b\n1,2\n' })
      expect(upload.status).toBe(403)
      expect(JSON.parse(upload.body).error.code).toBe('forbidden')
      const byCustodian = await api('/api/upload?name=a.csv', {
        method: 'POST',
        headers: { Authorization: `Bearer ${custodian}` },
        body: 'a,b\n1,2\n'
      })
      expect(byCustodian.status).toBe(200)
      // The event stream takes the cookie (EventSource sends it; no token in the address).
      const events = await new Promise<string>((ok, fail) => {
        const r = httpsRequest({ host: '127.0.0.1', port: h.port, path: '/api/events', headers: session, ca: tls.ca, agent: false }, (res) => {
          res.once('data', (d) => {
            ok(`${res.statusCode} ${String(d)}`)
            r.destroy()
          })
        })
        r.on('error', fail)
        r.end()
      })
      expect(events).toBe('200 : connected\n\n')
      // Each stream gets what its account may see: the custodian's job events reach the custodian, not the analyst.
      const frames = { analyst: '', custodian: '' }
      const open = (who: keyof typeof frames, headers: Record<string, string>) =>
        new Promise<() => void>((ok, fail) => {
          const r = httpsRequest({ host: '127.0.0.1', port: h.port, path: '/api/events', headers, ca: tls.ca, agent: false }, (res) => {
            res.on('data', (d) => (frames[who] += String(d)))
            ok(() => r.destroy())
          })
          r.on('error', fail)
          r.end()
        })
      const closeAnalyst = await open('analyst', session)
      const closeCustodian = await open('custodian', { Authorization: `Bearer ${custodian}` })
      const job = await api('/api/call/diagnostics/self-check', {
        method: 'POST',
        headers: { Authorization: `Bearer ${custodian}` },
        body: JSON.stringify({ req: { batches: 2, samplesPerBatch: 1000 } })
      })
      const jobId = JSON.parse(job.body).value.jobId as string
      await waitFor(() => frames.custodian.includes('"state":"done"'), 'the custodian to see the job end', 60_000)
      // Both streams are written in the same turn: three more ticks are plenty for anything sent to the analyst.
      await new Promise((r) => setTimeout(r, 150))
      expect(frames.custodian).toContain(`"jobId":"${jobId}"`)
      expect(frames.analyst).not.toContain(jobId)
      closeAnalyst()
      closeCustodian()
      const out = await api('/api/session', { method: 'DELETE', headers: session })
      expect(String(out.headers['set-cookie'])).toMatch(/^qa_session=; .*Max-Age=0/)
      expect((await api('/api/call/datasets/list', { method: 'POST', headers: session, body: '{}' })).status).toBe(401)
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
