import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { main } from '../../../src-main/cli'
import type { Store } from '../../../src-main/services/store/store'
import { ledgerHandlers } from '../../../src-main/services/releases/ledger-handlers'
import { prepareRelease } from '../../../src-main/services/releases/prepare'
import { executePrepared, runRelease } from '../../../src-main/services/releases/release-service'
import { SecureRandom, seededRng } from '../../../src-worker/engine/random'
import { tempWorkspace } from '../helpers'
import { saveQuery as saveValidatedQuery } from '../../../src-main/services/datasets/query-store'
import { DISTINCTIVE, craftDataset, saveQuery, closeLedgerWorkspace, openLedgerWorkspace } from './fixtures'
import { officerAct } from '../officer-fixture'

let ws: ReturnType<typeof tempWorkspace>
let store: Store
let h: ReturnType<typeof ledgerHandlers>

beforeEach(() => {
  ;({ ws, store, h } = openLedgerWorkspace('qa-release-'))
})
afterEach(() => closeLedgerWorkspace(store, ws))

/**
 * Crafted data whose true values are distinctive numbers: the queried tuple ('X', 7919) occurs 7919 times (x_i and its
 * ball count are 7919), the search scores are large primes (the anomaly scores 179424673).
 */
function crafted() {
  const rows: Array<[string, number]> = []
  for (let i = 0; i < DISTINCTIVE[0]; i++) rows.push(['X', DISTINCTIVE[0]])
  rows.push(['Y', 3])
  const aiqDs = craftDataset(
    store.db,
    'visits',
    [
      { name: 'site', type: 'text' },
      { name: 'code', type: 'integer' }
    ],
    rows
  )
  const aiq = saveQuery(store.db, aiqDs, 'is X odd?', {
    kind: 'anomaly-identification',
    columns: ['site', 'code'],
    binWidths: [null, 1],
    metric: 'l1',
    radius: 0,
    maxNeighbours: 5,
    k: 1,
    records: [
      ['X', DISTINCTIVE[0]],
      ['Y', 3]
    ]
  })
  const people: Array<[string, number]> = []
  for (let i = 0; i < 64; i++) people.push([`person-${i}`, DISTINCTIVE[1] + 2 * i])
  people.push(['the-one', DISTINCTIVE[5]])
  const searchDs = craftDataset(
    store.db,
    'scores',
    [
      { name: 'who', type: 'text' },
      { name: 'score', type: 'integer' }
    ],
    people
  )
  const search = saveQuery(store.db, searchDs, 'find the one', {
    kind: 'anomaly-search',
    scoreColumn: 'score',
    idColumn: 'who',
    individuals: people.map((p) => p[0]),
    tLow: 2 * DISTINCTIVE[1],
    tHigh: DISTINCTIVE[4],
    epsilonPerQuery: 1,
    budget: 30,
    oracle: 'direct',
    top: 4
  })
  return { aiqDs, aiq, searchDs, search }
}

async function budgets(ids: number[]) {
  for (const datasetId of ids) await h['budgets/set']({ datasetId, epsilon: '100', reason: 'test budget', ...officerAct(store.db, 'olga') })
}

describe('the release path', () => {
  it('cannot be run with a seeded generator', async () => {
    const c = crafted()
    await budgets([c.aiqDs, c.searchDs])
    const aiq = prepareRelease(store.db, c.aiq, { kind: 'anomaly-identification', mechanism: 'dp', epsilon: 1 })
    expect(() => executePrepared(aiq, seededRng(1))).toThrow(/secure generator/)
    const search = prepareRelease(store.db, c.search, { kind: 'anomaly-search' })
    expect(() => executePrepared(search, seededRng('x'))).toThrow(/secure generator/)
    // A look-alike object claiming to be secure is refused too.
    expect(() => executePrepared(aiq, { kind: 'secure', next: () => 0.5 } as never)).toThrow(/secure generator/)
    expect(executePrepared(aiq, SecureRandom.create()).answer.kind).toBe('anomaly-identification')
    // The public entry points take no generator and no seed: their request types have no such field, and extra
    // fields are ignored (the release is still drawn from the secure generator).
    const r = runRelease(store.db, { queryId: c.aiq, params: { kind: 'anomaly-identification', mechanism: 'dp', epsilon: 1 }, seed: 42 } as never)
    expect(r.status).toBe('answered')
    expect(runRelease.length).toBe(2) // (db, req) plus an optional hooks object with defaults
  })

  it('shows decisions only: no true count, raw noisy value or ex-post cost in the answer, the response, the ledger or the CLI', async () => {
    const c = crafted()
    await budgets([c.aiqDs, c.searchDs])
    const outputs: string[] = []
    const a = await h['releases/run']({ queryId: c.aiq, params: { kind: 'anomaly-identification', mechanism: 'sp', epsilon: 1 } })
    const s = await h['releases/run']({ queryId: c.search, params: { kind: 'anomaly-search' } })
    expect(a.answer!.kind).toBe('anomaly-identification')
    expect(s.answer!.kind).toBe('anomaly-search')
    if (s.answer!.kind === 'anomaly-search') {
      expect(s.answer!.top).toHaveLength(4)
      // The posterior of the top-S is released, snapped to the 0.01 grid: one probability per shown individual, most
      // likely first, with at most two decimals (no float-resolution digits of the noise).
      const post = s.answer!.posterior!
      expect(post).toHaveLength(4)
      expect(s.answer!.posteriorGrid).toBe(0.01)
      for (const p of post) {
        expect(p).toBeGreaterThanOrEqual(0)
        expect(p).toBeLessThanOrEqual(1)
        expect(Math.abs(p * 100 - Math.round(p * 100))).toBeLessThan(1e-9)
        expect(String(p)).toMatch(/^(0|1|0\.\d{1,2})$/)
      }
      for (let i = 1; i < post.length; i++) expect(post[i]).toBeLessThanOrEqual(post[i - 1])
      expect(post.reduce((x, y) => x + y, 0)).toBeLessThanOrEqual(1 + 4 * 0.005 + 1e-9)
    }
    outputs.push(JSON.stringify(a), JSON.stringify(s))
    outputs.push(JSON.stringify(await h['releases/list']({})), JSON.stringify(await h['releases/get']({ releaseId: s.releaseId })))
    outputs.push(JSON.stringify(await h['ledger/entries']({})), JSON.stringify(await h['ledger/summary']({})))
    outputs.push(...(store.db.prepare('SELECT answer FROM releases').all() as Array<{ answer: string }>).map((r) => r.answer))
    store.close()
    for (const args of [
      ['ledger', '--db', ws.db],
      ['ledger', '--db', ws.db, '--json'],
      ['release', '--db', ws.db, '--query', String(c.search)]
    ]) {
      let out = ''
      let err = ''
      const code = await main(args, {
        stdout: { write: (x: string) => ((out += x), true) },
        stderr: { write: (x: string) => ((err += x), true) },
        cwd: ws.dir
      } as never)
      expect(code, err).toBe(0)
      outputs.push(out + err)
    }
    const all = outputs.join('\n')
    // The queried record's own value 7919 is part of the question (the record asked about), so look for the counts in
    // their other spellings, and for every score, which no output may contain.
    for (const v of DISTINCTIVE.slice(1)) expect(all).not.toContain(String(v))
    for (let i = 0; i < 64; i++) expect(all).not.toContain(String(DISTINCTIVE[1] + 2 * i))
    // The posterior of the top-S is public now (snapped); the queries used, the stopping reason and the risk stay sealed.
    expect(all).not.toMatch(/ballCount|"count"|privacyRisk|spentMax|perPredicate|"queries"|haltedBy|noisy"/)
    // Every posterior in the outputs is the released, snapped one.
    for (const m of all.matchAll(/"posterior":\[([^\]]*)\]/g)) for (const x of m[1].split(',')) expect(x).toMatch(/^(0|1|0\.\d{1,2})$/)
    // The x_i / ball count 7919 appears only as the queried record's value, never as a number on its own.
    const stripped = all.replaceAll(`["X",${DISTINCTIVE[0]}]`, '').replaceAll(`X, ${DISTINCTIVE[0]}`, '')
    expect(stripped).not.toContain(String(DISTINCTIVE[0]))
  })

  it('keeps ex-post costs sealed: only the officer unlock returns them, and the unlock is recorded', async () => {
    const c = crafted()
    await budgets([c.searchDs])
    const s = await h['releases/run']({ queryId: c.search, params: { kind: 'anomaly-search' } })
    const publicViews = JSON.stringify([
      await h['releases/get']({ releaseId: s.releaseId }),
      await h['releases/list']({}),
      await h['ledger/summary']({}),
      await h['ledger/entries']({})
    ])
    expect(publicViews).not.toMatch(/spentMax|queries"|exPost/)
    expect(store.db.prepare(`SELECT count(*) n FROM audit_events WHERE kind = 'officer/unlock-ex-post'`).get()).toEqual({ n: 0 })
    await expect(h['officer/unlock-ex-post']({ releaseId: s.releaseId, ...officerAct(store.db, 'olga'), reason: '' })).rejects.toThrow(
      /needs a reason/
    )
    const ex = await h['officer/unlock-ex-post']({ releaseId: s.releaseId, ...officerAct(store.db, 'olga'), reason: 'quarterly audit' })
    expect(ex.queries).toBeGreaterThan(0)
    expect(ex.queries).toBeLessThanOrEqual(30)
    expect(ex.spentMax).toBeLessThanOrEqual(s.epsilon)
    const ev = store.db.prepare(`SELECT actor, subject, detail FROM audit_events WHERE kind = 'officer/unlock-ex-post'`).all() as Array<{
      actor: string
      subject: string
      detail: string
    }>
    expect(ev).toHaveLength(1)
    expect(ev[0]).toMatchObject({ actor: 'olga', subject: `release:${s.releaseId}` })
    expect(JSON.parse(ev[0].detail)).toMatchObject({ reason: 'quarterly audit' })
  })

  it('previews the cost before anything is spent, and charges before it answers', async () => {
    const c = crafted()
    await h['budgets/set']({ datasetId: c.searchDs, epsilon: '20', reason: 'small budget', ...officerAct(store.db, 'olga') })
    const p = await h['releases/preview']({ queryId: c.search, params: { kind: 'anomaly-search' } })
    expect(p).toMatchObject({ allowed: false, epsilonExact: '30', remainingExact: '20', notion: 'anomaly-restricted-dp' })
    expect(p.denial).toMatch(/requests epsilon 30 .*only 20 of the 20 budget.*difference is 10/)
    expect(store.db.prepare('SELECT count(*) n FROM releases').get()).toEqual({ n: 0 })
    // An answer never exists without its charge: the charge is committed before the mechanism runs.
    await h['budgets/set']({ datasetId: c.searchDs, epsilon: '40', reason: 'raised for the test', ...officerAct(store.db, 'olga') })
    let seen: unknown
    runRelease(
      store.db,
      { queryId: c.search, params: { kind: 'anomaly-search' } },
      {
        afterCharge: (id) => {
          seen = store.db
            .prepare('SELECT r.status, e.amount_nano FROM releases r JOIN ledger_entries e ON e.release_id = r.id WHERE r.id = ?')
            .get(id)
        }
      }
    )
    expect(seen).toEqual({ status: 'charged', amount_nano: 30_000_000_000 })
  })
})

const COMMON = Date.UTC(2015, 0, 31, 10) // 200 rows
const RARE = Date.UTC(2015, 0, 31, 11) // 1 row

/**
 * Regression: a saved anomaly identification query whose records give values in a form that saving converts (a
 * timestamp as ISO text, a whole number as text) can be released, and the release compares them as saving stored them.
 * The release path used to refuse every non-number value on a non-text column, so such a saved query could never run.
 */
describe('anomaly identification records in converted forms', () => {
  it('releases a query saved with ISO timestamps and numbers as text, matching them as stored', async () => {
    const rows: Array<[number, number]> = Array.from({ length: 200 }, () => [COMMON, 3])
    rows.push([RARE, 3])
    const ds = craftDataset(
      store.db,
      'badge swipes',
      [
        { name: 'at', type: 'timestamp' },
        { name: 'floor', type: 'integer' }
      ],
      rows
    )
    // Saved through the datasets area's validation, which accepts these forms and keeps them as given.
    const records = [
      ['2015-01-31T10:00:00Z', 3],
      ['2015-01-31 11:00:00', '3'],
      ['2015-01-31T12:00:00Z', 3]
    ]
    const q = saveValidatedQuery(store.db, ds, 'odd swipe times', {
      kind: 'anomaly-identification',
      columns: ['at', 'floor'],
      binWidths: [60_000, 1],
      metric: 'linf',
      radius: 0,
      beta: 5,
      k: 1,
      records
    })
    expect(q.definition).toMatchObject({ records })
    await h['budgets/set']({ datasetId: ds, epsilon: '100', reason: 'test budget', ...officerAct(store.db, 'olga') })

    const r = await h['releases/run']({ queryId: q.id, params: { kind: 'anomaly-identification', mechanism: 'dp', epsilon: 20 } })
    expect(r.status).toBe('answered')
    expect(r.answer!.kind).toBe('anomaly-identification')
    if (r.answer!.kind !== 'anomaly-identification') return
    // The answer names the records as they were saved.
    expect(r.answer!.records.map((x) => x.record)).toEqual(records)
    // The rare time (1 row, ball count 1 <= beta 5) is an anomaly; the common one (200 rows) and a time absent from
    // the data (x_i = 0) are not. Each bit flips with probability at most e^(-eps lambda) / (1 + e^-eps) < e^-20 (eps 20,
    // lambda >= 1), so all three are right except with probability < 3 e^-20 ~ 6e-9. A record compared in another unit
    // or time zone would miss the rare row's bin and read as absent (not an anomaly).
    expect(r.answer!.records.map((x) => x.anomaly)).toEqual([false, true, false])
  })
})
