/**
 * Noise relaxation (PrivRelax / gradual release), ALGORITHMS.md section 1 "Noise relaxation".
 *
 * Given v1 ~ Lap(1/e1) already used, draw v2 with v2 ~ Lap(1/e2) (e2 >= e1) from the exact conditional law, so that
 * releasing both costs only e2. One uniform picks the branch and a FRESH uniform gives the branch value; the sign of
 * v1 is kept. (The published reference code reuses the branch uniform and drops the sign: biased; not reproduced.)
 */
import * as samplers from '../batch-samplers'
import * as fastExp from '../fast-exp'
import { type Rng, uniformOpen } from '../random'

// Local bindings for the hot loop: a module import is read as a property at every use once compiled to CommonJS.
const { exponentialFromBits: expFromBits, uniformFromBits: unitFromBits } = samplers
const { expNegative } = fastExp

/** One relaxed draw v2 given v1 (unit sensitivity). */
export function relaxNoise(rng: Rng, v1: number, e1: number, e2: number): number {
  checkRelaxation(e1, e2)
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

/** The arguments `relaxFromBits` does not check itself (once per step, not per predicate). */
export function checkRelaxation(e1: number, e2: number): void {
  if (!(e1 > 0) || !Number.isFinite(e1) || !(e2 > 0) || !Number.isFinite(e2)) {
    throw new RangeError(`relaxation needs finite positive epsilons (got ${e1}, ${e2})`)
  }
  if (e2 < e1) throw new RangeError(`relaxation goes from a smaller to a larger epsilon (got ${e1} -> ${e2})`)
}

/**
 * `relaxNoise` for a whole step, with its uniforms given as sample words (batch-samplers.ts) drawn in one block, four per
 * predicate: for the q-th index i, noise[i] is relaxed from e1 to e2 with the branch uniform U(w[4q], w[4q+1]) and the
 * value uniform U(w[4q+2], w[4q+3]). The branch thresholds are computed as in `relaxNoise` (the same branches for the same
 * uniforms, but for a uniform within a few units in the last place of a threshold: d = exp(-(e2 - e1)|v1|) comes from
 * `expNegative`); ln U and -ln(1 - U) come from `exponentialFromBits` (1 - U(w2, w3) = U(~w2, ~w3)), so each value
 * equals `relaxNoise` fed these two uniforms up to the table logarithm's error (tested).
 */
export function relaxInPlace(noise: Float64Array, indices: ArrayLike<number>, count: number, e1: number, e2: number, words: Int32Array): void {
  checkRelaxation(e1, e2)
  if (e2 === e1) return
  const rate = e2 - e1
  const keepScale = e1 / e2
  const pNeg = (e2 - e1) / (2 * e2)
  const insideScale = (e1 + e2) / (2 * e2)
  const invSum = 1 / (e1 + e2)
  const invDiff = 1 / (e1 - e2)
  for (let q = 0; q < count; q++) {
    const i = indices[q]
    const v1 = noise[i]
    const a = Math.abs(v1)
    const d = expNegative(rate * a)
    const pKeep = keepScale * d
    const branch = unitFromBits(words[4 * q], words[4 * q + 1])
    if (branch < pKeep) continue
    const w2 = words[4 * q + 2]
    const w3 = words[4 * q + 3]
    let z: number
    if (branch < pKeep + pNeg) z = -expFromBits(w2, w3) * invSum
    else if (branch < pKeep + pNeg + insideScale * (1 - d)) z = Math.log(unitFromBits(w2, w3) * (d - 1) + 1) * invDiff
    else z = a + expFromBits(~w2, ~w3) * invSum
    noise[i] = v1 < 0 ? -z : z
  }
}
