/**
 * A search never spends on a question it cannot answer (on the demo's 900 persons): a budget that cannot separate the
 * listed individuals down to the top S, or that stops before the paper's expected number of questions, is refused
 * before the charge with the smallest budget that can, nothing spent and the refusal recorded; the refusal depends on
 * public inputs only. An admitted search that ends undecided says so and names no one as the anomaly.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { AnomalySearchDefinition } from '../../../src-main/contract/datasets'
import { previewRelease, runRelease } from '../../../src-main/services/releases/release-service'
import { prepareRelease } from '../../../src-main/services/releases/prepare'
import { releaseText } from '../../../src-main/services/ledger/ledger-text'
import { saveQuery } from '../../../src-main/services/datasets/query-store'
import { UserError } from '../../../src-main/services/platform/errors'
import { seededRng } from '../../../src-worker/engine/random'
import { craftDataset } from '../ledger/fixtures'
import { setBudget } from '../../../src-main/services/ledger/budgets'
import { DEMO_QUERIES, type DemoWorkspace, buildDemo } from './demo-fixture'

// Seeded runs of prepared releases (deterministic tests); the service's own path still takes no seed.
vi.mock('../../../src-worker/engine/random', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../src-worker/engine/random')>()
  return { ...real, assertSecure: () => undefined }
})

let demo: DemoWorkspace
beforeAll(async () => {
  demo = await buildDemo()
}, 120_000)
afterAll(() => demo?.cleanup())

const PERSON_HOURS = 3
const ids = Array.from({ length: 900 }, (_, i) => `P${String(i + 1).padStart(4, '0')}`)
const search = (epsilonPerQuery: number, budget: number): AnomalySearchDefinition => ({
  kind: 'anomaly-search',
  scoreColumn: 'hours_on_site',
  idColumn: 'person_id',
  individuals: ids,
  tLow: 50,
  tHigh: 120,
  epsilonPerQuery,
  budget,
  oracle: 'direct',
  top: 4
})

const count = (store: ReturnType<DemoWorkspace['copy']>, sql: string) => (store.db.prepare(sql).get() as { n: number }).n

describe('a search never spends on a question it cannot answer', () => {
  it('5 questions among 900 persons: refused before the charge with the smallest budget that can decide, recorded, nothing spent', () => {
    const store = demo.copy()
    const q = saveQuery(store.db, PERSON_HOURS, 'five questions', search(1, 5))
    // log2(900 / 4) = 7.8: 8 questions separate 900 down to 4 with exact answers. At epsilon 1 the binarised error bound
    // p = (1/2 + x/4) e^-x, x = eps (t_h - t_l) / t_l = 1.4, leaves 1 - h2(p) = 0.26 bits per answer (Prop. 3's rate):
    // 7.8 / 0.26 = 30.2, so 31 questions, a budget of 31.
    const x = 1.4
    const pe = (0.5 + x / 4) * Math.exp(-x)
    const h2 = -(pe * Math.log2(pe) + (1 - pe) * Math.log2(1 - pe))
    const expected = Math.ceil(Math.log2(900 / 4) / (1 - h2))
    expect(expected).toBe(31)
    const f = { neededQueries: expected }
    const before = { entries: count(store, 'SELECT COUNT(*) AS n FROM ledger_entries'), releases: count(store, 'SELECT COUNT(*) AS n FROM releases') }
    let err: unknown
    try {
      runRelease(store.db, { queryId: q.id, params: { kind: 'anomaly-search' }, actor: 'analyst' })
    } catch (e) {
      err = e
    }
    expect(err).toBeInstanceOf(UserError)
    expect((err as UserError).code).toBe('cannot-decide')
    const msg = (err as UserError).message
    expect(msg).toMatch(/^Refused, nothing spent: this search may ask at most 5 questions/)
    expect(msg).toContain('needs at least 8 questions even if every answer were exact')
    expect(msg).toContain(`a budget of at least ${f.neededQueries} (${f.neededQueries} questions at epsilon 1)`)
    expect(count(store, 'SELECT COUNT(*) AS n FROM ledger_entries')).toBe(before.entries)
    expect(count(store, 'SELECT COUNT(*) AS n FROM releases')).toBe(before.releases)
    const audit = store.db.prepare(`SELECT detail FROM audit_events WHERE kind = 'release/refused'`).all() as Array<{ detail: string }>
    expect(audit.map((a) => JSON.parse(a.detail) as { code: string; queryId: number })).toEqual([
      expect.objectContaining({ code: 'cannot-decide', queryId: q.id })
    ])
    // The preview refuses with the same sentence; at the budget it names, the search is admitted.
    expect(() => previewRelease(store.db, { queryId: q.id, params: { kind: 'anomaly-search' } })).toThrow(msg)
    const ok = saveQuery(store.db, PERSON_HOURS, 'enough', search(1, f.neededQueries))
    expect(() => prepareRelease(store.db, ok.id, { kind: 'anomaly-search' })).not.toThrow()
    const short = saveQuery(store.db, PERSON_HOURS, 'one short', search(1, f.neededQueries - 1))
    expect(() => prepareRelease(store.db, short.id, { kind: 'anomaly-search' })).toThrow(/Refused, nothing spent/)
  })

  it('the refusal reads public inputs only: the same sentence whatever the scores', () => {
    const store = demo.copy()
    const cols = [
      { name: 'person_id', type: 'text' as const },
      { name: 'hours_on_site', type: 'real' as const }
    ]
    const flat = craftDataset(
      store.db,
      'flat',
      cols,
      ids.map((p) => [p, 30])
    )
    const spike = craftDataset(
      store.db,
      'spike',
      cols,
      ids.map((p, i) => [p, i === 417 ? 900 : 10])
    )
    const messages = [flat, spike].map((d) => {
      const q = saveQuery(store.db, d, 'q', search(1, 5))
      try {
        prepareRelease(store.db, q.id, { kind: 'anomaly-search' })
        return 'admitted'
      } catch (e) {
        return (e as Error).message
      }
    })
    expect(messages[0]).toMatch(/^Refused/)
    expect(messages[1]).toBe(messages[0])
  })

  it('an admitted search that ends undecided says "inconclusive" with the top posterior and names no one', () => {
    const store = demo.copy()
    // Nobody stands out (every score 30): the posterior never passes 0.5, whatever the noise.
    const flat = craftDataset(
      store.db,
      'flat scores',
      [
        { name: 'person_id', type: 'text' },
        { name: 'hours_on_site', type: 'real' }
      ],
      ids.map((p) => [p, 30])
    )
    setBudget(store.db, { datasetId: flat, epsilon: '100', reason: 'test', ...officerActDemo() })
    const q = saveQuery(store.db, flat, 'flat', search(2, 44))
    const r = runRelease(store.db, { queryId: q.id, params: { kind: 'anomaly-search' }, actor: 'analyst' })
    const a = r.answer
    expect(a?.kind).toBe('anomaly-search')
    if (a?.kind !== 'anomaly-search') return
    expect(a.conclusive).toBe(false)
    expect(a.posterior![0]).toBeLessThan(0.5)
    expect(a.verdict).toBe(
      `Inconclusive: the most likely individual has posterior ${a.posterior![0].toFixed(2)} (a finding needs 0.5); no one is singled out.`
    )
    const text = releaseText(r)
    for (const id of a.top) expect(text).not.toContain(String(id))
    expect(text).toContain('Inconclusive')
  })

  it('a search that stands out is conclusive: the demo finds its planted person with the budget it is admitted with', () => {
    const store = demo.copy()
    // The demo's own release (query 3) at the budget it now saves (22 questions at epsilon 2); run with fixed seeds.
    const p = prepareRelease(store.db, DEMO_QUERIES.search, { kind: 'anomaly-search' })
    let found = 0
    for (let i = 0; i < 10; i++) {
      const out = p.execute(seededRng(`demo-search-${i}`))
      if (out.answer.kind === 'anomaly-search' && out.answer.conclusive && out.answer.top[0] === 'P0418') {
        found++
        // A finding at tau 0.5 is "most likely", with the chance it is someone else from the released posterior.
        const best = out.answer.posterior![0]
        expect(out.answer.verdict).toBe(
          `Most likely the anomaly: person_id P0418, with posterior ${best.toFixed(2)} (the search stops once one reaches 0.5); it is someone else with probability ${(1 - best).toFixed(2)} by the search's own account.`
        )
      }
    }
    expect(found).toBeGreaterThanOrEqual(9)
  })
})

/** The demo's officer (its passphrase is printed by the demo) for budgets on datasets the tests add. */
function officerActDemo() {
  return { officer: 'Privacy Officer (demo)', passphrase: 'quiet alarm demo officer' }
}
