/**
 * The HTTP door: the same services over HTTP(S) and an event stream, serving the built renderer.
 *
 * - The workbench (`npm run serve`): binds 127.0.0.1 only, plain HTTP, nothing padded or held.
 * - The service (`deployment: 'service'`): listens where it is told (HTTPS required off loopback: listener.ts), and every
 *   byte a client reads leaves at a tick of the public cadence (cadence.ts).
 * - Requests whose Host is not this server's are refused (DNS-rebinding defence); API calls from another origin too.
 * - A random session token is required on every API call (`Authorization: Bearer <token>`) and on the event stream
 *   (`/api/events?token=<token>`, since EventSource cannot set headers). The UI gets it from the URL fragment
 *   printed at start, which browsers never send to the server.
 * - Static files (the UI bundle) need no token: they hold no data.
 *
 * One guard (Host, then for the API the Origin and the token) runs before one route table.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { hostname } from 'node:os'
import type { Server as NetServer } from 'node:net'
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto'
import { dirname, join, resolve } from 'node:path'
import { tmpdir } from 'node:os'
import { fileURLToPath } from 'node:url'
import type { Principal } from '../contract/accounts'
import {
  FileHandles,
  LOCAL_PRINCIPAL,
  UserError,
  createServices,
  type AuthFailure,
  type RouteName,
  type Services,
  type ServicesOptions
} from '../services'
import { Cadence, type GateRecord } from './cadence'
import { type ListenAddress, type TlsFiles, checkListen, hostForUrl, isLoopback, listenDoor } from './listener'
import { callDoor, forwardEvents } from './calls'
import { BodyError, envelopeProblem, readJson, receiveUpload, refuse, send, sizeText } from './http-io'
import { readPage, rendererFileFor } from './static-files'
import { DoorMetrics, type Gauge, routeLabel } from './metrics'
import { type LogSink, ServiceLog } from './service-log'
import type { CallOutcome } from '../contract'
import { isMethodName } from '../contract'
import { API_VERSION, API_VERSION_HEADER, ENVELOPE_TEXT } from '../contract/api-version'
import { statfsSync } from 'node:fs'

export const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; " +
  "font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer'
}

/** What an address that names nothing gets (the probes a host tool may try first included). */
const NO_PAGE =
  "There is nothing at this address: the UI is at /, liveness at /api/health, and readiness and metrics at /api/ready and /api/metrics (the custodian's)"
const ODD_PATH = 'The request\'s address is not a path this server has: it must start with a single "/"'
/** Readiness wants at least this much free on the workspace's disk (a release writes its charge and answer). */
const MIN_FREE_BYTES = 64 * 1024 ** 2

/** Largest file the browser may hand over for import (counted on the bytes received, not on what the client declares). */
export const MAX_UPLOAD_BYTES = 16 * 1024 ** 3

export interface HeadlessOptions extends Omit<ServicesOptions, 'mode'> {
  /** Loopback port (the workbench); `listen` gives host and port. */
  port?: number
  /** Where to listen (default 127.0.0.1 and `port`). Not loopback: only as a service, and only with `tls`. */
  listen?: ListenAddress
  /** HTTPS: the certificate chain and key (PEM contents). */
  tls?: TlsFiles
  /** Tests: each write a gated socket lets out (the service). */
  onGateLeave?: (r: GateRecord) => void
  /** Folder of the built renderer (default: out/renderer next to this bundle). */
  rendererDir?: string
  /** Where uploaded files are kept until the server stops (default: a private temporary folder, removed at close). */
  uploadDir?: string
  /** Use this token instead of a random one (tests only). */
  token?: string
  /** Largest upload accepted (default 16 GiB; tests use less). */
  maxUploadBytes?: number
  /** Where the service's log lines go (default stderr). */
  logSink?: LogSink
}

export interface HeadlessServer {
  url: string
  port: number
  token: string
  /** The service's cadence (ms); null in the workbench. */
  cadenceMs: number | null
  services: Services
  /** The server bound to the port. */
  server: NetServer
  close(): Promise<void>
}

/**
 * The built UI: out/renderer, found from this module's own place, whichever it is (out/main, a chunk folder under it,
 * or src-main/door when run from source): the nearest of the four folders above it holding renderer/ or out/renderer/.
 */
function defaultRendererDir(): string {
  const here = dirname(fileURLToPath(import.meta.url))
  let dir = here
  for (let up = 0; up < 4; up++, dir = dirname(dir)) {
    for (const c of [join(dir, 'renderer'), join(dir, 'out', 'renderer')]) {
      if (existsSync(join(c, 'index.html'))) return c
    }
  }
  return join(here, '..', 'renderer')
}

function sameToken(given: string | null | undefined, token: string): boolean {
  if (!given) return false
  const a = Buffer.from(given)
  const b = Buffer.from(token)
  return a.length === b.length && timingSafeEqual(a, b)
}

function safeUploadName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? 'upload'
  return base.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 80) || 'upload'
}

/** One request as a route sees it, after the guard: `caller` is who it is (null on a route that needs nobody). */
interface Exchange {
  req: IncomingMessage
  res: ServerResponse
  url: URL
  caller: Principal | null
}

interface Route {
  method: 'GET' | 'POST' | 'DELETE'
  /** An exact path, or a prefix ending in '/'. */
  path: string
  /** Who may use it: a caller (the workbench's token, or a service account the role table allows `role` to), or anyone. */
  needs: 'caller' | 'nobody'
  /** The role table's name for the route (calls are checked per method by dispatch). */
  role?: RouteName
  handle(x: Exchange & { caller: Principal }): Promise<void> | void
}

/** The browser's sign-in session in the service (HttpOnly: scripts never see it; SameSite=Strict: no other site sends it). */
const SESSION_COOKIE = 'qa_session'

function cookie(req: IncomingMessage, name: string): string | null {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const i = part.indexOf('=')
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim()
  }
  return null
}

const matches = (route: Route, path: string) =>
  route.path.endsWith('/') ? path.startsWith(route.path) && path.length > route.path.length : path === route.path

export async function startHeadless(options: HeadlessOptions = {}): Promise<HeadlessServer> {
  const listen: ListenAddress = options.listen ?? { host: '127.0.0.1', port: options.port ?? 0 }
  const service = options.deployment === 'service'
  if (!service && !isLoopback(listen.host)) {
    throw new UserError(`The workbench listens on loopback only; serve ${hostForUrl(listen.host)} as a service (with HTTPS)`)
  }
  checkListen(listen, options.tls)
  const scheme = options.tls ? 'https' : 'http'
  const token = options.token ?? randomBytes(24).toString('base64url')
  const rendererDir = resolve(options.rendererDir ?? defaultRendererDir())
  // Uploaded files are personal data: a folder of our own (0700), files 0600, removed when the server stops.
  const uploadDir = resolve(options.uploadDir ?? mkdtempSync(join(tmpdir(), 'quiet-alarm-uploads-')))
  const ownsUploadDir = options.uploadDir === undefined
  const maxUpload = options.maxUploadBytes ?? MAX_UPLOAD_BYTES
  const services = createServices({ ...options, mode: 'headless' })
  const cadenceMs = services.context.cadenceMs
  const files = (services.context.files ??= new FileHandles())
  const call = callDoor({ services: () => services, unavailable: 'The workspace is not open.' })
  /** Open event streams and who opened each. */
  const streams = new Map<ServerResponse, Principal>()
  let port = 0
  let closing = false
  const metrics = new DoorMetrics()
  // The service's JSON-lines log (service-log.ts); the workbench has none.
  const log = service ? new ServiceLog(options.logSink) : null
  /** One line per call: the method and its outcome's code; a release's id, never its values. */
  const logCall = (method: string, outcome: CallOutcome<unknown>, caller: Principal, address: string) => {
    if (!log) return
    const m = isMethodName(method) ? method : 'unknown'
    const releaseId = outcome.ok && m === 'releases/run' ? (outcome.value as { releaseId?: unknown } | null)?.releaseId : undefined
    const event = m === 'releases/run' ? (outcome.ok ? 'release' : outcome.error.code === 'denied' ? 'release-denied' : 'release-refused') : 'call'
    log.write({
      event,
      account: caller.name,
      address,
      method: m,
      code: outcome.ok ? 'ok' : outcome.error.code,
      ...(typeof releaseId === 'number' ? { releaseId } : {})
    })
  }
  // A revoked account's open streams end with its access: no frame after the revocation's answer.
  const stopEnding = services.accounts.onAccountEnded((accountId) => {
    for (const [s, who] of streams)
      if (who.accountId === accountId) {
        streams.delete(s)
        s.end()
      }
  })

  const unsubscribe = forwardEvents(services, (name, payload) => {
    const frame = `data: ${JSON.stringify({ name, payload })}\n\n`
    // Each stream gets what its opener may see (the accounts gate: another account's job is not theirs).
    for (const [s, who] of streams) if (services.accounts.mayReceive(who, name, payload)) s.write(frame)
  })

  // The Host names this server: loopback names on loopback, the listen host elsewhere (any, on a wildcard address).
  const wildcard = listen.host === '0.0.0.0' || listen.host === '::'
  const hostAllowed = (host: string | undefined) => {
    if (host === undefined) return false
    if (wildcard) return true
    const names = isLoopback(listen.host) ? ['127.0.0.1', 'localhost', '[::1]', hostForUrl(listen.host)] : [hostForUrl(listen.host)]
    return names.some((n) => host === `${n}:${port}`)
  }
  const originAllowed = (origin: string | undefined, host: string | undefined) => origin === undefined || origin === `${scheme}://${host}`

  const events: Route = {
    method: 'GET',
    path: '/api/events',
    needs: 'caller',
    role: 'route:events',
    handle({ req, res, caller }) {
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store', Connection: 'keep-alive', ...SECURITY_HEADERS })
      res.write(': connected\n\n')
      streams.set(res, caller)
      const ping = setInterval(() => res.write(': ping\n\n'), 15_000)
      req.on('close', () => {
        clearInterval(ping)
        streams.delete(res)
      })
    }
  }

  const calls: Route = {
    method: 'POST',
    path: '/api/call/',
    needs: 'caller',
    async handle({ req, res, url, caller }) {
      let method: string
      try {
        method = decodeURIComponent(url.pathname.slice('/api/call/'.length))
      } catch {
        return refuse(res, 400, 'The method name in the address is not valid percent-encoding', 'bad-request', SECURITY_HEADERS)
      }
      let body: unknown
      try {
        body = await readJson(req)
      } catch (e) {
        const tooLarge = e instanceof BodyError && e.reason === 'too-large'
        return refuse(
          res,
          tooLarge ? 413 : 400,
          tooLarge ? 'Request too large' : 'The request body is not valid JSON',
          'bad-request',
          SECURITY_HEADERS
        )
      }
      const asked = req.headers[API_VERSION_HEADER.toLowerCase()]
      if (asked !== undefined && asked !== String(API_VERSION))
        return refuse(
          res,
          400,
          `This service speaks version ${API_VERSION} of the API; the request asked for version "${String(asked).slice(0, 20)}" (header ${API_VERSION_HEADER})`,
          'bad-request',
          SECURITY_HEADERS
        )
      const problem = envelopeProblem(body, ['req'])
      const isObject = body !== null && typeof body === 'object' && !Array.isArray(body)
      const enveloped = isObject && 'req' in (body as object)
      if (problem !== null) {
        // Fields and no "req": a request sent without its envelope.
        const message = isObject && !enveloped ? `The request body has no field "req": ${ENVELOPE_TEXT}` : problem
        return send(res, 200, { ok: false, error: { message, code: 'bad-input' } }, SECURITY_HEADERS)
      }
      const outcome = await call(method, (body as { req?: unknown }).req, caller)
      logCall(method, outcome, caller, peer(req))
      // A method that needs a request, called with none: say where the request goes.
      if (!enveloped && !outcome.ok && outcome.error.code === 'bad-input')
        return send(res, 200, { ok: false, error: { ...outcome.error, message: `${outcome.error.message} (${ENVELOPE_TEXT})` } }, SECURITY_HEADERS)
      send(res, 200, outcome, SECURITY_HEADERS)
    }
  }

  const upload: Route = {
    method: 'POST',
    path: '/api/upload',
    needs: 'caller',
    role: 'route:upload',
    // The browser's way to hand a local file to the services: streamed into a private folder, registered under an opaque
    // handle (the answer names no path). The cap is enforced on the bytes received, whatever the client declares.
    async handle({ req, res, url, caller }) {
      const tooLarge = () => {
        refuse(
          res,
          413,
          `The file is larger than ${sizeText(maxUpload)}, the most that can be uploaded; import it with the CLI instead`,
          'too-large',
          { Connection: 'close', ...SECURITY_HEADERS }
        )
        // Stop reading the rest: the connection goes once the answer is out.
        res.once('finish', () => req.socket.destroy())
      }
      const declared = req.headers['content-length']
      if (declared !== undefined && !(Number(declared) <= maxUpload)) return tooLarge()
      const fileName = safeUploadName(url.searchParams.get('name') ?? 'upload.csv')
      mkdirSync(uploadDir, { recursive: true, mode: 0o700 })
      const path = join(uploadDir, `${randomUUID()}-${fileName}`)
      const outcome = await receiveUpload(req, path, maxUpload)
      if (outcome !== 'ok') {
        rmSync(path, { force: true })
        if (outcome === 'too-large') tooLarge()
        // The service names no server-side path to its clients.
        else if (outcome === 'disk')
          refuse(
            res,
            507,
            `The upload could not be saved: the disk holding ${service ? "the server's upload folder" : uploadDir} is full`,
            'disk-full'
          )
        else if (!res.headersSent && !req.socket.destroyed) refuse(res, 500, 'The upload could not be saved', 'upload')
        return
      }
      const handle = files.register(path, { fileName: url.searchParams.get('name') ?? fileName, owned: true, owner: caller.accountId })
      send(res, 200, { ok: true, value: handle }, SECURITY_HEADERS)
    }
  }

  const peer = (req: IncomingMessage) => req.socket.remoteAddress ?? ''
  const sessionCookie = (value: string, maxAgeS: number) =>
    `${SESSION_COOKIE}=${value}; HttpOnly; SameSite=Strict; Path=/api; Max-Age=${maxAgeS}${options.tls ? '; Secure' : ''}`

  /** The service's sign-in (the browser): the credential for a session in an HttpOnly cookie. */
  const signIn: Route = {
    method: 'POST',
    path: '/api/session',
    needs: 'nobody',
    async handle({ req, res }) {
      if (!service) return refuse(res, 404, 'The workbench has no sign-in: it opens with the address it printed', 'not-found', SECURITY_HEADERS)
      let body: unknown
      try {
        body = await readJson(req)
      } catch {
        return refuse(res, 400, 'The request body is not valid JSON', 'bad-request', SECURITY_HEADERS)
      }
      const problem = envelopeProblem(body, ['credential'])
      if (problem !== null) return refuse(res, 400, problem, 'bad-request', SECURITY_HEADERS)
      const r = services.accounts.signIn((body as { credential?: unknown } | null)?.credential, peer(req))
      log?.write(
        r.ok
          ? { event: 'sign-in', account: r.principal.name, address: peer(req) }
          : { event: 'sign-in-failed', address: peer(req), code: r.error.code }
      )
      if (!r.ok) return refuseAuth(res, r)
      const maxAgeS = Math.max(0, Math.floor((Date.parse(r.expiresAt) - Date.now()) / 1000))
      send(
        res,
        200,
        { ok: true, value: { principal: r.principal, expiresAt: r.expiresAt } },
        { ...SECURITY_HEADERS, 'Set-Cookie': sessionCookie(r.session, maxAgeS) }
      )
    }
  }
  const signOut: Route = {
    method: 'DELETE',
    path: '/api/session',
    needs: 'nobody',
    handle({ req, res }) {
      services.accounts.signOut(cookie(req, SESSION_COOKIE))
      send(res, 200, { ok: true, value: null }, { ...SECURITY_HEADERS, 'Set-Cookie': sessionCookie('', 0) })
    }
  }
  /** Before any call: which deployment this is, and who the browser's session is (so the UI knows to show the sign-in). */
  const whoIsSignedIn: Route = {
    method: 'GET',
    path: '/api/session',
    needs: 'nobody',
    handle({ req, res }) {
      const session = service ? cookie(req, SESSION_COOKIE) : null
      const auth = session ? services.accounts.authenticate(session, peer(req)) : null
      const value = auth?.ok
        ? { deployment: 'service', principal: auth.principal, expiresAt: auth.expiresAt }
        : { deployment: service ? 'service' : 'workbench', principal: null, expiresAt: null }
      send(res, 200, { ok: true, value }, SECURITY_HEADERS)
    }
  }

  /** Readiness (the custodian's): the workspace answers a read, and its disk has room for a release's writes. */
  const ready: Route = {
    method: 'GET',
    path: '/api/ready',
    needs: 'caller',
    role: 'route:monitor',
    handle({ res }) {
      const problem = notReady()
      if (problem !== null) return refuse(res, 503, problem, 'store', SECURITY_HEADERS)
      send(res, 200, { ok: true, value: { ready: true } }, SECURITY_HEADERS)
    }
  }
  const metricsRoute: Route = {
    method: 'GET',
    path: '/api/metrics',
    needs: 'caller',
    role: 'route:monitor',
    handle({ res }) {
      res.writeHead(200, { 'Content-Type': 'text/plain; version=0.0.4; charset=utf-8', 'Cache-Control': 'no-store', ...SECURITY_HEADERS })
      res.end(metrics.render(gauges()))
    }
  }

  const apiRoutes: readonly Route[] = [events, calls, upload, signIn, signOut, whoIsSignedIn, ready, metricsRoute]

  function freeBytes(): number | null {
    if (services.context.store.path === ':memory:') return null
    try {
      const st = statfsSync(dirname(services.context.store.path))
      return Number(st.bavail) * Number(st.bsize)
    } catch {
      return null
    }
  }

  function notReady(): string | null {
    if (closing) return 'Not ready: the service is stopping'
    try {
      services.context.store.db.prepare('SELECT 1').get()
    } catch {
      return 'Not ready: the workspace does not answer a read'
    }
    const free = freeBytes()
    if (free !== null && free < MIN_FREE_BYTES) return `Not ready: the disk holding the workspace has less than ${sizeText(MIN_FREE_BYTES)} free`
    return null
  }

  function gauges(): Gauge[] {
    const load = services.context.releases.load()
    const denials = services.context.store.db
      .prepare(`SELECT kind, count(*) AS n FROM audit_events WHERE kind IN ('release/denied', 'release/refused') GROUP BY kind`)
      .all() as { kind: string; n: number }[]
    const byKind = new Map(denials.map((d) => [d.kind, d.n]))
    const free = freeBytes()
    return [
      { name: 'quiet_alarm_releases_running', help: 'Releases being answered now.', type: 'gauge', samples: [{ value: load.running }] },
      { name: 'quiet_alarm_releases_queued', help: 'Releases waiting for a turn.', type: 'gauge', samples: [{ value: load.queued }] },
      {
        name: 'quiet_alarm_denials_total',
        help: 'Releases denied (over a budget) or refused (cannot be decided), as recorded in the workspace.',
        type: 'counter',
        samples: ['release/denied', 'release/refused'].map((kind) => ({ labels: { kind }, value: byKind.get(kind) ?? 0 }))
      },
      { name: 'quiet_alarm_event_streams', help: 'Open event streams.', type: 'gauge', samples: [{ value: streams.size }] },
      ...(free === null
        ? []
        : [
            {
              name: 'quiet_alarm_workspace_free_bytes',
              help: "Free bytes on the workspace's disk.",
              type: 'gauge' as const,
              samples: [{ value: free }]
            }
          ])
    ]
  }

  function refuseAuth(res: ServerResponse, r: AuthFailure): void {
    const retry: Record<string, string> = r.retryAfterMs === undefined ? {} : { 'Retry-After': String(Math.ceil(r.retryAfterMs / 1000)) }
    refuse(res, r.error.code === 'throttled' ? 429 : 401, r.error.message, r.error.code, { ...SECURITY_HEADERS, ...retry })
  }

  /**
   * Who calls. The workbench: the session token (a header; in the query string for the event stream only, since
   * EventSource cannot send headers) is the local user. The service: an account's credential or sign-in session, from
   * the Authorization header or the session cookie, checked by the accounts gate (unknown, revoked, expired: refused;
   * repeated failures from one address: throttled).
   */
  function callerOf(
    req: IncomingMessage,
    url: URL,
    route: Route | undefined
  ): { ok: true; caller: Principal } | { ok: false; refuse: (res: ServerResponse) => void } {
    const auth = req.headers.authorization
    const bearer = auth?.startsWith('Bearer ') ? auth.slice(7) : null
    if (!service) {
      const given = bearer ?? (route === events ? url.searchParams.get('token') : null)
      if (sameToken(given, token)) return { ok: true, caller: LOCAL_PRINCIPAL }
      return { ok: false, refuse: (res) => refuse(res, 401, 'Missing or wrong session token', 'unauthorized', SECURITY_HEADERS) }
    }
    const r = services.accounts.authenticate(bearer ?? cookie(req, SESSION_COOKIE), peer(req))
    if (r.ok) return { ok: true, caller: r.principal }
    log?.write({ event: 'auth-failed', address: peer(req), code: r.error.code })
    return { ok: false, refuse: (res) => refuseAuth(res, r) }
  }

  /** The UI's files: GET and HEAD only; an address that names no file of the UI gets one sentence. */
  async function page({ req, res, url }: Exchange): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return refuse(res, 405, `${req.method ?? 'This method'} is not used on the UI's pages: they are read with GET`, 'bad-request', {
        Allow: 'GET, HEAD',
        ...SECURITY_HEADERS
      })
    }
    const file = rendererFileFor(url.pathname, rendererDir)
    if (file === 'undecodable') return refuse(res, 400, 'The address is not valid percent-encoding', 'bad-request', SECURITY_HEADERS)
    const found = file === 'outside' ? 'missing' : await readPage(file, rendererDir)
    if (found === 'missing') return refuse(res, 404, NO_PAGE, 'not-found', SECURITY_HEADERS)
    if (found === 'not-built') {
      res.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8' }).end('The UI is not built yet: run "npm run build".')
      return
    }
    res.writeHead(200, {
      'Content-Type': found.contentType,
      'Cache-Control': found.file.endsWith('index.html') ? 'no-store' : 'public, max-age=3600',
      ...SECURITY_HEADERS
    })
    res.end(req.method === 'HEAD' ? undefined : found.body)
  }

  /** The guard: Host for everything; for the API, the Origin, then who calls (callerOf) and what the role table allows. */
  async function guarded(x: Exchange): Promise<void> {
    const { req, res, url } = x
    // Liveness reveals nothing but that the door answers: anyone may ask, under any Host name (a probe uses an address).
    if (url.pathname === '/api/health' && (req.method === 'GET' || req.method === 'HEAD')) {
      const alive = '{"ok":true}'
      res.writeHead(200, {
        'Content-Type': 'application/json; charset=utf-8',
        'Content-Length': String(alive.length),
        'Cache-Control': 'no-store',
        ...SECURITY_HEADERS
      })
      res.end(req.method === 'HEAD' ? undefined : alive)
      return
    }
    if (!hostAllowed(req.headers.host)) return refuse(res, 403, 'Refused: unexpected Host header', 'forbidden')
    if (!url.pathname.startsWith('/api/')) return page(x)
    if (!originAllowed(req.headers.origin, req.headers.host)) return refuse(res, 403, 'Refused: cross-origin request', 'forbidden')
    const route = apiRoutes.find((r) => r.method === req.method && matches(r, url.pathname))
    if (route?.needs === 'nobody') return route.handle({ ...x, caller: LOCAL_PRINCIPAL })
    const who = callerOf(req, url, route)
    if (!who.ok) return who.refuse(res)
    if (!route) return refuse(res, 404, 'No such API route', 'not-found')
    if (route.role) {
      const allowed = services.accounts.authorize(who.caller, route.role)
      if (!allowed.ok) return refuse(res, 403, allowed.error.message, 'forbidden', SECURITY_HEADERS)
    }
    return route.handle({ ...x, caller: who.caller })
  }

  let door
  try {
    door = await listenDoor({
      listen,
      tls: options.tls,
      cadence: cadenceMs === null ? null : new Cadence(cadenceMs),
      onGateLeave: options.onGateLeave,
      handler: async (req, res) => {
        const startedNs = process.hrtime.bigint()
        const target = req.url ?? '/'
        // Only a path that starts with one "/" (a second, or a backslash, would be read as a host name by the URL parser).
        const url = /^\/(?![/\\])/.test(target) ? new URL(target, `${scheme}://127.0.0.1`) : null
        const label = url ? routeLabel(url.pathname, isMethodName) : 'page'
        res.once('finish', () => metrics.observe(label, res.statusCode, Number(process.hrtime.bigint() - startedNs) / 1e9))
        try {
          if (!url) return refuse(res, 400, ODD_PATH, 'bad-request', SECURITY_HEADERS)
          await guarded({ req, res, url, caller: null })
        } catch (e) {
          process.stderr.write(`request failed: ${(e as Error)?.stack ?? String(e)}\n`)
          log?.write({ event: 'request-failed', address: req.socket.remoteAddress ?? null, route: label })
          if (!res.headersSent) refuse(res, 500, 'Internal error', 'internal')
          else res.end()
        }
      }
    })
  } catch (e) {
    unsubscribe()
    await services.close()
    throw e
  }
  const address = door.bound.address()
  port = typeof address === 'object' && address ? address.port : 0
  const shownHost = wildcard ? hostname() : hostForUrl(listen.host)
  log?.write({ event: 'service-start', port })

  const listening = door
  return {
    // The workbench's address carries its token; a service's callers sign in with their accounts.
    url: service ? `${scheme}://${shownHost}:${port}/` : `${scheme}://${shownHost}:${port}/#token=${token}`,
    port,
    token,
    cadenceMs,
    services,
    server: listening.bound,
    async close() {
      closing = true
      log?.write({ event: 'service-stop' })
      unsubscribe()
      stopEnding()
      for (const s of streams.keys()) s.end()
      streams.clear()
      await listening.close()
      await services.close()
      if (ownsUploadDir) rmSync(uploadDir, { recursive: true, force: true })
    }
  }
}
