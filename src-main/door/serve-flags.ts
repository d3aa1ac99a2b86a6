/**
 * The command-line flags of a door started as a service (`--listen HOST:PORT --tls-cert C --tls-key K [--cadence-ms MS]`),
 * turned into `startHeadless` options: the address parsed, the PEM files read (their contents go to the listener, the
 * paths go nowhere else), HTTPS required off loopback. Every refusal is one sentence (UserError).
 */
import { readFileSync } from 'node:fs'
import { UserError } from '../services'
import type { HeadlessOptions } from './headless'
import { checkListen, parseListen } from './listener'

export interface ServeFlags {
  listen?: string
  tlsCert?: string
  tlsKey?: string
  cadenceMs?: string
}

function pem(path: string, what: string, marker: RegExp): Buffer {
  let text: Buffer
  try {
    text = readFileSync(path)
  } catch (e) {
    throw new UserError(`Cannot read the TLS ${what} file ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`)
  }
  if (!marker.test(text.toString('latin1'))) throw new UserError(`The TLS ${what} file ${path} is not in PEM format (no "-----BEGIN ...-----" line)`)
  return text
}

/** The service options the flags give; undefined when none of them is given (the workbench). */
export function serviceOptionsFromFlags(f: ServeFlags): Pick<HeadlessOptions, 'deployment' | 'listen' | 'tls' | 'cadenceMs'> | undefined {
  if (f.listen === undefined && f.tlsCert === undefined && f.tlsKey === undefined && f.cadenceMs === undefined) return undefined
  if (f.listen === undefined) throw new UserError('A service needs --listen HOST:PORT')
  if ((f.tlsCert === undefined) !== (f.tlsKey === undefined)) throw new UserError('Give both --tls-cert and --tls-key, or neither (loopback only)')
  const listen = parseListen(f.listen)
  const tls =
    f.tlsCert === undefined || f.tlsKey === undefined
      ? undefined
      : { cert: pem(f.tlsCert, 'certificate', /-----BEGIN CERTIFICATE-----/), key: pem(f.tlsKey, 'key', /-----BEGIN [A-Z ]*PRIVATE KEY-----/) }
  checkListen(listen, tls)
  const cadenceMs = f.cadenceMs === undefined ? undefined : Number(f.cadenceMs)
  return { deployment: 'service', listen, tls, ...(cadenceMs === undefined ? {} : { cadenceMs }) }
}
