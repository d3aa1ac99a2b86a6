/**
 * Verdicts the guarantee supports (threshold queries, on the demo): a flag says "over its threshold or at most 2 alpha
 * under it", never "over threshold"; a denial's suggestion never proposes an alpha whose tolerance 2 alpha reaches the
 * public thresholds it judges (the demo's smallest room capacity is 4), and says what else would fit; a preview warns
 * when 2 alpha reaches a threshold. Everything here is computed from public inputs (capacities are public).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { previewRelease, runRelease } from '../../../src-main/services/releases/release-service'
import { releaseText } from '../../../src-main/services/ledger/ledger-text'
import { saveQuery } from '../../../src-main/services/datasets/query-store'
import { DEMO_QUERIES, type DemoWorkspace, buildDemo } from './demo-fixture'

let demo: DemoWorkspace
beforeAll(async () => {
  demo = await buildDemo()
}, 120_000)
afterAll(() => demo?.cleanup())

const SMALLEST_CAPACITY = 4
const tslm = (alpha: number, beta: number) => ({ kind: 'threshold' as const, mechanism: 'tslm' as const, alpha, beta })

describe('threshold verdicts on the demo (capacities 4 to 200, public)', () => {
  it('a denial never suggests an alpha whose tolerance 2 alpha reaches the smallest capacity; it says why and what else fits', () => {
    const store = demo.copy()
    // 4.70 left; beta 1e-9 at alpha 1 costs ln(5e8) = 20.0: the old suggestion was alpha >= 4.3 (a tolerance of 8.6 persons).
    const p = previewRelease(store.db, { queryId: DEMO_QUERIES.threshold, params: tslm(1, 1e-9) })
    expect(p.allowed).toBe(false)
    expect(p.fit).toBeTruthy()
    for (const f of p.fit!.fits) if (f.param === 'alpha') expect(2 * f.value).toBeLessThan(SMALLEST_CAPACITY)
    expect(p.fit!.fits.some((f) => f.param === 'alpha')).toBe(false)
    expect(p.fit!.sentence).toMatch(/no alpha fits below 2 \(half the smallest threshold, 4/)
    // beta still fits (a miss rate the analyst can judge), and its price does.
    const beta = p.fit!.fits.find((f) => f.param === 'beta')!
    expect(beta.value).toBeGreaterThan(1e-9)
    expect(Number(beta.epsilonExact)).toBeLessThanOrEqual(Number(p.remainingExact))
  })

  it('an alpha that fits below half the smallest threshold is still proposed', () => {
    const store = demo.copy()
    // At beta 0.05, alpha 0.4 costs ln(10)/0.4 = 5.76 > 4.70 left; alpha 0.5 costs 4.61 and 2 x 0.5 < 4.
    const p = previewRelease(store.db, { queryId: DEMO_QUERIES.threshold, params: tslm(0.4, 0.05) })
    expect(p.allowed).toBe(false)
    const a = p.fit!.fits.find((f) => f.param === 'alpha')!
    expect(a.value).toBeGreaterThan(0.4)
    expect(2 * a.value).toBeLessThan(SMALLEST_CAPACITY)
  })

  it('a preview warns when 2 alpha reaches a threshold, and names how many groups it swallows', () => {
    const store = demo.copy()
    expect(previewRelease(store.db, { queryId: DEMO_QUERIES.threshold, params: tslm(1, 0.05) }).warnings).toEqual([])
    const p = previewRelease(store.db, { queryId: DEMO_QUERIES.threshold, params: tslm(20, 0.05) })
    expect(p.warnings).toHaveLength(1)
    // Capacities <= 40: every room but A-101 (120), A-102 (80), B-103 (60), C-101 (200), C-201 (90).
    expect(p.warnings![0]).toMatch(/up to 40 under its threshold, which reaches the threshold of 27 of the 32 groups \(the smallest is 4\)/)
    expect(previewRelease(store.db, { queryId: DEMO_QUERIES.threshold, params: tslm(2, 0.05) }).warnings).toHaveLength(1)
  })

  it('an answer carries its tolerance and says "flagged (may be up to 2 alpha under)", never "over their threshold"', () => {
    const store = demo.copy()
    const r = runRelease(store.db, { queryId: DEMO_QUERIES.threshold, params: tslm(20, 0.05) })
    expect(r.answer?.kind).toBe('threshold')
    if (r.answer?.kind !== 'threshold') return
    expect(r.answer.tolerance).toBe(40)
    const text = releaseText(r)
    expect(text).not.toMatch(/as over their threshold/)
    expect(text).toMatch(/each over its threshold or at most 40 under it/)
  })

  it("the demo's DPPWLM answer states DPPWLM's band (about 5.84 alpha), not TSLM's 2 alpha", () => {
    const store = demo.copy()
    const dppwlm = { kind: 'threshold' as const, mechanism: 'dppwlm' as const, alpha: 1, beta: 0.05 }
    const p = previewRelease(store.db, { queryId: DEMO_QUERIES.threshold, params: dppwlm })
    expect(p.guarantee).toMatch(/within 5\.837 below its threshold may be flagged/)
    expect(p.guarantee).not.toMatch(/within 2 below/)
    // The band 5.84 reaches the smallest capacity (4): the preview says so, with the alpha that would not.
    expect(p.warnings![0]).toMatch(/up to 5\.837 under its threshold.*An alpha below 0\.685/)
    const r = runRelease(store.db, { queryId: DEMO_QUERIES.threshold, params: dppwlm })
    if (r.answer?.kind !== 'threshold') throw new Error('not a threshold answer')
    expect(r.answer.tolerance).toBeCloseTo(5.837, 3)
    expect(releaseText(r)).toMatch(/each over its threshold or at most 5\.837 under it/)
  })

  it('on a person-level count without maxGroups, the denial proposes fewer groups per person (a new query) with its price', () => {
    const store = demo.copy()
    const q = saveQuery(store.db, 1, 'every room, no maxGroups', {
      kind: 'threshold',
      period: { column: 'timestamp', from: '2024-03-12T14:00:00Z', to: '2024-03-12T15:00:00Z' },
      groupBy: ['building', 'room'],
      count: { kind: 'persons', personColumn: 'person_id', cap: 2 },
      threshold: { kind: 'column', datasetId: 2, column: 'capacity' }
    })
    // 32 groups x cap 2 x ln(10)/1 = 147 against 4.70 left.
    const p = previewRelease(store.db, { queryId: q.id, params: tslm(1, 0.05) })
    expect(p.allowed).toBe(false)
    expect(p.fit!.sentence).toMatch(
      /edit the query \(a new version\) counting each person in at most 1 group \("Groups one person may add to" 1, maxGroups; .*\) \(costs 4\.6/
    )
    expect(p.fit!.fits.some((f) => f.param === 'alpha')).toBe(false)
  })
})
