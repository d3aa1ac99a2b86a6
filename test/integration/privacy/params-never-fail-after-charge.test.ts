/**
 * Every parameter a release request's schema accepts is answered, or refused before the charge with one sentence:
 * never charged and then failed. fast-check draws parameters of every requested kind from the contract's ranges
 * (contract/release-params.ts: each bound and the doubles next to it, and anything between) and, one time in four,
 * any double (5e-324, 1e-300, 1.797e308, 1e300: the schema must refuse those it does not accept), runs each through the doors' request
 * schema and then the real release path (preview, then run with the secure generator) on a workspace with one query
 * per kind, and asserts: the schema refuses it, or the preview refuses it with a UserError and nothing is written, or
 * the release is answered. A ReleaseFailedError (charged, then failed) or any other error fails the property.
 *
 * The attack it stops: on the main before this test, eps1 = 5e-324 (DPPWLM) was charged and then failed, alpha =
 * 1.797e308 was charged and answered "An internal error occurred", alpha <= 1e-9, beta = 5e-324 and epsMax = 1e300
 * answered "An internal error occurred".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { releaseParamsSchema } from '../../../src-main/contract/schemas/requests'
import { previewRelease, runRelease } from '../../../src-main/services/releases/release-service'
import { ReleaseFailedError, isUserError } from '../../../src-main/services/platform/errors'
import type { ReleaseParams } from '../../../src-main/contract/ledger'
import { type NumberRange, RELEASE_PARAMS } from '../../../src-main/contract/release-params'
import { DEMO_QUERIES, type DemoWorkspace, buildDemo } from '../alarms/demo-fixture'

let demo: DemoWorkspace
beforeAll(async () => {
  demo = await buildDemo()
}, 120_000)
afterAll(() => demo?.cleanup())

const T = RELEASE_PARAMS.threshold
const A = RELEASE_PARAMS.anomalyIdentification

/** The next double above / below x. */
function nextDouble(x: number, dir: 1 | -1): number {
  const b = new Float64Array([x])
  const i = new BigInt64Array(b.buffer)
  if (x === 0) return dir * 5e-324
  i[0] += BigInt((x > 0 ? 1 : -1) * dir)
  return b[0]
}

/**
 * Numbers the contract's range accepts, edges first: each bound and the doubles next to it, then anything between;
 * and, one time in four, any double at all (the edges the schema must refuse: 5e-324, 1e-300, 1.797e308, 1e300).
 */
function numbers(range: NumberRange): fc.Arbitrary<number> {
  const lo = range.ge ?? (range.gt !== undefined ? nextDouble(range.gt, 1) : 5e-324)
  const hi = range.le ?? (range.lt !== undefined ? nextDouble(range.lt, -1) : 1.7976931348623157e308)
  const inside = range.integer
    ? fc.integer({ min: Math.ceil(lo), max: Math.floor(hi) })
    : fc.oneof(fc.constantFrom(lo, hi, nextDouble(lo, 1), nextDouble(hi, -1)), fc.double({ min: lo, max: hi, noNaN: true }))
  const outside = fc.oneof(fc.constantFrom(5e-324, 1e-300, 1e-9, 1e300, 1.7976931348623157e308), fc.double({ noNaN: true }))
  return fc.oneof({ arbitrary: inside, weight: 3 }, { arbitrary: outside, weight: 1 })
}

const thresholdParams = fc.record(
  {
    kind: fc.constant('threshold' as const),
    mechanism: fc.constantFrom(...T.mechanism.choices),
    beta: numbers(T.beta.range),
    alpha: numbers(T.alpha.range),
    epsMax: numbers(T.epsMax.range),
    eps1: numbers(T.eps1.range),
    steps: numbers(T.steps.range),
    fineSteps: numbers(T.fineSteps.range)
  },
  { requiredKeys: ['kind', 'mechanism', 'beta', 'alpha'] }
)
const aiqParams = fc.record({
  kind: fc.constant('anomaly-identification' as const),
  mechanism: fc.constantFrom(...A.mechanism.choices),
  epsilon: numbers(A.epsilon.range)
})
const searchParams = fc.constant({ kind: 'anomaly-search' as const })

const QUERY: Record<ReleaseParams['kind'], number> = {
  threshold: DEMO_QUERIES.threshold,
  'anomaly-identification': DEMO_QUERIES.aiq,
  'anomaly-search': DEMO_QUERIES.search
}

type Outcome = 'schema' | 'refused' | 'answered'

function attempt(db: import('better-sqlite3').Database, raw: unknown): Outcome {
  const parsed = releaseParamsSchema.safeParse(raw)
  if (!parsed.success) return 'schema'
  const params = parsed.data as ReleaseParams
  const req = { queryId: QUERY[params.kind], params }
  const releasesBefore = (db.prepare('SELECT COUNT(*) AS n FROM releases').get() as { n: number }).n
  try {
    const p = previewRelease(db, req)
    if (!p.allowed) return 'refused'
  } catch (e) {
    if (!isUserError(e) || e instanceof ReleaseFailedError) throw e
    expect((db.prepare('SELECT COUNT(*) AS n FROM releases').get() as { n: number }).n).toBe(releasesBefore)
    return 'refused'
  }
  try {
    const r = runRelease(db, req)
    expect(r.status).toBe('answered')
    return 'answered'
  } catch (e) {
    if (e instanceof ReleaseFailedError || !isUserError(e))
      throw new Error(`charged then failed, or an internal error, for ${JSON.stringify(raw)}: ${String(e)}`, { cause: e })
    // A refusal at the charge (a denial, a budget): nothing was released.
    expect((db.prepare("SELECT COUNT(*) AS n FROM releases WHERE status != 'answered'").get() as { n: number }).n).toBe(0)
    return 'refused'
  }
}

describe('accepted release parameters are answered or refused before the charge', () => {
  it('never charged and then failed (every requested kind, edges included; seed 44)', () => {
    const store = demo.copy()
    const seen: Record<Outcome, number> = { schema: 0, refused: 0, answered: 0 }
    fc.assert(
      fc.property(fc.oneof(thresholdParams, aiqParams, searchParams), (raw) => {
        seen[attempt(store.db, raw)]++
      }),
      { seed: 44, numRuns: 200 }
    )
    // The property is not vacuous: draws reach each outcome, most of them past the schema.
    expect(seen.answered).toBeGreaterThan(20)
    expect(seen.refused).toBeGreaterThan(0)
    expect(seen.schema).toBeGreaterThan(0)
  })

  it.each([
    { kind: 'threshold', mechanism: 'dppwlm', beta: 0.05, alpha: 1, eps1: 5e-324 },
    { kind: 'threshold', mechanism: 'tslm', beta: 0.05, alpha: 1.7976931348623157e308 },
    { kind: 'threshold', mechanism: 'tslm', beta: 0.05, alpha: 1e-9 },
    { kind: 'threshold', mechanism: 'tslm', beta: 0.05, alpha: 1e-300 },
    { kind: 'threshold', mechanism: 'tslm', beta: 0.05, alpha: 5e-324 },
    { kind: 'threshold', mechanism: 'tslm', beta: 5e-324, alpha: 1 },
    { kind: 'threshold', mechanism: 'ppwlm', beta: 0.05, alpha: 1, epsMax: 1e300 }
  ])('the reported input $mechanism beta $beta alpha $alpha eps1 $eps1 epsMax $epsMax is answered or refused before the charge', (raw) => {
    const store = demo.copy()
    expect(['schema', 'refused', 'answered']).toContain(attempt(store.db, raw))
  })
})
