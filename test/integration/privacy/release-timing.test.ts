/**
 * Timing beside a release, through the HTTP door.
 *
 * The workbench (loopback HTTP, the analyst's own file): the analyst holds the data, so nothing waits for a release.
 * Before, every request that arrived while a release ran was answered at the release's padded answer time (about a
 * second per release; 70 s when the release queued behind a sweep's batches, `jobs/cancel` included). Here a release is
 * kept inside its run (`testHoldAfterCharge`: the runner waits after the charge, as a long data read would) for as long
 * as the test likes: everything else is answered meanwhile, in order, and the release's answer comes after.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request } from 'node:http'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { CallOutcome } from '../../../src-main/contract'
import type { ReleaseParams, ReleaseRecord } from '../../../src-main/contract/ledger'
import { planImport, runImport } from '../../../src-main/services/datasets/import-dataset'
import { saveQuery } from '../../../src-main/services/datasets/query-store'
import { setBudget } from '../../../src-main/services/ledger/budgets'
import { startHeadless, type HeadlessServer } from '../../../src-main/server'
import { tempWorkspace, waitFor } from '../helpers'
import { officerAct } from '../officer-fixture'

const SAMPLE = resolve(__dirname, '../../../resources/sample')
const TSLM: ReleaseParams = { kind: 'threshold', mechanism: 'tslm', beta: 0.05, alpha: 1 }

let h: HeadlessServer
let ws: ReturnType<typeof tempWorkspace>
let queryId: number
const latch = new Int32Array(new SharedArrayBuffer(4))

beforeAll(async () => {
  ws = tempWorkspace('qa-timing-')
  const rendererDir = join(ws.dir, 'renderer')
  mkdirSync(rendererDir)
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>ui</title>')
  h = await startHeadless({ dbPath: ws.db, poolSize: 1, rendererDir, uploadDir: join(ws.dir, 'uploads'), testHoldAfterCharge: latch })
  const db = h.services.context.store.db
  const occ = (await runImport(db, planImport(db, { path: resolve(SAMPLE, 'occupancy.csv'), name: 'occupancy', onBadRow: 'abort' }))).dataset.id
  setBudget(db, { datasetId: occ, epsilon: '50', reason: 'timing attack tests', ...officerAct(db) })
  queryId = saveQuery(db, occ, 'timed', {
    kind: 'threshold',
    groupBy: ['building'],
    count: { kind: 'persons', personColumn: 'person_id', cap: 1 },
    threshold: { kind: 'constant', value: 10 },
    groups: [['A'], ['B']]
  }).id
})
afterAll(async () => {
  Atomics.store(latch, 0, 0)
  Atomics.notify(latch, 0)
  await h?.close()
  ws?.cleanup()
})

function http(path: string, o: { method?: string; body?: unknown; token?: string | null } = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolvePromise, reject) => {
    const token = o.token === undefined ? h.token : o.token
    const req = request(
      { host: '127.0.0.1', port: h.port, path, method: o.method ?? 'GET', headers: token ? { Authorization: `Bearer ${token}` } : {} },
      (res) => {
        let body = ''
        res.on('data', (d) => (body += String(d)))
        res.on('end', () => resolvePromise({ status: res.statusCode ?? 0, body }))
      }
    )
    req.on('error', reject)
    req.end(o.body === undefined ? undefined : JSON.stringify(o.body))
  })
}

const call = async (method: string, req: unknown) =>
  JSON.parse((await http(`/api/call/${method}`, { method: 'POST', body: { req } })).body) as CallOutcome<unknown>
const holding = () => Atomics.load(latch, 0) === 1
function letGo(): void {
  Atomics.store(latch, 0, 0)
  Atomics.notify(latch, 0)
}

describe('the workbench holds nothing while a release runs', () => {
  it('a call, a page, a refusal, an upload and a progress event beside a release are answered while the release is still in its run', async () => {
    const order: string[] = []
    const release = call('releases/run', { queryId, params: TSLM }).then((o) => {
      order.push('release')
      return o
    })
    await waitFor(holding, 'the release to be charged and inside its run', 60_000)
    const events: string[] = []
    const stream = request({ host: '127.0.0.1', port: h.port, path: `/api/events?token=${h.token}` }, (res) =>
      res.on('data', (d) => events.push(String(d)))
    )
    stream.end()
    await waitFor(() => events.join('').includes(': connected'), 'the event stream to open')
    const listed = await call('releases/list', {})
    order.push('list')
    expect(listed.ok && (listed.value as ReleaseRecord[]).map((r) => r.status)).toContain('running')
    expect((await http('/')).status).toBe(200)
    order.push('page')
    expect((await http('/api/call/datasets/list', { method: 'POST', body: {}, token: 'wrong' })).status).toBe(401)
    order.push('refusal')
    const upload = await new Promise<number>((ok, fail) => {
      const r = request(
        { host: '127.0.0.1', port: h.port, path: '/api/upload?name=a.csv', method: 'POST', headers: { Authorization: `Bearer ${h.token}` } },
        (res) => {
          res.resume()
          res.on('end', () => ok(res.statusCode ?? 0))
        }
      )
      r.on('error', fail)
      r.end('a,b\n1,2\n')
    })
    expect(upload).toBe(200)
    order.push('upload')
    const job = await call('diagnostics/self-check', { batches: 2, samplesPerBatch: 20000 })
    const jobId = (job as { value: { jobId: string } }).value.jobId
    await waitFor(() => events.join('').includes(`"jobId":"${jobId}"`), 'a progress event of the job', 60_000)
    order.push('event')
    expect(holding()).toBe(true)
    letGo()
    const r = await release
    expect(r.ok).toBe(true)
    expect(order).toEqual(['list', 'page', 'refusal', 'upload', 'event', 'release'])
    stream.destroy()
  })

  it('a second release waits for the first (one runner), and is then answered with its own charge', async () => {
    const first = call('releases/run', { queryId, params: TSLM })
    await waitFor(holding, 'the first release inside its run', 60_000)
    const second = call('releases/run', { queryId, params: TSLM })
    // The services' thread is free meanwhile.
    expect((await call('app/status', {})).ok).toBe(true)
    letGo()
    const a = (await first) as { ok: true; value: ReleaseRecord }
    await waitFor(holding, 'the second release inside its run', 60_000)
    letGo()
    const b = (await second) as { ok: true; value: ReleaseRecord }
    expect(b.value.releaseId).toBe(a.value.releaseId + 1)
    expect(b.value.status).toBe('answered')
  })
})
