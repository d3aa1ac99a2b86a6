/**
 * Noise relaxation (PrivRelax / gradual release), ALGORITHMS.md section 1 "Noise relaxation".
 *
 * Given v1 ~ Lap(1/e1) already used, draw v2 with v2 ~ Lap(1/e2) (e2 >= e1) from the exact conditional law, so that
 * releasing both costs only e2. One uniform picks the branch and a FRESH uniform gives the branch value; the sign of
 * v1 is kept. (The published reference code reuses the branch uniform and drops the sign: biased; not reproduced.)
 */
import { type Rng, uniformOpen } from '../random'

/** One relaxed draw v2 given v1 (unit sensitivity). */
export function relaxNoise(rng: Rng, v1: number, e1: number, e2: number): number {
  if (!(e1 > 0) || !Number.isFinite(e1) || !(e2 > 0) || !Number.isFinite(e2)) {
    throw new RangeError(`relaxation needs finite positive epsilons (got ${e1}, ${e2})`)
  }
  if (e2 < e1) throw new RangeError(`relaxation goes from a smaller to a larger epsilon (got ${e1} -> ${e2})`)
  if (e2 === e1) return v1
  const a = Math.abs(v1)
  const sign = v1 < 0 ? -1 : 1
  const d = Math.exp(-(e2 - e1) * a)
  const pKeep = (e1 / e2) * d
  const pNeg = (e2 - e1) / (2 * e2)
  const pInside = ((e1 + e2) / (2 * e2)) * (1 - d)
  const branch = rng.next()
  if (branch < pKeep) return v1
  const u = uniformOpen(rng)
  let z: number
  if (branch < pKeep + pNeg) {
    // opposite side of zero: z = ln(U)/(e1+e2) < 0
    z = Math.log(u) / (e1 + e2)
  } else if (branch < pKeep + pNeg + pInside) {
    // between 0 and a: inverse CDF of the density proportional to exp(-(e2-e1) z) on [0, a]
    z = Math.log(u * (d - 1) + 1) / (e1 - e2)
  } else {
    // beyond a: a + Exp(e1+e2)
    z = a - Math.log(1 - u) / (e1 + e2)
  }
  return sign * z
}
