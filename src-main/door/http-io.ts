/**
 * The HTTP door's reading and writing: every API answer is a contract outcome (a failure carries one sentence and one
 * of the contract's error codes); request bodies and uploads are counted as they arrive, whatever the client declares.
 */
import { API_VERSION, API_VERSION_HEADER } from '../contract/api-version'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { createWriteStream } from 'node:fs'
import type { CallOutcome, ErrorCode } from '../contract'

export const MAX_BODY_BYTES = 4 * 1024 * 1024

export function send(res: ServerResponse, status: number, body: CallOutcome<unknown>, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body)
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Cache-Control': 'no-store',
    [API_VERSION_HEADER]: String(API_VERSION),
    ...headers
  })
  res.end(text)
}

/** A refusal: status, one sentence, one code. */
export function refuse(res: ServerResponse, status: number, message: string, code: ErrorCode, headers: Record<string, string> = {}): void {
  send(res, status, { ok: false, error: { message, code } }, headers)
}

export class BodyError extends Error {
  constructor(readonly reason: 'too-large' | 'not-json') {
    super(reason)
  }
}

/** The JSON body (an empty body is `{}`), at most MAX_BODY_BYTES. */
export async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    size += (chunk as Buffer).length
    if (size > MAX_BODY_BYTES) throw new BodyError('too-large')
    chunks.push(chunk as Buffer)
  }
  const text = Buffer.concat(chunks).toString('utf8')
  try {
    return text.trim() === '' ? {} : JSON.parse(text)
  } catch {
    throw new BodyError('not-json')
  }
}

export type UploadOutcome = 'ok' | 'too-large' | 'disk' | 'error'

/**
 * Streams an upload into `path` (created 0600), counting the bytes as they arrive: past `limit` it stops reading at
 * once (a chunked upload declares no length, so the header alone proves nothing).
 */
export function receiveUpload(req: IncomingMessage, path: string, limit: number): Promise<UploadOutcome> {
  return new Promise((resolvePromise) => {
    const out = createWriteStream(path, { mode: 0o600 })
    let received = 0
    let settled = false
    const settle = (r: UploadOutcome) => {
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

export function sizeText(bytes: number): string {
  return bytes >= 1024 ** 3 ? `${+(bytes / 1024 ** 3).toFixed(2)} GiB` : `${+(bytes / 1024 ** 2).toFixed(2)} MiB`
}

/**
 * The one sentence refusing a request body that is not an object holding only `fields`, or null when it is one.
 * (The door's own envelope is strict as the methods' schemas are: a misspelt `reqs` is refused, not ignored.)
 */
export function envelopeProblem(body: unknown, fields: readonly string[]): string | null {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return 'The request body must be a JSON object'
  const unknown = Object.keys(body).filter((k) => !fields.includes(k))
  if (unknown.length === 0) return null
  const known = fields.map((f) => `"${f}"`).join(' and ')
  return `The request body has an unknown field "${unknown[0].slice(0, 40)}"; it takes ${known} only`
}
