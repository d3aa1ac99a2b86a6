/**
 * Where the HTTP door listens, and how.
 *
 * - An address that is not loopback needs TLS (Node's `https`): starting without a certificate and key is refused with
 *   one sentence. Plain HTTP stays for loopback (the single-user workbench, or a service behind a local proxy).
 * - With TLS, a client that speaks plain HTTP to the port gets one sentence (a 400 naming the https:// address) and
 *   the connection closes: a first byte other than a TLS handshake record never reaches the HTTP server.
 * - A request Node cannot parse (bad request line, header overflow, a request timeout) gets a 400/431/408 from the
 *   door's `clientError` handler with one sentence, never Node's bare reply or a stack in the log.
 * - With a cadence (the service), every socket a client reads from is gated (cadence.ts), that reply included.
 */
import { STATUS_CODES, createServer as createHttpServer, type RequestListener, type Server as HttpServer } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import { createServer as createNetServer, isIPv4, isIPv6, type Server as NetServer, type Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import { UserError } from '../services'
import { Cadence, type GateRecord, gateSocket } from './cadence'

export interface ListenAddress {
  host: string
  port: number
}

export interface TlsFiles {
  /** PEM certificate chain and private key (their contents, not paths). */
  cert: string | Buffer
  key: string | Buffer
}

/** `HOST:PORT`, `[IPv6]:PORT` or `:PORT` (loopback). */
export function parseListen(text: string): ListenAddress {
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(text.trim())
  const port = m ? Number(m[3]) : NaN
  if (!m || !(port >= 0 && port <= 65535)) {
    throw new UserError(`--listen takes HOST:PORT (for example 127.0.0.1:8443 or [::1]:8443), not "${text.slice(0, 80)}"`)
  }
  return { host: m[1] ?? (m[2] === '' ? '127.0.0.1' : m[2]), port }
}

/** Loopback: localhost, 127.0.0.0/8, ::1. Nothing else (0.0.0.0 and :: listen on every interface). */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase()
  if (h === 'localhost' || h === '::1' || h === '0:0:0:0:0:0:0:1') return true
  return isIPv4(h) && h.startsWith('127.')
}

export function hostForUrl(host: string): string {
  return isIPv6(host) ? `[${host}]` : host
}

/** Refuses a listen address that is not loopback without TLS. */
export function checkListen(listen: ListenAddress, tls: TlsFiles | undefined): void {
  if (!tls && !isLoopback(listen.host)) {
    throw new UserError(
      `${hostForUrl(listen.host)}:${listen.port} is not a loopback address, so the service must use HTTPS there: give --tls-cert and --tls-key (plain HTTP is only for 127.0.0.1)`
    )
  }
}

export interface DoorListenerOptions {
  listen: ListenAddress
  tls?: TlsFiles
  /** The service's cadence: every socket a client reads is gated. */
  cadence?: Cadence | null
  /** Tests: each gated write as it leaves. */
  onGateLeave?: (r: GateRecord) => void
  handler: RequestListener
}

export interface DoorListener {
  /** The HTTP(S) server the requests come through. */
  http: HttpServer
  /** The server bound to the port (the HTTP server, or with TLS the front that sorts TLS from plain HTTP). */
  bound: HttpServer | NetServer
  close(): Promise<void>
}

const PARSE_FAILURE: Readonly<Record<string, readonly [number, string]>> = {
  HPE_HEADER_OVERFLOW: [431, 'The request headers are too large'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'The request took too long to arrive']
}

/** A whole HTTP response with a JSON contract outcome, for a socket the HTTP server could not parse a request on. */
function rawRefusal(status: number, message: string, extraHeaders = ''): string {
  const body = JSON.stringify({ ok: false, error: { message, code: 'bad-request' } })
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nContent-Type: application/json; charset=utf-8\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\nConnection: close\r\n${extraHeaders}\r\n${body}`
  )
}

function onClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy()
    return
  }
  const [status, message] = PARSE_FAILURE[err.code ?? ''] ?? [400, 'The request is not valid HTTP']
  socket.end(rawRefusal(status, message))
}

export async function listenDoor(o: DoorListenerOptions): Promise<DoorListener> {
  checkListen(o.listen, o.tls)
  const cadence = o.cadence ?? null
  const gate = (socket: Socket) => {
    if (cadence) gateSocket(socket, cadence, o.onGateLeave)
  }
  const pending = new Set<Socket>()
  let http: HttpServer
  let bound: HttpServer | NetServer
  if (o.tls) {
    const tlsServer = createHttpsServer({ cert: o.tls.cert, key: o.tls.key, minVersion: 'TLSv1.2' }, o.handler)
    tlsServer.on('secureConnection', gate)
    http = tlsServer
    // The front: the first byte of a TLS connection is a handshake record (22); anything else is answered in plain text.
    bound = createNetServer((socket) => {
      pending.add(socket)
      socket.once('close', () => pending.delete(socket))
      socket.setTimeout(30_000, () => socket.destroy())
      socket.once('data', (chunk: Buffer) => {
        socket.setTimeout(0)
        socket.pause()
        socket.unshift(chunk)
        if (chunk[0] === 0x16) {
          pending.delete(socket)
          tlsServer.emit('connection', socket)
          return
        }
        gate(socket)
        const url = `https://${hostForUrl(o.listen.host)}:${address().port}/`
        socket.end(rawRefusal(400, `This Quiet Alarm service speaks HTTPS only: open ${url}`))
      })
    })
  } else {
    http = createHttpServer(o.handler)
    http.on('connection', gate)
    bound = http
  }
  http.on('clientError', onClientError)
  const address = () => {
    const a = bound.address()
    return typeof a === 'object' && a ? a : { port: 0 }
  }
  await new Promise<void>((resolvePromise, reject) => {
    bound.once('error', reject)
    bound.listen(o.listen.port, o.listen.host, () => {
      bound.off('error', reject)
      resolvePromise()
    })
  })
  // Behind the front the HTTPS server never listens itself: 'listening' starts its connection tracking (request and
  // header time-outs, closeAllConnections).
  if (http !== bound) http.emit('listening')
  return {
    http,
    bound,
    async close() {
      // Close every connection now: awaiting close() first would wait for any open connection (a second page's event
      // stream, a request in flight) to end on its own.
      const closed = new Promise<void>((r) => bound.close(() => r()))
      if (http !== bound) http.close(() => undefined)
      http.closeAllConnections()
      for (const s of pending) s.destroy()
      await closed
    }
  }
}
