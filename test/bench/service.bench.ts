/**
 * `npm run bench -- service`: releases through the HTTP door, and what they do to the calls beside them.
 *
 * - `releases`: ANALYSTS analysts (parallel clients) x RELEASES releases each of a threshold query on the bundled
 *   occupancy sample, while one more client calls unrelated methods (`app/status`, `datasets/list`) in a loop: releases
 *   per second, and the latency of the unrelated calls (p50/p99/max). In the service each response should leave at the
 *   first tick of the public cadence after it is ready: `lateMs` is how long after that tick it arrived.
 * - `behindSweep`: a public sweep (preset search-fig2) keeps the worker pool busy; one release, then `jobs/cancel` of the
 *   sweep while the release runs: how long each took (in the service also the release's answer time in cadences after
 *   its charge, and how long after that time the answer arrived); a door that holds both beyond BENCH_SWEEP_CAP_MS
 *   (default 120 s) is reported as such.
 * - `gateWritesLateAfterTheirTick` (service): for every write the socket gate held, how long after its tick it left
 *   (timer lateness on this machine; a write never leaves before its tick).
 *
 * Deployments: the workbench (plain HTTP on loopback) and, where the door has it, the service (TLS on loopback with the
 * cadence). Certificates are made with openssl. BENCH_SERVICE_RELEASES / BENCH_SERVICE_ANALYSTS shrink the run.
 */
import { request as httpRequest, Agent as HttpAgent } from 'node:http'
import { request as httpsRequest, Agent as HttpsAgent } from 'node:https'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { startHeadless, type HeadlessServer } from '../../src-main/server'
import { planImport, runImport } from '../../src-main/services/datasets/import-dataset'
import { saveQuery } from '../../src-main/services/datasets/query-store'
import { setBudget } from '../../src-main/services/ledger/budgets'
import { officerAct } from '../integration/officer-fixture'
import { makeTestPki } from '../support/tls'
import { credentialFor } from '../integration/https-call'
import { report, round } from './timing'

const ANALYSTS = Number(process.env.BENCH_SERVICE_ANALYSTS ?? 4)
const RELEASES = Number(process.env.BENCH_SERVICE_RELEASES ?? 50)
const SAMPLE = resolve(__dirname, '../../resources/sample')

interface Client {
  call(method: string, req: unknown): Promise<{ ok: boolean; value?: unknown; error?: { message: string } }>
}

/** A client of the server: the workbench's token, or in the service an account's credential. */
function client(h: HeadlessServer, ca?: Buffer, credential: string = h.token): Client {
  const https = h.url.startsWith('https:')
  const agent = https ? new HttpsAgent({ keepAlive: true, ca }) : new HttpAgent({ keepAlive: true })
  const request = https ? httpsRequest : httpRequest
  return {
    call: (method, req) =>
      new Promise((ok, fail) => {
        const r = request(
          {
            host: '127.0.0.1',
            port: h.port,
            path: `/api/call/${method}`,
            method: 'POST',
            agent,
            headers: { Authorization: `Bearer ${credential}`, 'Content-Type': 'application/json' }
          },
          (res) => {
            let body = ''
            res.setEncoding('utf8')
            res.on('data', (d: string) => (body += d))
            res.on('end', () => ok(JSON.parse(body)))
          }
        )
        r.on('error', fail)
        r.end(JSON.stringify({ req }))
      })
  }
}

function quantiles(xs: number[]) {
  const t = [...xs].sort((a, b) => a - b)
  const q = (p: number) => t[Math.min(t.length - 1, Math.floor(p * t.length))] ?? NaN
  return { n: t.length, p50Ms: round(q(0.5), 1), p99Ms: round(q(0.99), 1), maxMs: round(t[t.length - 1] ?? NaN, 1) }
}

async function workspace(dir: string): Promise<{ dbPath: string; queryId: number }> {
  const dbPath = join(dir, 'workspace.sqlite')
  // Data and budget set up in-process (the services' own functions), then the server opens the same file.
  const h = await startHeadless({ dbPath, poolSize: 1, rendererDir: join(dir, 'renderer'), uploadDir: join(dir, 'uploads') })
  const db = h.services.context.store.db
  const occ = (await runImport(db, planImport(db, { path: join(SAMPLE, 'occupancy.csv'), name: 'occupancy', onBadRow: 'abort' }))).dataset.id
  setBudget(db, { datasetId: occ, epsilon: '100000', reason: 'service benchmark', ...officerAct(db) })
  const queryId = saveQuery(db, occ, 'busy buildings', {
    kind: 'threshold',
    groupBy: ['building'],
    count: { kind: 'persons', personColumn: 'person_id', cap: 1 },
    threshold: { kind: 'constant', value: 10 },
    groups: [['A'], ['B']]
  }).id
  await h.close()
  return { dbPath, queryId }
}

const PARAMS = { kind: 'threshold', mechanism: 'tslm', beta: 0.05, alpha: 1 }

/** Credentials in the service: one account per analyst, and one for the unrelated calls; the workbench's token otherwise. */
let accounts = 0
function credentials(h: HeadlessServer): string[] {
  if ((h.cadenceMs ?? null) === null) return Array.from({ length: ANALYSTS + 1 }, () => h.token)
  const db = h.services.context.store.db
  const datasetId = (db.prepare(`SELECT id FROM datasets WHERE name = 'occupancy'`).get() as { id: number }).id
  return Array.from({ length: ANALYSTS + 1 }, () => {
    const name = `analyst-${++accounts}`
    const credential = credentialFor(db, name, 'analyst')
    // Each analyst releases within an allotment of the dataset's budget (the allotments sum to at most it).
    const analyst = (db.prepare('SELECT id FROM accounts WHERE name = ?').get(name) as { id: number }).id
    setBudget(db, { datasetId, epsilon: '1000', reason: `${name}'s share`, analyst, ...officerAct(db) })
    return credential
  })
}

async function releases(h: HeadlessServer, queryId: number, ca: Buffer | undefined, cadenceMs: number | null) {
  const who = credentials(h)
  const unrelated: number[] = []
  const late: number[] = []
  let running = true
  const side = client(h, ca, who[ANALYSTS])
  const sideLoop = (async () => {
    let i = 0
    while (running) {
      const sent = Date.now()
      const o = await side.call(i++ % 2 ? 'app/status' : 'datasets/list', {})
      const at = Date.now()
      if (!o.ok) throw new Error(o.error?.message)
      unrelated.push(at - sent)
      if (cadenceMs) late.push(at - Math.ceil(sent / cadenceMs) * cadenceMs)
      await new Promise((r) => setTimeout(r, 10))
    }
  })()
  const started = performance.now()
  const releaseMs: number[] = []
  await Promise.all(
    Array.from({ length: ANALYSTS }, async (_, a) => {
      const c = client(h, ca, who[a])
      for (let i = 0; i < RELEASES; i++) {
        const t = performance.now()
        const o = await c.call('releases/run', { queryId, params: PARAMS })
        if (!o.ok) throw new Error(o.error?.message)
        releaseMs.push(performance.now() - t)
      }
    })
  )
  const wallS = (performance.now() - started) / 1000
  running = false
  await sideLoop
  return {
    releases: ANALYSTS * RELEASES,
    wallS: round(wallS, 2),
    releasesPerS: round((ANALYSTS * RELEASES) / wallS, 2),
    release: quantiles(releaseMs),
    unrelatedCalls: quantiles(unrelated),
    ...(cadenceMs ? { cadenceMs, lateAfterTick: quantiles(late) } : {})
  }
}

/** How long `behindSweep` waits for the release and for jobs/cancel before it reports them as held. */
const SWEEP_CAP_MS = Number(process.env.BENCH_SWEEP_CAP_MS ?? 120_000)
const capped = <T>(p: Promise<T>): Promise<T | null> => Promise.race([p, new Promise<null>((r) => setTimeout(() => r(null), SWEEP_CAP_MS).unref())])

/** What the service's socket gate let out (each write: how long after its tick it left). */
const gateLate: number[] = []

async function behindSweep(h: HeadlessServer, queryId: number, ca: Buffer | undefined, cadenceMs: number | null) {
  const c = client(h, ca, credentials(h)[0])
  const started = await c.call('experiments/start', { preset: 'search-fig2' })
  if (!started.ok) throw new Error(started.error?.message)
  const jobId = (started.value as { jobId: string }).jobId
  // Until the sweep's batches occupy the pool.
  for (;;) {
    const s = await c.call('app/status', {})
    const pool = (s.value as { pool?: { busy: number } }).pool
    if (pool && pool.busy > 0) break
    await new Promise((r) => setTimeout(r, 50))
  }
  await new Promise((r) => setTimeout(r, 500))
  const t0 = performance.now()
  const release = c.call('releases/run', { queryId, params: PARAMS }).then((o) => ({ ms: performance.now() - t0, at: Date.now(), o }))
  await new Promise((r) => setTimeout(r, 100))
  const t1 = performance.now()
  const cancel = await capped(c.call('jobs/cancel', { jobId }).then(() => performance.now() - t1))
  const r = await capped(release)
  // A door that holds calls for a release that waits behind the sweep's batches answers neither before the sweep ends.
  if (cancel === null || r === null) return { heldLongerThanMs: SWEEP_CAP_MS, jobsCancelAnswered: cancel !== null, releaseAnswered: r !== null }
  if (!r.o.ok) throw new Error(r.o.error?.message)
  const rec = r.o.value as { createdAt: string; answeredAt: string | null }
  return {
    releaseMs: round(r.ms, 1),
    jobsCancelMs: round(cancel, 1),
    // The service hands the answer over at its recorded time (whole cadences after the charge): how long after it came.
    ...(cadenceMs && rec.answeredAt
      ? {
          answerCadences: (Date.parse(rec.answeredAt) - Date.parse(rec.createdAt)) / cadenceMs,
          arrivedAfterAnswerTimeMs: r.at - Date.parse(rec.answeredAt)
        }
      : {})
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'qa-bench-service-'))
  mkdirSync(join(dir, 'renderer'))
  writeFileSync(join(dir, 'renderer', 'index.html'), '<!doctype html><title>ui</title>')
  const out: Record<string, unknown> = { analysts: ANALYSTS, releasesEach: RELEASES }
  const pki = makeTestPki()
  try {
    const { dbPath, queryId } = await workspace(dir)
    const tls = { cert: pki.cert, key: pki.key }
    const deployments: Array<[string, Record<string, unknown>]> = [
      ['workbench', {}],
      ['service', { deployment: 'service', listen: { host: '127.0.0.1', port: 0 }, tls }]
    ]
    for (const [name, options] of deployments) {
      gateLate.length = 0
      const h = await startHeadless({
        dbPath,
        poolSize: 1,
        rendererDir: join(dir, 'renderer'),
        uploadDir: join(dir, 'uploads'),
        onGateLeave: (g: { tick: number; leftAt: number }) => gateLate.push(g.leftAt - g.tick),
        ...options
      })
      try {
        const isService = h.url.startsWith('https:')
        if (name === 'service' && !isService) {
          out[name] = { skipped: 'this door has no service mode' }
          continue
        }
        const cadenceMs = h.cadenceMs ?? null
        const ca = isService ? pki.ca : undefined
        out[name] = {
          releases: await releases(h, queryId, ca, cadenceMs),
          behindSweep: await behindSweep(h, queryId, ca, cadenceMs),
          ...(cadenceMs ? { gateWritesLateAfterTheirTick: quantiles(gateLate) } : {})
        }
      } finally {
        // A door still holding a request may not close at once: the next deployment does not wait for it.
        await Promise.race([h.close(), new Promise((r) => setTimeout(r, 10_000).unref())])
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
    pki.cleanup()
  }
  report(out)
  // A request still held by a door under test (the capped case) must not keep the process alive.
  process.exit(0)
}
void main()
