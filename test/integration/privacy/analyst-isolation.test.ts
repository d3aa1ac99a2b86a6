/**
 * Analysts of one service read nothing of each other (ALGORITHMS.md section 5, "Analysts of one service"), as the
 * attack of the audit: analyst ana, holding only her credential, over HTTPS on a real service on loopback, reads
 * everything she may (ledger summary, entries, releases, a release by id, a preview, a denial, her event stream) after
 * her own release; in one world analyst bob makes no release in between, in the other he makes 3. Every response she
 * gets is byte-identical in the two worlds once the times (the clock's, floored to the cadence) and her release's
 * noisy answer are masked: the same ids, counts, figures and sentences. Before allotments and per-analyst ids, her
 * summary showed the dataset's spend and "releases: 3", her preview's spentBefore and her denial the dataset's remains,
 * and the global release ids, ledger seqs and hashes counted bob's releases.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { request as httpsRequest } from 'node:https'
import { setBudget } from '../../../src-main/services/ledger/budgets'
import { officerAct } from '../officer-fixture'
import { sixRoomVisits } from './six-rooms-fixture'
import { type TlsService, startTlsService } from './tls-service'

const tslm = { kind: 'threshold', mechanism: 'tslm', beta: 0.1, alpha: 2 }
const opened: TlsService[] = []
afterAll(async () => {
  for (const s of opened) await s.close()
})

/** ana's event stream: every frame she receives until `stop()`. */
function eventStream(s: TlsService, credential: string): { frames: string[]; stop: () => void } {
  const frames: string[] = []
  const req = httpsRequest(
    { host: '127.0.0.1', port: s.h.port, path: '/api/events', headers: { Authorization: `Bearer ${credential}` }, ca: s.tls.ca, agent: false },
    (res) => {
      res.setEncoding('utf8')
      res.on('data', (d: string) => frames.push(d))
    }
  )
  req.on('error', () => undefined)
  req.end()
  return { frames, stop: () => req.destroy() }
}

/** Times and the noisy answer masked: what must not differ between the worlds is everything else. */
function masked(body: string): string {
  return body
    .replace(/"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z"/g, '"<time>"')
    .replace(/"answer":(\{.*?\}|null)(?=,"answeredAt")/g, '"answer":"<answer>"')
}

/** One world: ana releases, bob releases `bobReleases` times, then ana reads everything. */
async function world(bobReleases: number): Promise<Record<string, string>> {
  const s = await startTlsService({ cadenceMs: 50 }, 'qa-isolation-')
  opened.push(s)
  const { id, queryId } = sixRoomVisits(s.db)
  // The dataset's budget per person (20) in allotments: ana 5 (one release of 4.83), bob 15 (three).
  setBudget(s.db, { datasetId: id, epsilon: '20', reason: 'the whole review', ...officerAct(s.db) })
  const ana = s.account('ana', 'analyst')
  const bob = s.account('bob', 'analyst')
  const idOf = (name: string) => (s.db.prepare('SELECT id FROM accounts WHERE name = ?').get(name) as { id: number }).id
  setBudget(s.db, { datasetId: id, epsilon: '5', reason: "ana's share", analyst: idOf('ana'), ...officerAct(s.db) })
  setBudget(s.db, { datasetId: id, epsilon: '15', reason: "bob's share", analyst: idOf('bob'), ...officerAct(s.db) })
  const events = eventStream(s, ana)
  const mine = await s.call<{ releaseId: number }>(ana, 'releases/run', { queryId, params: tslm })
  expect(mine.outcome.ok, mine.body).toBe(true)
  for (let i = 0; i < bobReleases; i++) {
    const b = await s.call(bob, 'releases/run', { queryId, params: tslm })
    expect(b.outcome.ok, b.body).toBe(true)
  }
  const seen: Record<string, string> = { run: mine.body }
  const read = async (name: string, method: string, req: unknown) => (seen[name] = (await s.call(ana, method, req)).body)
  await read('summary', 'ledger/summary', {})
  await read('summary of the dataset', 'ledger/summary', { datasetId: id })
  await read('entries', 'ledger/entries', {})
  await read('entries of the dataset', 'ledger/entries', { datasetId: id, limit: 2 })
  await read('releases', 'releases/list', {})
  await read('releases of the dataset', 'releases/list', { datasetId: id })
  await read('her release', 'releases/get', { releaseId: mine.outcome.ok ? mine.outcome.value.releaseId : 0 })
  await read('a release not hers', 'releases/get', { releaseId: 2 })
  await read('preview', 'releases/preview', { queryId, params: tslm })
  await read('denial', 'releases/run', { queryId, params: tslm })
  await read('accuracy', 'releases/accuracy', { queryId, params: tslm })
  // The stream stays open past her last call's answer (the cadence is 50 ms): a frame for bob's work would be in it.
  await s.call(ana, 'accounts/whoami', {})
  events.stop()
  seen.events = events.frames.join('')
  return seen
}

describe("what an analyst reads of another analyst's releases", () => {
  it('is byte-identical whether the other analyst made 0 or 3 releases in between', async () => {
    const quiet = await world(0)
    const busy = await world(3)
    expect(Object.keys(busy)).toEqual(Object.keys(quiet))
    for (const k of Object.keys(quiet)) expect(masked(busy[k]), k).toBe(masked(quiet[k]))
    // What she reads is her own: one release, numbered 1; her allotment, its figures, her denial.
    const summary = JSON.parse(quiet['summary of the dataset']) as {
      value: { entries: number; headHash: string; datasets: Array<{ allotment: boolean; budgetPerUnitExact: string; byAnalyst: unknown[] }> }
    }
    expect(summary.value.headHash).toBe('')
    expect(summary.value.datasets[0]).toMatchObject({ allotment: true, budgetPerUnitExact: '5' })
    expect(summary.value.datasets[0].byAnalyst).toHaveLength(1)
    expect(JSON.parse(quiet.run).value.releaseId).toBe(1)
    expect(JSON.parse(quiet['a release not hers'])).toMatchObject({ ok: false, error: { code: 'not-found' } })
    expect(JSON.parse(quiet.denial)).toMatchObject({
      ok: false,
      error: { code: 'denied', message: expect.stringMatching(/of your allotment on dataset "visits" remains/) }
    })
    expect(JSON.parse(quiet.preview)).toMatchObject({ ok: true, value: { allowed: false, budgetExact: '5' } })
  }, 120_000)
})
