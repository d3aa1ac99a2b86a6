import { describe, expect, it } from 'vitest'
import { laplaceSumCdf, laplaceSumInterval, laplaceSumTail } from '../../../src-worker/engine/mide/laplace-sum'

// Reference by numeric integration: P(X + Y <= x) = int f_a(y) F_b(x - y) dy (Simpson, fine grid) - independent of the closed form.
function numericCdf(x: number, a: number, b: number): number {
  const Fb = (t: number) => (t < 0 ? 0.5 * Math.exp(b * t) : 1 - 0.5 * Math.exp(-b * t))
  const fa = (y: number) => 0.5 * a * Math.exp(-a * Math.abs(y))
  const lim = 40 / a
  // integrate on [-lim, 0] and [0, lim] separately (kink at 0) and split at x (kink of F_b)
  const near = 30 / b // F_b changes on the scale 1/b around x: integrate that part on its own fine grid
  const pts = [-lim, 0, x, x - near, x + near]
    .filter((p) => p >= -lim && p <= lim)
    .concat([lim])
    .sort((p, q) => p - q)
  let s = 0
  for (let j = 0; j + 1 < pts.length; j++) {
    const lo = pts[j],
      hi = pts[j + 1]
    if (hi <= lo) continue
    const n = 4000
    const hstep = (hi - lo) / n
    let acc = 0
    for (let i = 0; i <= n; i++) {
      const y = lo + i * hstep
      const w = i === 0 || i === n ? 1 : i % 2 ? 4 : 2
      acc += w * fa(y) * Fb(x - y)
    }
    s += (acc * hstep) / 3
  }
  return s
}

describe('sum of two Laplace variables (closed form for Eq. 12)', () => {
  it('matches numeric integration of the convolution', () => {
    for (const [a, b] of [
      [0.5, 1.5],
      [1, 1],
      [1, 1 + 1e-9],
      [0.01, 3],
      [2, 0.3]
    ] as const) {
      for (const x of [-5, -1, -0.1, 0, 0.3, 2, 7]) {
        expect(Math.abs(laplaceSumCdf(x / Math.min(a, b), a, b) - numericCdf(x / Math.min(a, b), a, b))).toBeLessThan(1e-7)
      }
    }
  })

  it('is symmetric, has tail 1/2 at 0 and intervals add up', () => {
    expect(laplaceSumTail(0, 0.3, 2)).toBe(0.5)
    expect(laplaceSumCdf(-1.3, 0.3, 2)).toBeCloseTo(1 - laplaceSumCdf(1.3, 0.3, 2), 14)
    const total = laplaceSumInterval(-3, -1, 0.7, 1.1) + laplaceSumInterval(-1, 2, 0.7, 1.1) + laplaceSumInterval(2, 5, 0.7, 1.1)
    expect(total).toBeCloseTo(laplaceSumInterval(-3, 5, 0.7, 1.1), 14)
    // tails far out keep relative precision (no 1 - (1 - tiny))
    const far = laplaceSumInterval(60, 61, 1, 2)
    expect(far).toBeGreaterThan(0)
    expect(far / laplaceSumTail(60, 1, 2)).toBeGreaterThan(0.5)
  })
})
