/** NLM (baseline, no false-negative guarantee) and TSLM (Alg. 1): one Laplace draw per predicate. */
import { drawLaneWords } from '../batch-samplers'
import type { Rng } from '../random'
import type { MechanismCore } from './outcome'
import { type SingleStepKernel, singleStepKernel, wasmKernelsEnabled } from '../wasm/kernels'
import { ThresholdWorkspace } from './workspace'

const TWO_32 = 4294967296
const TWO_52 = 4503599627370496

/**
 * Compare g_i + Lap(1/eps) with c_i - shift. NLM: shift 0 (no guarantee). TSLM: shift alpha, eps = ln(1/(2 beta))/alpha.
 * The result points into `ws`.
 *
 * The decision only asks whether the noise X exceeds tau_i = c_i - shift - g_i, so it is read from the draw's uniform
 * instead of computing X: a draw is two sample words (batch-samplers.ts: sign bit s and 52-bit x; X = scale ln U(x) < 0
 * for s = 0 and X = -scale ln U(~x) > 0 for s = 1, U(x) = (x + 1/2) 2^-52), and with q = exp(-|tau|/scale):
 *   tau >= 0: X > tau  <=>  s = 1 and U(~x) < q   <=>  s = 1 and x > 2^52 - 1/2 - q 2^52;
 *   tau <  0: X > tau  <=>  s = 1 or  U(x) > q    <=>  s = 1 or  x > q 2^52 - 1/2.
 * Both are one comparison of the draw's 53-bit key y = s 2^52 + x with a whole number: y > 2^52 + floor(2^52 - 1/2 - q 2^52)
 * and y > floor(q 2^52 - 1/2) (x is whole, and x <= 2^52 - 1 < 2^52 <= y when s = 1). The cut per predicate (`cutsFor`)
 * depends on the inputs only, so a Monte Carlo batch computes it once for all its trials; a trial then draws its 2k words
 * from the generator's lanes (`Rng.fillLaneWords`) and compares integers: no logarithm. The decisions are those of the
 * inverse-CDF draw `laplaceFromBits` for the same words, but for draws within rounding (about 1e-14) of a cut.
 *
 * The comparisons run in the WebAssembly kernel (wasm/single-step.wat, two draws per vector; for a seeded generator it
 * also steps the four xoshiro lanes, as one vector) when it runs, else in the loop below, its twin: the same words and
 * the same integer comparisons, so the same decisions.
 */
export function runShiftedLaplace(
  counts: ArrayLike<number>,
  thresholds: ArrayLike<number>,
  eps: number,
  shift: number,
  beta: number,
  rng: Rng,
  ws: ThresholdWorkspace = new ThresholdWorkspace(counts.length)
): MechanismCore {
  const k = counts.length
  const { decisions, exPost } = ws
  const cuts = cutsFor(ws, counts, thresholds, eps, shift)
  const cut = cuts.cut
  const kernel = k >= KERNEL_MIN_PREDICATES ? loadedKernel(k, cuts) : null
  let w: Int32Array
  let pos = 0
  let from = 0
  if (kernel) {
    // whole pairs in the kernel, an odd last draw below (from the next group of lane words, as fillLaneWords(2k) would)
    const pairs = k >> 1
    const lanes = rng.laneState()
    if (lanes !== null) {
      kernel.state.set(lanes)
      pos = kernel.kernel.decideLanes(kernel.stateAt, kernel.cutsAt, kernel.outAt, pairs)
      lanes.set(kernel.state)
    } else {
      rng.fillLaneWords(kernel.words, 4 * pairs)
      pos = kernel.kernel.decide(kernel.wordsAt, kernel.cutsAt, kernel.outAt, pairs)
    }
    from = 2 * pairs
    decisions.set(kernel.out.subarray(0, from))
    w = kernel.words
    if (from < k) rng.fillLaneWords(w.subarray(2 * from), 2)
  } else w = drawLaneWords(rng, 2 * k)
  for (let i = from; i < k; i++) {
    const hi = w[2 * i]
    const y = (hi >>> 31) * TWO_52 + (hi & 0xfffff) * TWO_32 + (w[2 * i + 1] >>> 0)
    const d = y > cut[i] ? 1 : 0
    decisions[i] = d
    pos += d
  }
  exPost.fill(eps, 0, k)
  return {
    decisions,
    exPost,
    steps: [{ epsilon: eps, beta, alpha: shift, tested: k, decidedPositive: pos, eliminated: k - pos, undecided: 0 }],
    levels: [{ epsilon: eps, count: k }]
  }
}

/** Below this many predicates the loop runs alone (the kernel is not worth a call). */
const KERNEL_MIN_PREDICATES = 16

/** The per-predicate cuts of the header for these inputs, kept in the workspace while the inputs stay the same. */
function cutsFor(ws: ThresholdWorkspace, counts: ArrayLike<number>, thresholds: ArrayLike<number>, eps: number, shift: number) {
  const c = ws.singleStepCuts
  if (c.counts === counts && c.thresholds === thresholds && c.eps === eps && c.shift === shift) return c
  const scale = 1 / eps
  for (let i = 0; i < counts.length; i++) {
    const tau = thresholds[i] - shift - counts[i]
    const q = Math.exp(-Math.abs(tau) / scale)
    c.cut[i] = tau >= 0 ? TWO_52 + Math.floor(TWO_52 - 0.5 - q * TWO_52) : Math.floor(q * TWO_52 - 0.5)
  }
  c.counts = counts
  c.thresholds = thresholds
  c.eps = eps
  c.shift = shift
  c.version++
  return c
}

const align16 = (bytes: number) => (bytes + 15) & ~15

/**
 * The kernel of this thread with its arrays (lane states, words, cuts, decisions: views on its memory at the byte
 * offsets given) for up to `capacity` predicates, and whose cuts its cuts array holds. One per thread, made again only
 * for a larger workload: making a kernel's memory costs more than a batch of trials.
 */
interface SingleStepRun {
  kernel: SingleStepKernel
  capacity: number
  state: Int32Array
  words: Int32Array
  cuts: Int32Array
  out: Uint8Array
  stateAt: number
  wordsAt: number
  cutsAt: number
  outAt: number
  loaded: ThresholdWorkspace['singleStepCuts'] | null
  loadedVersion: number
}

let shared: SingleStepRun | null = null

/** The kernel holding `cuts` (copied in when it held another workspace's), or null when the kernels do not run. */
function loadedKernel(k: number, cuts: ThresholdWorkspace['singleStepCuts']): SingleStepRun | null {
  if (!wasmKernelsEnabled()) return null
  if (shared === null || shared.capacity < k) shared = singleStepRun(Math.max(k, 2 * (shared?.capacity ?? 0)))
  if (shared === null) return null
  if (shared.loaded !== cuts || shared.loadedVersion !== cuts.version) {
    // the same whole numbers (-1 <= cut < 2^53) as little-endian 64-bit integers
    const words = shared.cuts
    for (let i = 0; i < k; i++) {
      const high = Math.floor(cuts.cut[i] / TWO_32)
      words[2 * i] = (cuts.cut[i] - high * TWO_32) | 0
      words[2 * i + 1] = high | 0
    }
    shared.loaded = cuts
    shared.loadedVersion = cuts.version
  }
  return shared
}

function singleStepRun(capacity: number): SingleStepRun | null {
  const stateAt = 0
  const wordsAt = 64
  const cutsAt = wordsAt + align16(8 * capacity)
  const outAt = cutsAt + align16(8 * capacity)
  const kernel = singleStepKernel(outAt + align16(capacity))
  if (kernel === null) return null
  const buffer = kernel.memory.buffer
  return {
    kernel,
    capacity,
    state: new Int32Array(buffer, stateAt, 16),
    words: new Int32Array(buffer, wordsAt, 2 * capacity),
    cuts: new Int32Array(buffer, cutsAt, 2 * capacity),
    out: new Uint8Array(buffer, outAt, capacity),
    stateAt,
    wordsAt,
    cutsAt,
    outAt,
    loaded: null,
    loadedVersion: -1
  }
}
