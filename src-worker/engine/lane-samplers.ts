/**
 * Laplace draws and noise relaxation from sample words, by polynomials instead of tables, so that they run two at a
 * time in the WebAssembly kernel (wasm/samplers.wat, which holds the formulas). The functions here are its twin: the
 * same IEEE operations in the same order on one value (no fused multiply-add on either side), so a draw has the same
 * bits whichever ran. `laplaceLanes` and `relaxLanes` take their words and values in a `LaneSamplerMemory`: the
 * kernel's memory when it runs (whole pairs there, an odd last item here), plain arrays otherwise.
 *
 * - `logUnit(u)`: ln u for u in (0, 1] (normal), within about two units in the last place.
 * - `expNegative(x)`: exp(-x) for x >= 0, relative error below 1e-15 up to x = 708; larger x are taken as 708 (a value
 *   below 4e-308 whose every use here, a branch probability or 1 - d, gives what the exact value gives).
 * - A Laplace draw from two words is that of batch-samplers.ts (`laplaceFromBits`: scale ln U(x), or -scale ln U(~x)
 *   when the sign bit is set), with this logarithm.
 * - A relaxation is `relaxNoise` (mide/relax.ts: the exact conditional law) fed the branch uniform U(w0, w1) and the
 *   value uniform U(w2, w3), four words per value, with these exp and log.
 */
import { uniformFromBits } from './batch-samplers'
import { type SamplersKernel, samplersKernel } from './wasm/kernels'

const LN2_HI = 6.9314718036912381649e-1 // ln 2 to 32 bits: n LN2_HI is exact for |n| < 2^21
const LN2_LO = 1.90821492927058770002e-10 // ln 2 - LN2_HI
const SQRT2 = 1.4142135623730951
const ROUNDER = 6755399441055744 // 1.5 2^52: x + ROUNDER - ROUNDER rounds x to a whole number (ties to even)
const EXP_MAX = 708

const bits = new Float64Array(1)
const words = new Int32Array(bits.buffer) // [low, high] (little-endian, as every platform Node and Electron run on)

/** POW2_NEG[n] = 2^-n, n = 0..1022 */
const POW2_NEG = new Float64Array(1023)
for (let n = 0, p = 1; n < POW2_NEG.length; n++, p /= 2) POW2_NEG[n] = p

/** ln u for u in (0, 1], normal (see the header and samplers.wat). */
export function logUnit(u: number): number {
  bits[0] = u
  const high = words[1]
  let e = ((high >>> 20) & 0x7ff) - 1023
  words[1] = (high & 0xfffff) | 0x3ff00000
  let m = bits[0]
  if (m > SQRT2) {
    m = m * 0.5
    e = e + 1
  }
  const f = m - 1
  const s = f / (2 + f)
  const z = s * s
  let p = 1 / 21
  p = 1 / 19 + z * p
  p = 1 / 17 + z * p
  p = 1 / 15 + z * p
  p = 1 / 13 + z * p
  p = 1 / 11 + z * p
  p = 1 / 9 + z * p
  p = 1 / 7 + z * p
  p = 1 / 5 + z * p
  p = 1 / 3 + z * p
  p = 1 + z * p
  return e * LN2_HI + (e * LN2_LO + (s + s) * p)
}

/** exp(-x) for x >= 0 (see the header and samplers.wat). */
export function expNegative(x: number): number {
  x = Math.min(x, EXP_MAX)
  const t = x * 1.4426950408889634 + ROUNDER
  const n = t - ROUNDER
  const r = x - n * LN2_HI - n * LN2_LO
  let p = -1 / 6227020800
  p = 1 / 479001600 + r * p
  p = -1 / 39916800 + r * p
  p = 1 / 3628800 + r * p
  p = -1 / 362880 + r * p
  p = 1 / 40320 + r * p
  p = -1 / 5040 + r * p
  p = 1 / 720 + r * p
  p = -1 / 120 + r * p
  p = 1 / 24 + r * p
  p = -1 / 6 + r * p
  p = 0.5 + r * p
  p = -1 + r * p
  p = 1 + r * p
  return p * POW2_NEG[n]
}

/** One Laplace(0, scale) draw from two words (see the header). */
export function laplaceLane(hi: number, lo: number, scale: number): number {
  const mask = hi >> 31
  const v = scale * logUnit(uniformFromBits(hi ^ mask, lo ^ mask))
  return mask === 0 ? v : -v
}

/** The constants of one relaxation step from e1 to e2 (as `relaxNoise` computes them). */
export interface RelaxStep {
  rate: number
  keepScale: number
  pNeg: number
  insideScale: number
  invSum: number
  invDiff: number
}

export function relaxStep(e1: number, e2: number): RelaxStep {
  return {
    rate: e2 - e1,
    keepScale: e1 / e2,
    pNeg: (e2 - e1) / (2 * e2),
    insideScale: (e1 + e2) / (2 * e2),
    invSum: 1 / (e1 + e2),
    invDiff: 1 / (e1 - e2)
  }
}

/** v1 relaxed by one step with the uniforms of words w0..w3 (see the header). */
export function relaxLane(v1: number, w0: number, w1: number, w2: number, w3: number, c: RelaxStep): number {
  const a = Math.abs(v1)
  const d = expNegative(c.rate * a)
  const pKeep = c.keepScale * d
  const branch = uniformFromBits(w0, w1)
  if (branch < pKeep) return v1
  let z: number
  if (branch < pKeep + c.pNeg) z = logUnit(uniformFromBits(w2, w3)) * c.invSum
  else if (branch < pKeep + c.pNeg + c.insideScale * (1 - d)) z = logUnit(uniformFromBits(w2, w3) * (d - 1) + 1) * c.invDiff
  else z = a - logUnit(uniformFromBits(~w2, ~w3)) * c.invSum
  return v1 < 0 ? -z : z
}

/** Values and their words for up to `capacity` items: in the kernel's memory when it runs. */
export interface LaneSamplerMemory {
  readonly capacity: number
  /** one value per item */
  readonly values: Float64Array
  /** four words per item (two per Laplace draw) */
  readonly words: Int32Array
  readonly kernel: { run: SamplersKernel; valuesAt: number; wordsAt: number } | null
}

/** Below this many items the twins run alone (the kernel's memory is not worth making). */
const KERNEL_MIN_ITEMS = 16

const align16 = (bytes: number) => (bytes + 15) & ~15

export function laneSamplerMemory(capacity: number): LaneSamplerMemory {
  const valuesAt = 0
  const wordsAt = align16(8 * capacity)
  const run = capacity >= KERNEL_MIN_ITEMS ? samplersKernel(wordsAt + 16 * capacity) : null
  if (run === null) return { capacity, values: new Float64Array(capacity), words: new Int32Array(4 * capacity), kernel: null }
  const buffer = run.memory.buffer
  return {
    capacity,
    values: new Float64Array(buffer, valuesAt, capacity),
    words: new Int32Array(buffer, wordsAt, 4 * capacity),
    kernel: { run, valuesAt, wordsAt }
  }
}

function checkScale(scale: number): void {
  if (!(scale > 0) || !Number.isFinite(scale)) throw new RangeError(`Laplace scale must be positive and finite (got ${scale})`)
}

/** values[0..count) = Laplace(0, scale) draws from words[0..2 count) (two words each). */
export function laplaceLanes(mem: LaneSamplerMemory, count: number, scale: number): void {
  checkScale(scale)
  const { values, words: w, kernel } = mem
  let from = 0
  if (kernel !== null) {
    kernel.run.laplace(kernel.wordsAt, kernel.valuesAt, count >> 1, scale)
    from = count & ~1
  }
  for (let i = from; i < count; i++) values[i] = laplaceLane(w[2 * i], w[2 * i + 1], scale)
}

/** values[0..count) relaxed from e1 to e2 with words[0..4 count) (four words each). */
export function relaxLanes(mem: LaneSamplerMemory, count: number, e1: number, e2: number): void {
  if (!(e1 > 0) || !Number.isFinite(e1) || !(e2 > 0) || !Number.isFinite(e2)) {
    throw new RangeError(`relaxation needs finite positive epsilons (got ${e1}, ${e2})`)
  }
  if (e2 < e1) throw new RangeError(`relaxation goes from a smaller to a larger epsilon (got ${e1} -> ${e2})`)
  if (e2 === e1) return
  const c = relaxStep(e1, e2)
  const { values, words: w, kernel } = mem
  let from = 0
  if (kernel !== null) {
    kernel.run.relax(kernel.valuesAt, kernel.wordsAt, count >> 1, c.rate, c.keepScale, c.pNeg, c.insideScale, c.invSum, c.invDiff)
    from = count & ~1
  }
  for (let q = from; q < count; q++) values[q] = relaxLane(values[q], w[4 * q], w[4 * q + 1], w[4 * q + 2], w[4 * q + 3], c)
}
