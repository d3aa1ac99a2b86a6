/**
 * Attacks on the service's timing (ALGORITHMS.md section 5), through a real HTTPS service on loopback with a
 * certificate made here. The analyst's distinguisher of the audit: two datasets that differ only in the share of one
 * role make a release's data read take different times (61-235 ms against 340-591 ms there), and anything answered
 * "when the read ends" tells which dataset it is: a malformed request (Node's own 400 came the moment the thread was
 * free), an upload in flight, a progress event (and its `rate`, done/elapsed, dated it to the millisecond).
 *
 * The defence, tested by its mechanism (never by how fast this machine is):
 * - every byte a client reads leaves at a tick of the public cadence: nothing arrives before the first tick after it
 *   was asked for, and the server's gate let each write out at a tick (`onGateLeave`);
 * - a release's data read and computation run on the release runner's thread: while a release is kept inside its run
 *   (`testHoldAfterCharge`, as a read that never ends), a malformed request, an upload, a progress event, `jobs/cancel`
 *   and unrelated calls are all answered; none waits for the read;
 * - event fields carry no rate and no time finer than the cadence;
 * - a release is handed over at its recorded answer time (whole cadences after its charge), also while a sweep keeps
 *   the worker pool busy: it never queues behind the sweep's batches.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connect as tlsConnect } from 'node:tls'
import { request as httpsRequest } from 'node:https'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { CallOutcome } from '../../../src-main/contract'
import type { ReleaseRecord } from '../../../src-main/contract/ledger'
import type { JobInfo, JobProgress } from '../../../src-main/contract'
import { planImport, runImport } from '../../../src-main/services/datasets/import-dataset'
import { saveQuery } from '../../../src-main/services/datasets/query-store'
import { setBudget } from '../../../src-main/services/ledger/budgets'
import { startHeadless, type HeadlessServer } from '../../../src-main/server'
import type { GateRecord } from '../../../src-main/door/cadence'
import { tempWorkspace, waitFor } from '../helpers'
import { officerAct } from '../officer-fixture'
import { type TestPki, makeTestPki } from '../../support/tls'
import { credentialFor, httpsCall } from '../https-call'

const CADENCE = 200
let h: HeadlessServer
let ws: ReturnType<typeof tempWorkspace>
let tls: TestPki
/** An analyst (releases) and a custodian (uploads, the long jobs): credentials of their own. */
let analyst = ''
let custodian = ''
const latch = new Int32Array(new SharedArrayBuffer(4))
const gate: GateRecord[] = []
/** Saved queries on the two datasets of the distinguisher (the share of "guard" rows: 5% and 95%). */
const queries: Record<'few' | 'many', number> = { few: 0, many: 0 }
const datasetIds: Record<'few' | 'many', number> = { few: 0, many: 0 }

/** A dataset of `rows` badge reads, `share` of them by guards. */
function badgeCsv(dir: string, name: string, share: number, rows = 20_000): string {
  const path = join(dir, `${name}.csv`)
  const lines = ['person_id,role,building']
  for (let i = 0; i < rows; i++)
    lines.push(`P${String(i % 4000).padStart(5, '0')},${(i * 7919) % 100 < share * 100 ? 'guard' : 'staff'},${'ABCD'[i % 4]}`)
  writeFileSync(path, lines.join('\n') + '\n')
  return path
}

beforeAll(async () => {
  ws = tempWorkspace('qa-service-timing-')
  tls = makeTestPki()
  const rendererDir = join(ws.dir, 'renderer')
  mkdirSync(rendererDir)
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>ui</title>')
  h = await startHeadless({
    dbPath: ws.db,
    poolSize: 1,
    rendererDir,
    uploadDir: join(ws.dir, 'uploads'),
    deployment: 'service',
    cadenceMs: CADENCE,
    listen: { host: '127.0.0.1', port: 0 },
    tls: { cert: tls.cert, key: tls.key },
    testHoldAfterCharge: latch,
    onGateLeave: (r) => gate.push(r)
  })
  const db = h.services.context.store.db
  for (const [which, share] of [
    ['few', 0.05],
    ['many', 0.95]
  ] as const) {
    const id = (await runImport(db, planImport(db, { path: badgeCsv(ws.dir, which, share), name: `badges-${which}`, onBadRow: 'abort' }))).dataset.id
    datasetIds[which] = id
    setBudget(db, { datasetId: id, epsilon: '100', reason: 'service timing attacks', ...officerAct(db) })
    queries[which] = saveQuery(db, id, `guards per building (${which})`, {
      kind: 'threshold',
      groupBy: ['building'],
      filter: [{ column: 'role', op: '=', value: 'guard' }],
      count: { kind: 'persons', personColumn: 'person_id', cap: 1, maxGroups: 1 },
      threshold: { kind: 'constant', value: 100 },
      groups: [['A'], ['B'], ['C'], ['D']]
    }).id
  }
  analyst = credentialFor(db, 'ana', 'analyst')
  custodian = credentialFor(db, 'cody', 'custodian')
  const ana = (db.prepare(`SELECT id FROM accounts WHERE name = 'ana'`).get() as { id: number }).id
  for (const datasetId of [datasetIds.few, datasetIds.many])
    setBudget(db, { datasetId, epsilon: '100', reason: "ana's share", analyst: ana, ...officerAct(db) })
})
afterAll(async () => {
  letGo()
  await h?.close()
  ws?.cleanup()
  tls?.cleanup()
})

const auth = (credential = analyst) => ({ Authorization: `Bearer ${credential}` })
/** Who may call what (the role table): the custodian starts jobs and uploads, the analyst releases. */
const asWho = (method: string) => (method === 'diagnostics/self-check' || method.startsWith('jobs/') ? custodian : analyst)
const holding = () => Atomics.load(latch, 0) === 1
function letGo(): void {
  Atomics.store(latch, 0, 0)
  Atomics.notify(latch, 0)
}
const firstTickAtOrAfter = (t: number) => Math.ceil(t / CADENCE) * CADENCE

async function call(method: string, req: unknown): Promise<CallOutcome<unknown> & { sentAt: number; at: number }> {
  const sentAt = Date.now()
  const r = await httpsCall(h.port, tls.ca, `/api/call/${method}`, { method: 'POST', headers: auth(asWho(method)), body: JSON.stringify({ req }) })
  return { ...(JSON.parse(r.body) as CallOutcome<unknown>), sentAt, at: r.at }
}

/** Bytes that are not HTTP, over TLS: the HTTP parser fails on them. */
function malformed(): Promise<{ text: string; sentAt: number; at: number }> {
  return new Promise((resolve, reject) => {
    const s = tlsConnect({ host: '127.0.0.1', port: h.port, ca: tls.ca }, () => {
      const sentAt = Date.now()
      let text = ''
      s.setEncoding('utf8')
      s.on('data', (d: string) => (text += d))
      s.on('end', () => resolve({ text, sentAt, at: Date.now() }))
      s.write('GET / HTTP/1.1\r\nHost: \x00\x01 garbage\r\n\r\n')
    })
    s.on('error', reject)
  })
}

/** An upload whose first half is sent now; `finish()` sends the rest and resolves with the answer. */
function uploadInFlight(): { finish: () => Promise<{ status: number; sentAt: number; at: number }> } {
  const body = Buffer.from('a,b\n' + '1,2\n'.repeat(5000))
  let answer: (r: { status: number; at: number }) => void
  const answered = new Promise<{ status: number; at: number }>((r) => (answer = r))
  const req = httpsRequest(
    {
      host: '127.0.0.1',
      port: h.port,
      path: '/api/upload?name=a.csv',
      method: 'POST',
      ca: tls.ca,
      agent: false,
      headers: { ...auth(custodian), 'Content-Length': String(body.length) }
    },
    (res) => {
      res.resume()
      res.on('end', () => answer({ status: res.statusCode ?? 0, at: Date.now() }))
    }
  )
  req.write(body.subarray(0, body.length / 2))
  return {
    async finish() {
      const sentAt = Date.now()
      req.end(body.subarray(body.length / 2))
      return { ...(await answered), sentAt }
    }
  }
}

/** The event stream: frames as they arrive, with their arrival times. */
function events(credential = custodian): { frames: Array<{ name: string; payload: unknown; at: number }>; close: () => void; opened: Promise<void> } {
  const frames: Array<{ name: string; payload: unknown; at: number }> = []
  let opened: () => void
  const ready = new Promise<void>((r) => (opened = r))
  const req = httpsRequest({ host: '127.0.0.1', port: h.port, path: '/api/events', headers: auth(credential), ca: tls.ca, agent: false }, (res) => {
    let buf = ''
    res.setEncoding('utf8')
    res.on('data', (d: string) => {
      buf += d
      if (buf.includes(': connected')) opened()
      let i: number
      while ((i = buf.indexOf('\n\n')) >= 0) {
        const frame = buf.slice(0, i)
        buf = buf.slice(i + 2)
        if (frame.startsWith('data: ')) frames.push({ ...(JSON.parse(frame.slice(6)) as { name: string; payload: unknown }), at: Date.now() })
      }
    })
  })
  req.on('error', () => undefined)
  req.end()
  return { frames, close: () => req.destroy(), opened: ready }
}

/** An ISO time as the services write them. */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

/** The fields of `value` that date something finer than the cadence: a rate, or a time that is not on a tick. */
function fineFields(value: unknown, path = '$'): string[] {
  if (typeof value === 'string') return ISO_TIME.test(value) && Date.parse(value) % CADENCE !== 0 ? [`${path} = ${value}`] : []
  if (Array.isArray(value)) return value.flatMap((v, i) => fineFields(v, `${path}[${i}]`))
  if (value === null || typeof value !== 'object') return []
  return Object.entries(value).flatMap(([k, v]) => (/^rate$|PerSecond$/i.test(k) ? [`${path}.${k} (a rate)`] : fineFields(v, `${path}.${k}`)))
}

describe('the service: what an analyst sees beside a release', () => {
  it('every write leaves at a tick, and nothing arrives before the first tick after it was asked for', async () => {
    const before = gate.length
    const samples = []
    for (let i = 0; i < 5; i++) {
      // Just after a tick: an answer sent at once would arrive long before the next one.
      await new Promise((r) => setTimeout(r, firstTickAtOrAfter(Date.now()) + 5 - Date.now()))
      samples.push(await call('datasets/list', {}))
    }
    for (const s of samples) {
      expect(s.ok).toBe(true)
      expect(s.at).toBeGreaterThanOrEqual(firstTickAtOrAfter(s.sentAt))
    }
    const written = gate.slice(before)
    expect(written.length).toBeGreaterThanOrEqual(5)
    for (const w of written) {
      expect(w.tick % CADENCE).toBe(0)
      expect(w.tick).toBe(firstTickAtOrAfter(w.askedAt))
      expect(w.leftAt).toBeGreaterThanOrEqual(w.tick)
    }
  })

  for (const which of ['few', 'many'] as const) {
    it(`dataset with ${which === 'few' ? '5%' : '95%'} guards: a malformed request, an upload and a progress event beside the release are answered at the cadence while its read has not even ended`, async () => {
      const stream = events()
      await stream.opened
      const upload = uploadInFlight()
      const release = call('releases/run', { queryId: queries[which], params: { kind: 'threshold', mechanism: 'tslm', beta: 0.05, alpha: 1 } })
      await waitFor(holding, 'the release to be charged and kept inside its run', 60_000)

      const bad = await malformed()
      expect(bad.text).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/)
      expect(bad.text).toContain('"code":"bad-request"')
      expect(bad.at).toBeGreaterThanOrEqual(firstTickAtOrAfter(bad.sentAt))

      const up = await upload.finish()
      expect(up.status).toBe(200)
      expect(up.at).toBeGreaterThanOrEqual(firstTickAtOrAfter(up.sentAt))

      const job = await call('diagnostics/self-check', { batches: 2, samplesPerBatch: 20000 })
      const jobId = (job as { value: { jobId: string } }).value.jobId
      await waitFor(
        () => stream.frames.some((f) => f.name === 'job/state' && (f.payload as JobInfo).jobId === jobId && (f.payload as JobInfo).state === 'done'),
        'the job to finish',
        60_000
      )
      const mine = stream.frames.filter((f) => (f.payload as { jobId?: string }).jobId === jobId)
      for (const f of mine) {
        if (f.name === 'job/progress') {
          expect(f.payload).not.toHaveProperty('rate')
          expect((f.payload as JobProgress).detail ?? {}).not.toHaveProperty('bytesPerSecond')
        } else {
          const info = f.payload as JobInfo
          expect(Date.parse(info.startedAt) % CADENCE).toBe(0)
          if (info.finishedAt) expect(Date.parse(info.finishedAt) % CADENCE).toBe(0)
        }
      }
      expect(mine.some((f) => f.name === 'job/progress')).toBe(true)

      // All of that came back while the release had not started its read: none of it waited for the read's end.
      expect(holding()).toBe(true)
      letGo()
      const r = await release
      expect(r.ok).toBe(true)
      const rec = (r as { value: ReleaseRecord }).value
      // Handed over at its recorded answer time: whole cadences after its charge.
      expect((Date.parse(rec.answeredAt!) - Date.parse(rec.createdAt)) % CADENCE).toBe(0)
      expect(r.at).toBeGreaterThanOrEqual(Date.parse(rec.answeredAt!))
      stream.close()
    })
  }

  it('no field of a job, its events or a running experiment dates anything finer than the cadence (no rates, times on ticks)', async () => {
    // The analyst's own sweep (a public simulation): its figures move while releases' reads compete for the CPU, so a
    // rate or a millisecond time in them would time those reads.
    const presets = (await call('experiments/presets', {})) as { value: { presets: Array<{ name: string; spec: Record<string, unknown> }> } }
    const mide = presets.value.presets.find((p) => p.name === 'mide')!.spec
    const spec = { ...mide, name: 'timing probe', sweeps: [(mide.sweeps as unknown[])[0]], trials: 40 }
    const stream = events(analyst)
    await stream.opened
    const started = (await call('experiments/start', { spec })) as { ok: boolean; value: { jobId: string; experimentId: string } }
    expect(started.ok).toBe(true)
    const { jobId, experimentId } = started.value
    const seen: unknown[] = []
    await waitFor(
      async () => {
        const detail = (await call('experiments/get', { experimentId })) as { value: { live: unknown; status: string } }
        seen.push(detail.value)
        return detail.value.status !== 'running'
      },
      'the sweep to finish',
      120_000
    )
    expect(seen.some((d) => (d as { live: unknown }).live !== null)).toBe(true)
    for (const [method, req] of [
      ['experiments/list', {}],
      ['jobs/get', { jobId }],
      ['jobs/list', {}]
    ] as const) {
      const r = (await call(method, req)) as { ok: boolean; value: unknown }
      expect(r.ok).toBe(true)
      seen.push(r.value)
    }
    await waitFor(
      () => stream.frames.some((f) => f.name === 'job/state' && (f.payload as JobInfo).jobId === jobId && (f.payload as JobInfo).state !== 'running'),
      'the last job event'
    )
    const frames = stream.frames.filter((f) => (f.payload as { jobId?: string }).jobId === jobId)
    stream.close()
    expect(frames.some((f) => f.name === 'job/progress')).toBe(true)
    expect(fineFields([seen, frames.map((f) => f.payload)])).toEqual([])
    // The custodian's self-check: its result's own time too.
    const check = (await call('diagnostics/self-check', { batches: 1, samplesPerBatch: 1000 })) as { value: { jobId: string } }
    await waitFor(async () => ((await call('jobs/get', { jobId: check.value.jobId })) as { value: JobInfo }).value.state === 'done', 'the self-check')
    const done = (await call('jobs/get', { jobId: check.value.jobId })) as { value: JobInfo }
    expect(done.value.result).toHaveProperty('at')
    expect(fineFields(done.value)).toEqual([])
  })

  it('a release during a sweep is answered at its own answer time while the sweep still runs, and jobs/cancel answers at once', async () => {
    // A long job keeps the worker pool busy (1,000 batches of a million draws); it would take minutes.
    const sweep = await call('diagnostics/self-check', { batches: 1000, samplesPerBatch: 1_000_000 })
    const jobId = (sweep as { value: { jobId: string } }).value.jobId
    await waitFor(async () => ((await call('app/status', {})) as { value: { pool: { busy: number } } }).value.pool.busy > 0, 'the pool to be busy')
    latch[0] = 0
    const release = call('releases/run', { queryId: queries.few, params: { kind: 'threshold', mechanism: 'tslm', beta: 0.05, alpha: 1 } })
    await waitFor(holding, 'the release inside its run', 60_000)
    // jobs/cancel of another job while the release runs: answered, not held behind the release.
    const other = await call('diagnostics/self-check', { batches: 1, samplesPerBatch: 100 })
    const cancel = await call('jobs/cancel', { jobId: (other as { value: { jobId: string } }).value.jobId })
    expect(cancel.ok).toBe(true)
    expect(holding()).toBe(true)
    letGo()
    const r = await release
    expect(r.ok).toBe(true)
    const rec = (r as { value: ReleaseRecord }).value
    expect(r.at).toBeGreaterThanOrEqual(Date.parse(rec.answeredAt!))
    // The sweep is still running: the release did not queue behind its batches.
    const job = (await call('jobs/get', { jobId })) as { value: JobInfo }
    expect(job.value.state).toBe('running')
    const stop = await call('jobs/cancel', { jobId })
    expect(stop).toMatchObject({ ok: true, value: { cancelled: true } })
    await waitFor(async () => ((await call('jobs/get', { jobId })) as { value: JobInfo }).value.state === 'cancelled', 'the sweep to stop')
  })
})
