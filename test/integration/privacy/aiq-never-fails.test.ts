/**
 * After the charge, an anomaly identification release must not fail, or take another path, because of the private
 * values (a failure is a bit the analyst reads for almost nothing: a bin overflow on max(minutes) would tell it).
 * Property test: random columns with extreme values (up to +-1e300, empty selections, one row, many categories), random
 * bin widths, radii, metrics and records; whenever prepare accepts the query (it sees only public inputs), execute answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { saveQuery } from '../../../src-main/services/datasets/query-store'
import { prepareRelease } from '../../../src-main/services/releases/prepare'
import { executePrepared } from '../../../src-main/services/releases/release-service'
import { openStore, type Store } from '../../../src-main/services/store/store'
import { SecureRandom, seededRng } from '../../../src-worker/engine/random'
import { craftDataset } from '../ledger/fixtures'
import { tempWorkspace } from '../helpers'

let ws: ReturnType<typeof tempWorkspace>
let store: Store
beforeAll(() => {
  ws = tempWorkspace('qa-aiq-fuzz-')
  store = openStore(ws.db)
})
afterAll(() => {
  store.close()
  ws.cleanup()
})

describe('anomaly identification never fails on private values', () => {
  it('300 random datasets and queries: prepare refuses (public reasons) or execute answers', () => {
    const rng = seededRng('aiq-fuzz')
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rng.next() * xs.length)]
    const extremes = [0, 1, -1, 1e300, -1e300, 2 ** 31, -(2 ** 31), 1e-300, 123.456, 5e15]
    let answered = 0
    let refused = 0
    for (let t = 0; t < 300; t++) {
      const n = pick([0, 1, 2, 50])
      const rows: Array<[number | null, string | null]> = Array.from({ length: n }, () => [
        rng.next() < 0.2 ? null : rng.next() < 0.5 ? pick(extremes) : (rng.next() - 0.5) * 10 ** Math.floor(rng.next() * 12),
        rng.next() < 0.1 ? null : `c${Math.floor(rng.next() * (rng.next() < 0.5 ? 3 : 10_000))}`
      ])
      const id = craftDataset(
        store.db,
        `fuzz-${t}`,
        [
          { name: 'x', type: 'real' },
          { name: 'cat', type: 'text' }
        ],
        rows
      )
      const q = saveQuery(store.db, id, 'q', {
        kind: 'anomaly-identification',
        columns: ['x', 'cat'],
        binWidths: [pick([1e-300, 1e-9, 0.5, 1, 1e6, 1e300]), null],
        metric: pick(['l1', 'linf', 'l2', 'hamming'] as const),
        radius: pick([0, 1, 2.5, 1000]),
        beta: pick([1, 3, 10]),
        k: pick([1, 2]),
        records: Array.from({ length: pick([1, 3]) }, () => [pick(extremes), `c${Math.floor(rng.next() * 5)}`])
      })
      let prepared
      try {
        prepared = prepareRelease(store.db, q.id, { kind: 'anomaly-identification', mechanism: pick(['dp', 'sp'] as const), epsilon: 0.5 })
      } catch (e) {
        // Refused before the charge: only for public reasons (the records asked about, the bin widths, the radius).
        expect((e as Error).message).toMatch(/record's value|reach beyond the bins|too far apart/)
        refused++
        continue
      }
      const out = executePrepared(prepared, SecureRandom.create())
      expect(out.answer.kind).toBe('anomaly-identification')
      answered++
    }
    expect(answered).toBeGreaterThanOrEqual(100)
    expect(refused).toBeGreaterThan(0)
  })
})
