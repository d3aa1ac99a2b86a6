/**
 * Revocation as the end of an account's access over TLS: bob's open event stream ends by the time the officer's
 * revocation is answered (no frame after it), and bob's running sweep is cancelled.
 *
 * Checked where the server hands bytes to its connections (the cadence gate's records), not by when a client reads
 * them: the stream's closing chunk, and every frame before it, is asked of bob's connection before the answer's first
 * byte is asked of the officer's, so none leaves at a later tick than the answer. Which of two connections a client
 * reads first within a tick is not the server's to decide, so the test waits for the stream's end and never compares
 * what the two connections had delivered at one moment.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request as httpsRequest } from 'node:https'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startHeadless } from '../../../src-main/server'
import { tempWorkspace } from '../helpers'
import type { GateRecord } from '../../../src-main/door/cadence'
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
    const gate: GateRecord[] = []
    const h = await startHeadless({
      dbPath: join(ws.dir, 'w.sqlite'),
      rendererDir,
      poolSize: 1,
      deployment: 'service',
      cadenceMs: 50,
      listen: { host: '127.0.0.1', port: 0 },
      tls: { cert: tls.cert, key: tls.key },
      onGateLeave: (r) => gate.push(r)
    })
    try {
      const db = h.services.context.store.db
      const bob = credentialFor(db, 'bob', 'analyst')
      const olga = credentialFor(db, 'olga', 'officer')
      const auth = h.services.accounts.authenticate(bob, '127.0.0.1')
      if (!auth.ok) throw new Error(auth.error.message)
      // Bob's stream, and a long sweep of his (started in-process: a workload path is refused at the door).
      let frames = ''
      const stream = await new Promise<{ port: number | undefined; ended: Promise<boolean>; destroy: () => void }>((ok, fail) => {
        const r = httpsRequest(
          { host: '127.0.0.1', port: h.port, path: '/api/events', headers: { Authorization: `Bearer ${bob}` }, ca: tls.ca, agent: false },
          (res) => {
            res.on('data', (d) => (frames += String(d)))
            // true: the stream's closing chunk arrived (the server ended it); false: the connection went without it.
            const ended = new Promise<boolean>((done) => res.on('end', () => done(true)).on('close', () => done(res.complete)))
            ok({ port: res.socket.localPort, ended, destroy: () => r.destroy() })
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
      expect(await stream.ended).toBe(true)
      const job = await h.services.context.jobs.settled(jobId)
      expect(job?.state).toBe('cancelled')

      const writesOf = (port: number | undefined) => gate.filter((g) => g.remotePort === port && g.kind === 'write')
      const toBob = writesOf(stream.port)
      const answer = writesOf(revoked.localPort)
      expect(toBob.length).toBeGreaterThan(0)
      expect(answer.length).toBeGreaterThan(0)
      // The stream was live and carried bob's job until the revocation (the sweep's start).
      expect(frames).toContain('"name":"job/state"')
      expect(frames).toContain('"state":"running"')
      // Every write to bob's stream, its closing chunk included, was asked before the answer's first byte...
      const firstOfAnswer = Math.min(...answer.map((g) => g.order))
      expect(toBob.filter((g) => g.order > firstOfAnswer)).toEqual([])
      // ... so none left at a later tick than the answer did.
      expect(Math.max(...toBob.map((g) => g.tick))).toBeLessThanOrEqual(Math.min(...answer.map((g) => g.tick)))
      // The sweep's end (cancelled after the revocation) never reached bob.
      expect(frames).not.toContain('"state":"cancelled"')
      stream.destroy()
    } finally {
      await h.close()
    }
  })
})
