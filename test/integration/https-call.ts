/**
 * An HTTPS request to a service on 127.0.0.1 for tests and benchmarks (trusting only the given CA), and an account for
 * it: a credential issued by the test officer.
 */
import type Database from 'better-sqlite3'
import { request as httpsRequest, type Agent } from 'node:https'
import { addAccount } from '../../src-main/services/accounts/account-store'
import { officerAct } from './officer-fixture'

export interface HttpsAnswer {
  status: number
  body: string
  headers: Record<string, string | string[] | undefined>
  /** When the last byte arrived (ms since the epoch). */
  at: number
  /** This end's port of the connection the answer came over (the server's gate records it as `remotePort`). */
  localPort: number | undefined
}

export function httpsCall(
  port: number,
  ca: Buffer,
  path: string,
  o: { method?: string; headers?: Record<string, string>; body?: string | Buffer; agent?: Agent } = {}
): Promise<HttpsAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest({ host: '127.0.0.1', port, path, method: o.method ?? 'GET', headers: o.headers, ca, agent: o.agent ?? false }, (res) => {
      let body = ''
      const localPort = res.socket.localPort
      res.setEncoding('utf8')
      res.on('data', (d: string) => (body += d))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers, at: Date.now(), localPort }))
    })
    req.on('error', reject)
    req.end(o.body)
  })
}

/** A new service account's credential (registered by the test officer). */
export function credentialFor(db: Database.Database, name: string, role: 'analyst' | 'officer' | 'custodian'): string {
  return addAccount(db, { name, role, days: 2 }, officerAct(db)).credential
}
