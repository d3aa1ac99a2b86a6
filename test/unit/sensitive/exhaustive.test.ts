/**
 * Exhaustive checks on small universes (ALGORITHMS.md section 2): the mdd formula against breadth-first search in the
 * add/remove-one-record graph, lambda_k against the k-sensitive graph, and the privacy of both mechanisms exactly
 * (ratios of output probabilities over every edge of the relevant graph, no sampling).
 */
import { describe, expect, it } from 'vitest'
import { flipProbability, isAnomaly, lambdaK, mdd } from '../../../src-worker/engine/sensitive/mechanism'
import { allBalls, Box, distanceToFlip, forEachEdge, gridUniverse, lineUniverse, type SmallUniverse } from './exhaustive-helpers'

interface Setting {
  u: SmallUniverse
  radii: number[]
  /** Starts: every database with counts 0..cap. */
  cap: number
  /** The BFS box: counts 0..cap2. */
  cap2: number
}

const settings: Setting[] = [
  { u: lineUniverse(4), radii: [0, 1, 2], cap: 2, cap2: 11 },
  { u: gridUniverse(2, 2, 'l1'), radii: [0, 1], cap: 2, cap2: 11 },
  { u: gridUniverse(2, 2, 'linf'), radii: [1], cap: 2, cap2: 11 }
]
const betas = [1, 2, 3]
const ks = [1, 2]
const epsilons = [0.1, 0.7, 2]

function labels(box: Box, balls: Int32Array, i: number, beta: number): Uint8Array {
  const n = box.u.size
  const out = new Uint8Array(box.states)
  for (let s = 0; s < box.states; s++) {
    const xi = box.count(s, i)
    out[s] = isAnomaly(xi, balls[s * n + i], beta) ? 1 : 0
  }
  return out
}

/** Both outputs: P(M(x) = b) <= e^eps P(M(y) = b) and the reverse (relative slack 1e-12 for rounding). */
function withinRatio(a: number, b: number, eps: number): boolean {
  const bound = Math.exp(eps) * (1 + 1e-12)
  return a <= bound * b && b <= bound * a && 1 - a <= bound * (1 - b) && 1 - b <= bound * (1 - a)
}

/** P(M(x) = 1) for Construction 1 with the given lambda. */
function pOne(label: number, lambda: number, eps: number): number {
  const t = flipProbability(lambda, eps)
  return label === 1 ? 1 - t : t
}

for (const st of settings) {
  describe(st.u.name, () => {
    const box = new Box(st.u, st.cap2)
    const n = st.u.size
    const xiOf = (s: number, i: number) => box.count(s, i)
    for (const r of st.radii) {
      const balls = allBalls(box, r)
      for (const beta of betas) {
        it(`r = ${r}, beta = ${beta}: mdd = BFS flip distance in the add/remove graph; the DP mechanism is eps-DP on every edge`, () => {
          const bad: string[] = []
          for (let i = 0; i < n; i++) {
            const label = labels(box, balls, i, beta)
            const dist = distanceToFlip(box, label, () => true)
            let starts = 0
            for (let s = 0; s < box.states; s++) {
              if (box.maxCount(s) > st.cap) continue
              starts++
              if (dist[s] > st.cap2 - st.cap) bad.push(`box too small for i = ${i}, x = ${box.decode(s)}`)
              const m = mdd(xiOf(s, i), balls[s * n + i], beta)
              if (m !== dist[s]) bad.push(`i = ${i}, x = ${box.decode(s)}: mdd ${m}, BFS ${dist[s]}`)
            }
            expect(starts).toBe((st.cap + 1) ** n)
            forEachEdge(
              box,
              () => true,
              (s, t) => {
                const ms = mdd(xiOf(s, i), balls[s * n + i], beta)
                const mt = mdd(xiOf(t, i), balls[t * n + i], beta)
                for (const eps of epsilons) {
                  if (!withinRatio(pOne(label[s], ms, eps), pOne(label[t], mt, eps), eps))
                    bad.push(`DP eps = ${eps}, i = ${i}, edge ${box.decode(s)} - ${box.decode(t)}`)
                }
              }
            )
          }
          expect(bad.slice(0, 5)).toEqual([])
        })
        for (const k of ks) {
          it(`r = ${r}, beta = ${beta}, k = ${k}: lambda_k >= 1, 1-Lipschitz on k-sensitive edges, <= BFS distance there; SP mechanism private on every edge`, () => {
            const sensitiveEdge = (s: number, t: number, j: number) => balls[s * n + j] + k > beta || balls[t * n + j] + k > beta
            let edges = 0
            forEachEdge(box, sensitiveEdge, () => edges++)
            expect(edges).toBeGreaterThan(0)
            const bad: string[] = []
            let exact = 0
            for (let i = 0; i < n; i++) {
              const label = labels(box, balls, i, beta)
              const dist = distanceToFlip(box, label, sensitiveEdge)
              const lam = (s: number) => lambdaK(xiOf(s, i), balls[s * n + i], beta, k)
              for (let s = 0; s < box.states; s++) {
                if (!(lam(s) >= 1)) bad.push(`lambda < 1 at i = ${i}, x = ${box.decode(s)}`)
                if (box.maxCount(s) > st.cap) continue
                // Either the box distance is exact, or the true distance is > cap2 - cap (possibly infinite: with r = 0 a
                // non-sensitive record's own count can never change), and lambda_k <= cap2 - cap + 1 still proves the bound.
                if (dist[s] <= st.cap2 - st.cap) {
                  exact++
                  if (lam(s) > dist[s]) bad.push(`i = ${i}, x = ${box.decode(s)}: lambda ${lam(s)} > BFS ${dist[s]}`)
                } else if (lam(s) > st.cap2 - st.cap + 1) bad.push(`i = ${i}, x = ${box.decode(s)}: lambda ${lam(s)} unchecked`)
              }
              forEachEdge(box, sensitiveEdge, (s, t) => {
                const ls = lam(s)
                const lt = lam(t)
                if (Math.abs(ls - lt) > 1) bad.push(`i = ${i}, edge ${box.decode(s)} - ${box.decode(t)}: not 1-Lipschitz`)
                for (const eps of epsilons) {
                  if (!withinRatio(pOne(label[s], ls, eps), pOne(label[t], lt, eps), eps)) {
                    bad.push(`SP eps = ${eps}, i = ${i}, edge ${box.decode(s)} - ${box.decode(t)}`)
                  }
                }
              })
            }
            expect(bad.slice(0, 5)).toEqual([])
            expect(exact).toBeGreaterThan(0)
          })
        }
      }
    }
  })
}

describe('the excerpt example (beta = 3, r = 1, k = 1, x = (3,0,0,0,1), i = 5 on a line of 5)', () => {
  it('distance 1 in the add/remove graph, 6 in the 1-sensitive graph; lambda_1 lies between 1 and 6, mdd = 1', () => {
    const u = lineUniverse(5)
    const cap2 = 9
    const box = new Box(u, cap2)
    const balls = allBalls(box, 1)
    const beta = 3
    const k = 1
    const i = 4
    const label = labels(box, balls, i, beta)
    const start = 3 + 1 * box.radix ** 4 // x = (3,0,0,0,1)
    const dp = distanceToFlip(box, label, () => true)
    const sp = distanceToFlip(box, label, (s, t, j) => balls[s * 5 + j] + k > beta || balls[t * 5 + j] + k > beta)
    expect(dp[start]).toBe(1)
    expect(sp[start]).toBe(6) // exact: 6 <= cap2 - 3
    const B = balls[start * 5 + i]
    expect(mdd(1, B, beta)).toBe(1)
    const lam = lambdaK(1, B, beta, k)
    expect(lam).toBeGreaterThan(1)
    expect(lam).toBeLessThanOrEqual(6)
  })
})
