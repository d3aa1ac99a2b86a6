/**
 * Headless mode (`npm run serve`): the same services over loopback HTTP and an event stream, serving the built renderer.
 *
 * - Binds 127.0.0.1 only. Requests whose Host is not this loopback address are refused (DNS-rebinding defence).
 * - A random session token is required on every API call (`Authorization: Bearer <token>`) and on the event stream
 *   (`/api/events?token=<token>`, since EventSource cannot set headers). The UI gets it from the URL fragment
 *   printed at start, which browsers never send to the server.
 * - Static files (the UI bundle) need no token: they hold no data.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { createReadStream, createWriteStream, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto'
import { dirname, extname, join, normalize, resolve, sep } from 'node:path'
import { tmpdir } from 'node:os'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { FileHandles, afterPaddedAnswers, checkRequest, createServices, type Services, type ServicesOptions } from './services'
import type { CallOutcome } from './contract'

export const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; " +
  "font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.woff2': 'font/woff2'
}

const MAX_BODY_BYTES = 4 * 1024 * 1024
/** Largest file the browser may hand over for import (counted on the bytes received, not on what the client declares). */
export const MAX_UPLOAD_BYTES = 16 * 1024 ** 3

function sizeText(bytes: number): string {
  return bytes >= 1024 ** 3 ? `${+(bytes / 1024 ** 3).toFixed(2)} GiB` : `${+(bytes / 1024 ** 2).toFixed(2)} MiB`
}

export interface HeadlessOptions extends Omit<ServicesOptions, 'mode'> {
  port?: number
  /** Folder of the built renderer (default: out/renderer next to this bundle). */
  rendererDir?: string
  /** Where uploaded files are kept until the server stops (default: a private temporary folder, removed at close). */
  uploadDir?: string
  /** Use this token instead of a random one (tests only). */
  token?: string
  /** Largest upload accepted (default 16 GiB; tests use less). */
  maxUploadBytes?: number
}

export interface HeadlessServer {
  url: string
  port: number
  token: string
  services: Services
  server: Server
  close(): Promise<void>
}

function defaultRendererDir(): string {
  const here = dirname(fileURLToPath(import.meta.url))
  for (const c of [join(here, '..', 'renderer'), join(here, '..', '..', 'out', 'renderer'), join(here, '..', 'out', 'renderer')]) {
    if (existsSync(join(c, 'index.html'))) return c
  }
  return join(here, '..', 'renderer')
}

function sameToken(given: string | null | undefined, token: string): boolean {
  if (!given) return false
  const a = Buffer.from(given)
  const b = Buffer.from(token)
  return a.length === b.length && timingSafeEqual(a, b)
}

/** Every API answer is a contract outcome: a failure carries one sentence and one of the contract's error codes. */
function send(res: ServerResponse, status: number, body: CallOutcome<unknown>, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body)
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', ...headers })
  res.end(text)
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    size += (chunk as Buffer).length
    if (size > MAX_BODY_BYTES) throw new Error('too-large')
    chunks.push(chunk as Buffer)
  }
  const text = Buffer.concat(chunks).toString('utf8')
  return text.trim() === '' ? {} : JSON.parse(text)
}

function safeUploadName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? 'upload'
  return base.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 80) || 'upload'
}

/**
 * Streams an upload into `path`, counting the bytes as they arrive: past `limit` it stops reading at once (a chunked
 * upload declares no length, so the header alone proves nothing).
 */
function receiveUpload(req: IncomingMessage, path: string, limit: number): Promise<'ok' | 'too-large' | 'disk' | 'error'> {
  return new Promise((resolvePromise) => {
    const out = createWriteStream(path, { mode: 0o600 })
    let received = 0
    let settled = false
    const settle = (r: 'ok' | 'too-large' | 'disk' | 'error') => {
      if (settled) return
      settled = true
      req.removeListener('data', onData)
      if (r !== 'ok') {
        req.pause()
        out.destroy()
      }
      resolvePromise(r)
    }
    const onData = (chunk: Buffer) => {
      received += chunk.length
      if (received > limit) return settle('too-large')
      if (!out.write(chunk)) {
        req.pause()
        out.once('drain', () => req.resume())
      }
    }
    req.on('data', onData)
    req.once('end', () => {
      if (!settled) out.end()
    })
    req.once('aborted', () => settle('error'))
    req.once('error', () => settle('error'))
    out.once('error', (e: NodeJS.ErrnoException) => settle(e.code === 'ENOSPC' || e.code === 'EDQUOT' ? 'disk' : 'error'))
    out.once('close', () => settle(received > limit ? 'too-large' : 'ok'))
  })
}

export async function startHeadless(options: HeadlessOptions = {}): Promise<HeadlessServer> {
  const token = options.token ?? randomBytes(24).toString('base64url')
  const rendererDir = resolve(options.rendererDir ?? defaultRendererDir())
  // Uploaded files are personal data: a folder of our own (0700), files 0600, removed when the server stops.
  const uploadDir = resolve(options.uploadDir ?? mkdtempSync(join(tmpdir(), 'quiet-alarm-uploads-')))
  const ownsUploadDir = options.uploadDir === undefined
  const maxUpload = options.maxUploadBytes ?? MAX_UPLOAD_BYTES
  const services = createServices({ ...options, mode: 'headless' })
  const files = (services.context.files ??= new FileHandles())
  const streams = new Set<ServerResponse>()
  let port = 0

  // Events and pings are written in order, and not before a running release's padded answer time (a frame written
  // the moment a release's run ended would time it: release-service.ts `afterPaddedAnswers`).
  let frames: Promise<void> = Promise.resolve()
  const writeHeld = (write: () => void) => {
    frames = frames.then(afterPaddedAnswers).then(write)
  }
  const unsubscribe = services.events.on((name, payload) => {
    const frame = `data: ${JSON.stringify({ name, payload })}\n\n`
    writeHeld(() => {
      for (const s of streams) s.write(frame)
    })
  })

  const hostAllowed = (host: string | undefined) => host === `127.0.0.1:${port}` || host === `localhost:${port}`
  const originAllowed = (origin: string | undefined) =>
    origin === undefined || origin === `http://127.0.0.1:${port}` || origin === `http://localhost:${port}`

  const server = createServer(async (req, res) => {
    try {
      // Whatever arrived while a release ran is answered at its padded answer time (pages and refusals too).
      await afterPaddedAnswers()
      const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`)
      if (!hostAllowed(req.headers.host)) {
        send(res, 403, { ok: false, error: { message: 'Refused: unexpected Host header', code: 'forbidden' } })
        return
      }
      const securityHeaders = {
        'Content-Security-Policy': CONTENT_SECURITY_POLICY,
        'X-Content-Type-Options': 'nosniff',
        'X-Frame-Options': 'DENY',
        'Referrer-Policy': 'no-referrer'
      }
      if (url.pathname.startsWith('/api/')) {
        if (!originAllowed(req.headers.origin)) {
          send(res, 403, { ok: false, error: { message: 'Refused: cross-origin request', code: 'forbidden' } })
          return
        }
        const auth = req.headers.authorization
        // The query-string token is accepted for the event stream only (EventSource cannot send headers).
        const given = auth?.startsWith('Bearer ') ? auth.slice(7) : url.pathname === '/api/events' ? url.searchParams.get('token') : null
        if (!sameToken(given, token)) {
          send(res, 401, { ok: false, error: { message: 'Missing or wrong session token', code: 'unauthorized' } }, securityHeaders)
          return
        }
        if (url.pathname === '/api/events' && req.method === 'GET') {
          res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store', Connection: 'keep-alive', ...securityHeaders })
          res.write(': connected\n\n')
          streams.add(res)
          const ping = setInterval(
            () =>
              writeHeld(() => {
                if (streams.has(res)) res.write(': ping\n\n')
              }),
            15_000
          )
          req.on('close', () => {
            clearInterval(ping)
            streams.delete(res)
          })
          return
        }
        if (url.pathname.startsWith('/api/call/') && req.method === 'POST') {
          const method = decodeURIComponent(url.pathname.slice('/api/call/'.length))
          let body: unknown
          try {
            body = await readJson(req)
          } catch (e) {
            const tooLarge = (e as Error).message === 'too-large'
            send(res, tooLarge ? 413 : 400, {
              ok: false,
              error: { message: tooLarge ? 'Request too large' : 'The request body is not valid JSON', code: 'bad-request' }
            })
            return
          }
          const callReq = (body as { req?: unknown })?.req
          // Before any handler runs: no parameter may name a file (issue 15), and the request must fit its method's schema
          // (issue 18): one sentence naming the field, nothing written.
          const checked = checkRequest(method, callReq)
          const outcome = checked.ok ? await services.dispatch(method, checked.req) : { ok: false as const, error: checked.error }
          send(res, 200, outcome, securityHeaders)
          return
        }
        if (url.pathname === '/api/upload' && req.method === 'POST') {
          // The browser's way to hand a local file to the services: streamed into a private folder, registered under an
          // opaque handle (the answer names no path). The cap is enforced on the bytes received, whatever the client declares.
          const tooLarge = () => {
            send(
              res,
              413,
              {
                ok: false,
                error: {
                  message: `The file is larger than ${sizeText(maxUpload)}, the most that can be uploaded; import it with the CLI instead`,
                  code: 'too-large'
                }
              },
              { Connection: 'close', ...securityHeaders }
            )
            // Stop reading the rest: the connection goes once the answer is out.
            res.once('finish', () => req.socket.destroy())
          }
          const declared = req.headers['content-length']
          if (declared !== undefined && !(Number(declared) <= maxUpload)) {
            tooLarge()
            return
          }
          const fileName = safeUploadName(url.searchParams.get('name') ?? 'upload.csv')
          mkdirSync(uploadDir, { recursive: true, mode: 0o700 })
          const path = join(uploadDir, `${randomUUID()}-${fileName}`)
          const outcome = await receiveUpload(req, path, maxUpload)
          if (outcome !== 'ok') {
            rmSync(path, { force: true })
            if (outcome === 'too-large') tooLarge()
            else if (outcome === 'disk')
              send(res, 507, {
                ok: false,
                error: { message: `The upload could not be saved: the disk holding ${uploadDir} is full`, code: 'disk-full' }
              })
            else if (!res.headersSent && !req.socket.destroyed)
              send(res, 500, { ok: false, error: { message: 'The upload could not be saved', code: 'upload' } })
            return
          }
          const handle = files.register(path, { fileName: url.searchParams.get('name') ?? fileName, owned: true })
          send(res, 200, { ok: true, value: handle }, securityHeaders)
          return
        }
        send(res, 404, { ok: false, error: { message: 'No such API route', code: 'not-found' } })
        return
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405).end()
        return
      }
      // Static files of the UI.
      const rel = normalize(decodeURIComponent(url.pathname)).replace(/^([/\\])+/, '')
      let file = resolve(rendererDir, rel === '' ? 'index.html' : rel)
      if (!file.startsWith(rendererDir + sep) && file !== rendererDir) {
        res.writeHead(404).end()
        return
      }
      if (!existsSync(file) || statSync(file).isDirectory()) file = join(rendererDir, 'index.html')
      if (!existsSync(file)) {
        res.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8' }).end('The UI is not built yet: run "npm run build".')
        return
      }
      res.writeHead(200, {
        'Content-Type': MIME[extname(file)] ?? 'application/octet-stream',
        'Cache-Control': file.endsWith('index.html') ? 'no-store' : 'public, max-age=3600',
        ...securityHeaders
      })
      if (req.method === 'HEAD') res.end()
      else createReadStream(file).pipe(res)
    } catch (e) {
      process.stderr.write(`request failed: ${(e as Error)?.stack ?? String(e)}\n`)
      if (!res.headersSent) send(res, 500, { ok: false, error: { message: 'Internal error', code: 'internal' } })
      else res.end()
    }
  })

  await new Promise<void>((resolvePromise, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject)
      resolvePromise()
    })
  }).catch(async (e) => {
    unsubscribe()
    await services.close()
    throw e
  })
  const address = server.address()
  port = typeof address === 'object' && address ? address.port : 0

  return {
    url: `http://127.0.0.1:${port}/#token=${token}`,
    port,
    token,
    services,
    server,
    async close() {
      unsubscribe()
      for (const s of streams) s.end()
      streams.clear()
      // Close every connection now: awaiting close() first waited for any open connection (a second page's event
      // stream, a request in flight) to end on its own, so a stop could hang (an e2e run waited 120 s for one).
      const closed = new Promise<void>((r) => server.close(() => r()))
      server.closeAllConnections?.()
      await closed
      await services.close()
      if (ownsUploadDir) rmSync(uploadDir, { recursive: true, force: true })
    }
  }
}

async function runFromCommandLine(): Promise<void> {
  let values
  try {
    ;({ values } = parseArgs({
      options: {
        port: { type: 'string' },
        db: { type: 'string' },
        workers: { type: 'string' },
        help: { type: 'boolean', short: 'h' }
      }
    }))
  } catch (e) {
    process.stderr.write(`quiet-alarm serve: ${(e as Error).message.split('. ')[0]}\n`)
    process.exit(2)
  }
  if (values.help) {
    process.stdout.write(
      'npm run serve -- [--port N] [--db PATH] [--workers N]\n\nStarts Quiet Alarm headless on 127.0.0.1 and prints the address to open in a browser.\n'
    )
    return
  }
  const port = values.port === undefined ? 0 : Number(values.port)
  const workers = values.workers === undefined ? undefined : Number(values.workers)
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(`quiet-alarm serve: --port must be a whole number from 0 to 65535 (got "${values.port}")\n`)
    process.exit(2)
  }
  if (workers !== undefined && (!Number.isInteger(workers) || workers < 1 || workers > 64)) {
    process.stderr.write(`quiet-alarm serve: --workers must be a whole number from 1 to 64 (got "${values.workers}")\n`)
    process.exit(2)
  }
  let h: HeadlessServer
  try {
    h = await startHeadless({ port, dbPath: values.db, poolSize: workers })
  } catch (e) {
    process.stderr.write(`quiet-alarm serve: ${(e as Error).message.split('\n')[0]}\n`)
    process.exit((e as { name?: string }).name === 'UserError' ? 2 : 1)
  }
  process.stdout.write(
    `Quiet Alarm (headless) is running.\n` +
      `  Open:      ${h.url}\n` +
      `  Workspace: ${h.services.context.store.path}\n` +
      `  Workers:   ${h.services.context.pool.size}\n` +
      `Only this machine can connect (127.0.0.1). Keep the address private: it contains the session token. Ctrl+C stops.\n`
  )
  const stop = () => {
    void h.close().finally(() => process.exit(0))
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
}

const entry = process.argv[1] ?? ''
if (/server\.(c?js|ts|mjs)$/.test(entry)) void runFromCommandLine()
