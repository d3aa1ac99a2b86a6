/**
 * A Node client of a Quiet Alarm service (the CLI's `--server`, the desktop app connected to a service): contract calls
 * over HTTPS as one account, its event stream, and uploads. Every failure is a contract outcome with one sentence and a
 * code (transport failures: `offline`, unreadable answers: `bad-response`), never a throw, so the doors pass it on as they
 * pass on the local services' outcomes.
 *
 * The account's credential goes in the Authorization header of every request and nowhere else; the service's
 * certificate is checked against `ca` when given, else against the system's authorities.
 */
import { createReadStream, statSync } from 'node:fs'
import type { IncomingMessage } from 'node:http'
import { request } from 'node:https'
import type { CallOutcome, EventName, MethodName } from '../contract'
import type { FileHandle } from '../contract/app'
import { isErrorCode } from '../contract/error-codes'

export interface ServiceTarget {
  /** https://host:port (anything after the origin is ignored). */
  url: string
  /** The account's credential (`qa1_...`). */
  credential: string
  /** PEM of the authority that signed the service's certificate (absent: the system's authorities). */
  ca?: string | Buffer
}

type Failure = { ok: false; error: { message: string; code: 'offline' | 'bad-response' | 'bad-input' } }

const MAX_RESPONSE_BYTES = 256 * 1024 * 1024

/** The service's origin, or one sentence saying why the text is not one (only https:// is accepted). */
export function serviceOrigin(text: string): { ok: true; origin: string } | { ok: false; message: string } {
  let u: URL
  try {
    u = new URL(text.trim())
  } catch {
    return { ok: false, message: `"${text.slice(0, 100)}" is not an address; a service's looks like https://quiet-alarm.example.org:8443` }
  }
  if (u.protocol !== 'https:')
    return { ok: false, message: `A service is reached over TLS only: the address must start with https:// (got "${u.protocol}//")` }
  if (u.username !== '' || u.password !== '') return { ok: false, message: 'The service address must not hold a user name or password' }
  return { ok: true, origin: u.origin }
}

function transportFailure(origin: string, e: NodeJS.ErrnoException): Failure {
  const code = e.code ?? ''
  if (/CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS|HOSTNAME/i.test(code)) {
    return {
      ok: false,
      error: {
        message: `The service at ${origin} did not present a certificate this computer trusts (${code}); give the certificate of the authority that signed it`,
        code: 'offline'
      }
    }
  }
  if (code === 'EPROTO' || code === 'ECONNRESET' || /wrong version number|packet length too long/i.test(e.message)) {
    return {
      ok: false,
      error: { message: `${origin} did not answer as a TLS service (${code || 'protocol error'}); check the address and the port`, code: 'offline' }
    }
  }
  return {
    ok: false,
    error: { message: `Cannot reach the service at ${origin} (${code || e.message.split('\n')[0].slice(0, 120)})`, code: 'offline' }
  }
}

function readOutcome(res: IncomingMessage, origin: string): Promise<CallOutcome<unknown>> {
  return new Promise((resolvePromise) => {
    const chunks: Buffer[] = []
    let size = 0
    res.on('data', (c: Buffer) => {
      size += c.length
      if (size > MAX_RESPONSE_BYTES) {
        res.destroy()
        resolvePromise({ ok: false, error: { message: 'The service sent an answer too large to read', code: 'bad-response' } })
        return
      }
      chunks.push(c)
    })
    res.on('error', (e: NodeJS.ErrnoException) => resolvePromise(transportFailure(origin, e)))
    res.on('end', () => {
      let body: unknown
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
      } catch {
        resolvePromise({
          ok: false,
          error: { message: `The service answered ${res.statusCode ?? '?'} without a readable body`, code: 'bad-response' }
        })
        return
      }
      const o = body as CallOutcome<unknown>
      if (o && o.ok === true && 'value' in o) resolvePromise({ ok: true, value: o.value })
      else if (o && o.ok === false && typeof o.error?.message === 'string') {
        resolvePromise({
          ok: false,
          error: { message: o.error.message.split('\n')[0], code: isErrorCode(o.error.code) ? o.error.code : 'bad-response' }
        })
      } else
        resolvePromise({
          ok: false,
          error: { message: `The service answered ${res.statusCode ?? '?'} with an unexpected body`, code: 'bad-response' }
        })
    })
  })
}

export class ServiceClient {
  readonly origin: string
  private readonly credential: string
  private readonly ca?: string | Buffer

  constructor(target: ServiceTarget) {
    const o = serviceOrigin(target.url)
    if (!o.ok) throw new Error(o.message)
    this.origin = o.origin
    this.credential = target.credential
    this.ca = target.ca
  }

  private send(path: string, method: 'POST' | 'GET', headers: Record<string, string>, body: Buffer | string | null, timeoutMs: number) {
    return new Promise<CallOutcome<unknown>>((resolvePromise) => {
      const r = request(
        new URL(path, this.origin),
        { method, ca: this.ca, headers: { Authorization: `Bearer ${this.credential}`, ...headers } },
        (res) => resolvePromise(readOutcome(res, this.origin))
      )
      r.on('error', (e) => resolvePromise(transportFailure(this.origin, e)))
      r.setTimeout(timeoutMs, () => r.destroy(Object.assign(new Error(`no answer for ${Math.round(timeoutMs / 1000)} s`), { code: 'ETIMEDOUT' })))
      if (body === null) r.end()
      else r.end(body)
    })
  }

  /** One contract call as the credential's account. */
  call(method: MethodName, req: unknown): Promise<CallOutcome<unknown>> {
    const body = Buffer.from(JSON.stringify({ req: req ?? {} }))
    return this.send(
      `/api/call/${encodeURIComponent(method)}`,
      'POST',
      { 'Content-Type': 'application/json', 'Content-Length': String(body.length) },
      body,
      10 * 60_000
    )
  }

  /** Hand a local file to the service (custodian accounts): the answer is the service's opaque handle. */
  upload(path: string, fileName: string): Promise<CallOutcome<FileHandle>> {
    let size: number
    try {
      size = statSync(path).size
    } catch (e) {
      return Promise.resolve({
        ok: false,
        error: { message: `Cannot read ${fileName} (${(e as NodeJS.ErrnoException).code ?? 'error'})`, code: 'bad-input' }
      })
    }
    return new Promise((resolvePromise) => {
      const r = request(
        new URL(`/api/upload?name=${encodeURIComponent(fileName)}`, this.origin),
        {
          method: 'POST',
          ca: this.ca,
          headers: { Authorization: `Bearer ${this.credential}`, 'Content-Type': 'application/octet-stream', 'Content-Length': String(size) }
        },
        (res) => resolvePromise(readOutcome(res, this.origin) as Promise<CallOutcome<FileHandle>>)
      )
      r.on('error', (e) => resolvePromise(transportFailure(this.origin, e)))
      createReadStream(path)
        .on('error', (e) => r.destroy(e))
        .pipe(r)
    })
  }

  /**
   * The service's event stream, as this account may see it. Reconnects after a drop (1 s, 2 s, ... at most 30 s);
   * `onState` hears when the stream is up or down. Returns the function that closes it.
   */
  events(listener: (name: EventName, payload: unknown) => void, onState?: (up: boolean, why?: string) => void): () => void {
    let closed = false
    let current: ReturnType<typeof request> | null = null
    let delay = 1000
    const open = () => {
      if (closed) return
      let dropped = false
      const again = () => {
        if (dropped) return
        dropped = true
        retry()
      }
      const r = request(
        new URL('/api/events', this.origin),
        { method: 'GET', ca: this.ca, headers: { Authorization: `Bearer ${this.credential}`, Accept: 'text/event-stream' } },
        (res) => {
          if (res.statusCode !== 200) {
            res.resume()
            onState?.(false, `the service refused the event stream (${res.statusCode ?? '?'})`)
            return
          }
          delay = 1000
          onState?.(true)
          let buffer = ''
          res.setEncoding('utf8')
          res.on('data', (chunk: string) => {
            buffer += chunk
            let end: number
            while ((end = buffer.indexOf('\n\n')) >= 0) {
              const frame = buffer.slice(0, end)
              buffer = buffer.slice(end + 2)
              const data = frame
                .split('\n')
                .filter((l) => l.startsWith('data:'))
                .map((l) => l.slice(5).trimStart())
                .join('\n')
              if (data === '') continue
              try {
                const { name, payload } = JSON.parse(data) as { name: EventName; payload: unknown }
                listener(name, payload)
              } catch {
                /* a malformed frame is skipped */
              }
            }
          })
          res.on('end', again)
          res.on('error', again)
        }
      )
      r.on('error', (e) => {
        onState?.(false, transportFailure(this.origin, e).error.message)
        again()
      })
      r.end()
      current = r
    }
    const retry = () => {
      if (closed) return
      current = null
      const wait = delay
      delay = Math.min(30_000, delay * 2)
      setTimeout(open, wait).unref()
    }
    open()
    return () => {
      closed = true
      current?.destroy()
    }
  }
}
