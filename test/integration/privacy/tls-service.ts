/**
 * A real service for the attack tests: `startHeadless` as a service over HTTPS on loopback, with a certificate made in
 * the test (test/support/tls.ts), a throwaway workspace, and calls made the way a client makes them (a bearer
 * credential, the `{ req }` envelope). Every answer keeps its raw body (byte-identity tests compare bodies) and when its
 * last byte arrived.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { CallOutcome } from '../../../src-main/contract'
import { startHeadless, type HeadlessOptions, type HeadlessServer } from '../../../src-main/server'
import { tempWorkspace } from '../helpers'
import { type TestPki, makeTestPki } from '../../support/tls'
import { type HttpsAnswer, credentialFor, httpsCall } from '../https-call'

export interface TlsService {
  h: HeadlessServer
  ws: ReturnType<typeof tempWorkspace>
  tls: TestPki
  db: HeadlessServer['services']['context']['store']['db']
  /** A new account's credential. */
  account(name: string, role: 'analyst' | 'officer' | 'custodian'): string
  /** POST /api/call/<method> with `body` as it is (the envelope, or anything else). */
  post(credential: string, path: string, body: string): Promise<HttpsAnswer>
  /** A contract call as a client makes it: the outcome, its raw body and when it arrived. */
  call<T = unknown>(credential: string, method: string, req: unknown): Promise<{ outcome: CallOutcome<T>; body: string; at: number; sentAt: number }>
  close(): Promise<void>
}

export async function startTlsService(options: Partial<HeadlessOptions> = {}, prefix = 'qa-tls-service-'): Promise<TlsService> {
  const ws = tempWorkspace(prefix)
  const tls = makeTestPki()
  const rendererDir = join(ws.dir, 'renderer')
  mkdirSync(rendererDir)
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>ui</title>')
  const h = await startHeadless({
    dbPath: ws.db,
    poolSize: 1,
    rendererDir,
    uploadDir: join(ws.dir, 'uploads'),
    deployment: 'service',
    listen: { host: '127.0.0.1', port: 0 },
    tls: { cert: tls.cert, key: tls.key },
    ...options
  })
  const db = h.services.context.store.db
  const post = (credential: string, path: string, body: string) =>
    httpsCall(h.port, tls.ca, path, { method: 'POST', headers: { Authorization: `Bearer ${credential}` }, body })
  return {
    h,
    ws,
    tls,
    db,
    account: (name, role) => credentialFor(db, name, role),
    post,
    async call<T>(credential: string, method: string, req: unknown) {
      const sentAt = Date.now()
      const r = await post(credential, `/api/call/${method}`, JSON.stringify({ req }))
      return { outcome: JSON.parse(r.body) as CallOutcome<T>, body: r.body, at: r.at, sentAt }
    },
    async close() {
      await h.close()
      ws.cleanup()
      tls.cleanup()
    }
  }
}
