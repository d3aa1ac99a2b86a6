import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request } from 'node:http'
import { connect } from 'node:net'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { networkInterfaces } from 'node:os'
import { startHeadless, type HeadlessServer } from '../../src-main/server'
import { tempWorkspace, waitFor } from './helpers'

let h: HeadlessServer
let ws: ReturnType<typeof tempWorkspace>

beforeAll(async () => {
  ws = tempWorkspace()
  const rendererDir = join(ws.dir, 'renderer')
  mkdirSync(rendererDir)
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>ui</title>')
  h = await startHeadless({ dbPath: ws.db, poolSize: 2, rendererDir, uploadDir: join(ws.dir, 'uploads') })
})
afterAll(async () => {
  await h?.close()
  ws?.cleanup()
})

function raw(path: string, opts: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  return new Promise<{ status: number; body: string; headers: Record<string, unknown> }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: h.port, path, method: opts.method ?? 'GET', headers: opts.headers }, (res) => {
      let body = ''
      res.on('data', (d) => (body += String(d)))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }))
    })
    req.on('error', reject)
    req.end(opts.body)
  })
}

describe('headless server', () => {
  it('listens on 127.0.0.1 only', () => {
    const addr = h.server.address()
    expect(typeof addr === 'object' && addr?.address).toBe('127.0.0.1')
    expect(h.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${h.port}/#token=[A-Za-z0-9_-]{32}$`))
  })

  it('is not reachable on any non-loopback address of this machine', async () => {
    const external = Object.values(networkInterfaces())
      .flat()
      .filter((a) => a && !a.internal && a.family === 'IPv4')
      .map((a) => a!.address)
    for (const address of external) {
      const outcome = await new Promise<string>((resolve) => {
        const s = connect({ host: address, port: h.port })
        s.setTimeout(2000, () => {
          s.destroy()
          resolve('timeout')
        })
        s.on('connect', () => {
          s.destroy()
          resolve('connected')
        })
        s.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'))
      })
      expect(outcome, `connecting to ${address}:${h.port}`).not.toBe('connected')
    }
    // Loopback still answers, so the refusals above are about the address.
    expect((await raw('/')).status).toBe(200)
  })

  it('refuses API calls and the event stream without the right token', async () => {
    const none = await raw('/api/call/app/status', { method: 'POST', body: '{}' })
    expect(none.status).toBe(401)
    expect(JSON.parse(none.body)).toEqual({ ok: false, error: { message: 'Missing or wrong session token', code: 'unauthorized' } })
    const wrong = await raw('/api/call/app/status', { method: 'POST', body: '{}', headers: { Authorization: `Bearer ${'x'.repeat(32)}` } })
    expect(wrong.status).toBe(401)
    expect((await raw('/api/events')).status).toBe(401)
    // The query-string token opens the event stream only, never a call.
    expect((await raw(`/api/call/app/status?token=${h.token}`, { method: 'POST', body: '{}' })).status).toBe(401)
    const almost = h.token.slice(0, -1) + (h.token.endsWith('A') ? 'B' : 'A')
    expect((await raw(`/api/events?token=${almost}`)).status).toBe(401)
    expect((await raw('/api/upload?name=a.csv', { method: 'POST', body: 'a,b\n1,2\n' })).status).toBe(401)
    const ok = await raw('/api/call/app/status', { method: 'POST', body: '{"req":{}}', headers: { Authorization: `Bearer ${h.token}` } })
    expect(ok.status).toBe(200)
    expect(JSON.parse(ok.body)).toMatchObject({ ok: true, value: { mode: 'headless', databasePath: ws.db } })
  })

  it('refuses a foreign Host header (DNS rebinding) and foreign origins, even with the token', async () => {
    const evil = await raw('/api/call/app/status', {
      method: 'POST',
      body: '{}',
      headers: { Host: 'evil.example:80', Authorization: `Bearer ${h.token}` }
    })
    expect(evil.status).toBe(403)
    const cross = await raw('/api/call/app/status', {
      method: 'POST',
      body: '{}',
      headers: { Origin: 'http://evil.example', Authorization: `Bearer ${h.token}` }
    })
    expect(cross.status).toBe(403)
  })

  it('only dispatches contract methods, and reports bad bodies clearly', async () => {
    const auth = { Authorization: `Bearer ${h.token}` }
    const unknown = await raw('/api/call/constructor', { method: 'POST', body: '{}', headers: auth })
    expect(JSON.parse(unknown.body)).toEqual({ ok: false, error: { message: 'Unknown method "constructor"', code: 'unknown-method' } })
    const bad = await raw('/api/call/app/status', { method: 'POST', body: '{not json', headers: auth })
    expect(bad.status).toBe(400)
  })

  it('answers an address that is not valid percent-encoding with 400 and one sentence, and logs no stack', async () => {
    const logged: string[] = []
    const write = process.stderr.write.bind(process.stderr)
    process.stderr.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
      logged.push(String(chunk))
      return write(chunk, ...rest)
    }) as typeof process.stderr.write
    try {
      const page = await raw('/%E0%A4%A')
      expect(page.status).toBe(400)
      expect(JSON.parse(page.body)).toEqual({ ok: false, error: { message: 'The address is not valid percent-encoding', code: 'bad-request' } })
      const method = await raw('/api/call/%E0%A4%A', { method: 'POST', body: '{}', headers: { Authorization: `Bearer ${h.token}` } })
      expect(method.status).toBe(400)
      expect(JSON.parse(method.body).error.code).toBe('bad-request')
    } finally {
      process.stderr.write = write
    }
    expect(logged.join('')).not.toMatch(/URIError|\n\s+at /)
  })

  it('streams job events to a token holder and serves the UI with a CSP', async () => {
    const events: string[] = []
    const stream = request({ host: '127.0.0.1', port: h.port, path: `/api/events?token=${h.token}` }, (res) => {
      res.on('data', (d) => events.push(String(d)))
    })
    stream.end()
    await waitFor(() => events.join('').includes(': connected'), 'the stream to open')
    const started = await raw('/api/call/diagnostics/self-check', {
      method: 'POST',
      body: JSON.stringify({ req: { batches: 4, samplesPerBatch: 20000 } }),
      headers: { Authorization: `Bearer ${h.token}` }
    })
    const { jobId } = JSON.parse(started.body).value
    await waitFor(() => events.join('').includes(`"state":"done"`), 'the job to finish', 30_000)
    const text = events.join('')
    expect(text).toContain(`"name":"job/progress","payload":{"jobId":"${jobId}"`)
    stream.destroy()
    const page = await raw('/')
    expect(page.headers['content-security-policy']).toMatch(/default-src 'self'; script-src 'self'/)
    // A path out of the UI's folder names no file of it: one sentence, neither the file nor the UI.
    const outside = await raw('/../../etc/passwd')
    expect(outside.status).toBe(404)
    expect(JSON.parse(outside.body).error.message).toMatch(/^There is nothing at this address/)
  })
})
