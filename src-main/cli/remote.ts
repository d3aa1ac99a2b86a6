/**
 * The CLI as a client of a service (`--server URL --credential-file F [--ca-file CA]` instead of `--db`): every call is
 * a contract method over HTTPS, authenticated with the account's credential, and answers with the same outcome the
 * in-process services give (one sentence and a code on failure). Nothing is kept between commands.
 */
import { readFileSync, statSync } from 'node:fs'
import { request } from 'node:https'
import { resolve } from 'node:path'
import type { CallOutcome, MethodName, RequestOf, ResponseOf } from '../contract'
import { isErrorCode } from '../contract/error-codes'
import { UserError } from '../services'
import { credentialFromFileText } from '../services/local'
import { type CliOptionSpec, type CliValues, UsageError, optString } from './command'

export const REMOTE_OPTIONS: Record<string, CliOptionSpec> = {
  server: { type: 'string', description: 'a Quiet Alarm service (https://HOST:PORT) to use instead of a workspace file (--db)' },
  'credential-file': { type: 'string', description: "with --server: a file holding your account's credential (as printed by account add)" },
  'ca-file': {
    type: 'string',
    description: "with --server: the certificate (PEM) of the authority that signed the service's certificate",
    defaultText: "the system's"
  }
}

export interface RemoteTarget {
  url: URL
  credential: string
  ca?: Buffer
}

const MAX_RESPONSE_BYTES = 64 * 1024 * 1024

function readSmallFile(path: string, option: string, maxBytes: number): string {
  try {
    if (statSync(path).size > maxBytes) throw new UsageError(`--${option}: ${path} is larger than ${maxBytes} bytes`)
    return readFileSync(path, 'utf8')
  } catch (e) {
    if (e instanceof UsageError) throw e
    throw new UsageError(`--${option}: cannot read ${path} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`)
  }
}

/** The service named by --server, or null when the command works on a workspace file. */
export function remoteTarget(values: CliValues, cwd: string): RemoteTarget | null {
  const server = optString(values, 'server')
  if (server === undefined) {
    for (const o of ['credential-file', 'ca-file']) if (values[o] !== undefined) throw new UsageError(`--${o} goes with --server URL`)
    return null
  }
  if (values.db !== undefined) throw new UsageError('give either --db (a workspace file) or --server (a service), not both')
  let url: URL
  try {
    url = new URL(server)
  } catch {
    throw new UsageError(`--server must be the service's address, e.g. https://quiet-alarm.example.org:8443 (got "${server.slice(0, 100)}")`)
  }
  if (url.protocol !== 'https:')
    throw new UsageError(`--server must be an https:// address (got "${url.protocol}"): a service is reached over TLS only`)
  const credFile = optString(values, 'credential-file')
  if (credFile === undefined) throw new UsageError('--server needs --credential-file F (the file holding your account credential)')
  const credPath = resolve(cwd, credFile)
  const credential = credentialFromFileText(readSmallFile(credPath, 'credential-file', 64 * 1024))
  if (credential === null) throw new UsageError(`--credential-file: ${credPath} does not hold a Quiet Alarm credential (a line starting "qa1_")`)
  const caFile = optString(values, 'ca-file')
  const ca = caFile === undefined ? undefined : Buffer.from(readSmallFile(resolve(cwd, caFile), 'ca-file', 1024 * 1024))
  return { url: new URL(url.origin), credential, ca }
}

function transportFailure(t: RemoteTarget, e: NodeJS.ErrnoException): UserError {
  const code = e.code ?? ''
  const where = t.url.origin
  if (/CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS/i.test(code)) {
    return new UserError(
      `The service at ${where} did not present a certificate this computer trusts (${code}); pass its authority's certificate with --ca-file`,
      'offline'
    )
  }
  if (code === 'EPROTO' || /wrong version number|packet length too long/i.test(e.message)) {
    return new UserError(`${where} does not speak TLS; check the address and the port`, 'offline')
  }
  return new UserError(`Cannot reach the service at ${where} (${code || e.message.split('\n')[0].slice(0, 120)})`, 'offline')
}

/** One contract call on the service as the credential's account; its failure is thrown as the service's sentence and code. */
export function remoteCall<M extends MethodName>(t: RemoteTarget, method: M, req: RequestOf<M>): Promise<ResponseOf<M>> {
  const body = Buffer.from(JSON.stringify({ req }))
  return new Promise((resolvePromise, reject) => {
    const r = request(
      new URL(`/api/call/${encodeURIComponent(method)}`, t.url),
      {
        method: 'POST',
        ca: t.ca,
        headers: {
          Authorization: `Bearer ${t.credential}`,
          'Content-Type': 'application/json',
          'Content-Length': String(body.length)
        }
      },
      (res) => {
        const chunks: Buffer[] = []
        let size = 0
        res.on('data', (c: Buffer) => {
          size += c.length
          if (size > MAX_RESPONSE_BYTES) {
            res.destroy()
            reject(new UserError('The service sent an answer too large to read', 'bad-response'))
            return
          }
          chunks.push(c)
        })
        res.on('end', () => {
          let outcome: CallOutcome<unknown>
          try {
            outcome = JSON.parse(Buffer.concat(chunks).toString('utf8')) as CallOutcome<unknown>
          } catch {
            reject(new UserError(`The service answered ${res.statusCode ?? '?'} without a readable body`, 'bad-response'))
            return
          }
          if (outcome && outcome.ok === true) resolvePromise(outcome.value as ResponseOf<M>)
          else if (outcome && outcome.ok === false && typeof outcome.error?.message === 'string') {
            reject(new UserError(outcome.error.message.split('\n')[0], isErrorCode(outcome.error.code) ? outcome.error.code : 'bad-response'))
          } else reject(new UserError(`The service answered ${res.statusCode ?? '?'} with an unexpected body`, 'bad-response'))
        })
        res.on('error', (e) => reject(transportFailure(t, e)))
      }
    )
    r.on('error', (e) => reject(transportFailure(t, e)))
    r.setTimeout(10 * 60_000, () => r.destroy(Object.assign(new Error('no answer for 10 minutes'), { code: 'ETIMEDOUT' })))
    r.end(body)
  })
}
