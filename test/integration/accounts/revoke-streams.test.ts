/**
 * Revocation as the end of an account's access over TLS: bob's open event stream ends by the time the officer's
 * revocation is answered (no frame after it), and bob's running sweep is cancelled.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request as httpsRequest } from 'node:https'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startHeadless } from '../../../src-main/server'
import { tempWorkspace } from '../helpers'
import { type TestPki, makeTestPki } from '../../support/tls'
import { credentialFor, httpsCall } from '../https-call'
import { officerAct } from '../officer-fixture'
import { thresholdSpec, writeThresholdWorkload } from '../experiments/harness'

let ws: ReturnType<typeof tempWorkspace>
let tls: TestPki
let rendererDir: string

beforeAll(() => {
  ws = tempWorkspace('qa-revoke-')
  tls = makeTestPki()
  rendererDir = join(ws.dir, 'renderer')
  mkdirSync(rendererDir)
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>ui</title>')
})
afterAll(() => {
  ws?.cleanup()
  tls?.cleanup()
})

describe('a revoked account', () => {
  it('loses its open event stream and its running jobs when the revocation is answered', async () => {
    const h = await startHeadless({
      dbPath: join(ws.dir, 'w.sqlite'),
      rendererDir,
      poolSize: 1,
      deployment: 'service',
      cadenceMs: 50,
      listen: { host: '127.0.0.1', port: 0 },
      tls: { cert: tls.cert, key: tls.key }
    })
    try {
      const db = h.services.context.store.db
      const bob = credentialFor(db, 'bob', 'analyst')
      const olga = credentialFor(db, 'olga', 'officer')
      const auth = h.services.accounts.authenticate(bob, '127.0.0.1')
      if (!auth.ok) throw new Error(auth.error.message)
      // Bob's stream, and a long sweep of his (started in-process: a workload path is refused at the door).
      let frames = ''
      let ended = false
      const stream = await new Promise<() => void>((ok, fail) => {
        const r = httpsRequest(
          { host: '127.0.0.1', port: h.port, path: '/api/events', headers: { Authorization: `Bearer ${bob}` }, ca: tls.ca, agent: false },
          (res) => {
            res.on('data', (d) => (frames += String(d)))
            res.on('end', () => (ended = true))
            res.on('close', () => (ended = true))
            ok(() => r.destroy())
          }
        )
        r.on('error', fail)
        r.end()
      })
      const path = writeThresholdWorkload(ws.dir)
      const spec = thresholdSpec(path, { mechanisms: ['tslm'], grid: { alpha: [1, 2, 3, 4, 5, 6] }, trials: 2000 })
      const { jobId } = await h.services.call('experiments/start', { spec }, auth.principal)
      const revoked = await httpsCall(h.port, tls.ca, '/api/call/accounts/revoke', {
        method: 'POST',
        headers: { Authorization: `Bearer ${olga}` },
        body: JSON.stringify({ req: { name: 'bob', reason: 'left the team', ...officerAct(db) } })
      })
      expect(revoked.status).toBe(200)
      const atAnswer = frames.length
      await new Promise((r) => setTimeout(r, 300))
      expect(ended).toBe(true)
      expect(frames.length).toBe(atAnswer)
      const job = await h.services.context.jobs.settled(jobId)
      expect(job?.state).toBe('cancelled')
      stream()
    } finally {
      await h.close()
    }
  })
})
