/**
 * Attack (review of the padded answer time): a release's mechanism runs on the services' thread, so every request that
 * arrives while it runs is served the moment the run ends. The padding hid the run time in `answeredAt` and in
 * releases/list, but a second call sent beside the release told it to the millisecond: how long any call took, and
 * the charge time (`createdAt`, the ledger entry's time) of a release asked meanwhile. With a data-dependent run time
 * (about 190 ms vs 250 ms for 3 vs 200,000 distinct values, docs/guide/releases.md, "Timing") that is the data's size and shape,
 * uncharged. Each test below models "a request that arrived while the release ran" as one handled after the run: it
 * must be served (and anything it writes must be stamped) no earlier than the release's padded answer time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request } from 'node:http'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
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

beforeAll(async () => {
  ws = tempWorkspace('qa-timing-')
  const rendererDir = join(ws.dir, 'renderer')
  mkdirSync(rendererDir)
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>ui</title>')
  h = await startHeadless({ dbPath: ws.db, poolSize: 1, rendererDir, uploadDir: join(ws.dir, 'uploads') })
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
  await h?.close()
  ws?.cleanup()
})

/** Starts a release through the services' dispatcher and returns once its run has ended (its answer is stored). */
async function releaseRan(): Promise<{ record: Promise<ReleaseRecord>; id: number }> {
  const db = h.services.context.store.db
  const before = (db.prepare('SELECT coalesce(max(id), 0) AS n FROM releases').get() as { n: number }).n
  const outcome = h.services.dispatch('releases/run', { queryId, params: TSLM })
  let id = 0
  await waitFor(() => {
    const r = db.prepare(`SELECT id FROM releases WHERE id > ? AND status <> 'charged'`).get(before) as { id: number } | undefined
    id = r?.id ?? 0
    return id > 0
  }, 'the release to run')
  const record = outcome.then((o) => {
    if (!o.ok) throw new Error(o.error.message)
    return o.value as ReleaseRecord
  })
  return { record, id }
}

function paddedTime(id: number): number {
  const row = h.services.context.store.db.prepare('SELECT answered_at FROM releases WHERE id = ?').get(id) as { answered_at: string }
  return Date.parse(row.answered_at)
}

function get(path: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const req = request({ host: '127.0.0.1', port: h.port, path, method: 'GET', headers }, (res) => {
      res.resume()
      res.on('end', () => resolvePromise(Date.now()))
    })
    req.on('error', reject)
    req.end()
  })
}

describe('a call beside a release does not time its run', () => {
  it('a contract call handled after the run is answered no earlier than the padded answer time', async () => {
    const { record, id } = await releaseRan()
    const at = paddedTime(id)
    const listed = await h.services.dispatch('releases/list', {})
    const servedAt = Date.now()
    expect(listed.ok).toBe(true)
    expect(servedAt).toBeGreaterThanOrEqual(at)
    await record
  })

  it("a release asked while another ran is charged (createdAt, ledger time) no earlier than the first one's padded answer time", async () => {
    const { record, id } = await releaseRan()
    const at = paddedTime(id)
    const second = await h.services.dispatch('releases/run', { queryId, params: TSLM })
    if (!second.ok) throw new Error(second.error.message)
    const r2 = second.value as ReleaseRecord
    expect(Date.parse(r2.createdAt)).toBeGreaterThanOrEqual(at)
    const entry = h.services.context.store.db.prepare('SELECT at FROM ledger_entries WHERE release_id = ?').get(r2.releaseId) as { at: string }
    expect(Date.parse(entry.at)).toBeGreaterThanOrEqual(at)
    await record
  })

  it('over HTTP, a static page and a refused call sent beside a release come back no earlier than its padded answer time', async () => {
    const { record, id } = await releaseRan()
    const at = paddedTime(id)
    const [page, refused] = await Promise.all([get('/'), get('/api/call/releases/list', { Authorization: 'Bearer wrong' })])
    expect(page).toBeGreaterThanOrEqual(at)
    expect(refused).toBeGreaterThanOrEqual(at)
    await record
  })
})
