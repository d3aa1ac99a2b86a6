/**
 * The belief f over the N = n+1 individuals, kept in log space so that thousands of Bayes updates neither underflow nor
 * lose the ordering of small probabilities, with linear weights alongside for the mass sums of the median split.
 *
 * Invariants: `weight[i] = exp(logF[i])` up to rounding (0 where it underflows), `max logF <= 0`, and the largest weight,
 * `maxWeight`, is at least 2^-64 (otherwise `refresh` shifts logF so that its maximum is 0 and recomputes every weight with
 * exp). `total` is the sum of the weights.
 *
 * Two updates:
 * - `update(mask, inQ, outQ)`: the general one; O(N) exp, always renormalised so that max logF = 0.
 * - `updateSplit(parts, threshold, delta, next?)`: the search's round (Q = parts below the threshold, see
 *   random-prefix.ts). Only the difference delta = inQ - outQ matters, so the side that loses (the complement when
 *   delta >= 0, Q otherwise) gets -|delta| added to its logF and its weights multiplied by exp(-|delta|): one exp per
 *   round instead of one per individual, in one sequential, branch-free pass that also sums the masses afresh (no
 *   running total that could drift), by the next round's parts when `next` is given. Weights only shrink, so nothing
 *   overflows; the full exp refresh runs only when the largest weight drops below 2^-64.
 */
import type { NextParts } from './random-prefix'
import { PART_BITS, PARTS, PARTS_PER_WORD, partOf } from './packed-parts'
import { SearchMemory } from './search-memory'

const REFRESH_BELOW = 2 ** -64
/** PARTS and PARTS_PER_WORD as constants of this module (see PART_SHIFT) */
const NPARTS = PARTS
const PER_WORD = PARTS_PER_WORD
/** PART_BITS as a constant of this module: the hot loops shift by it, and imported bindings are read afresh at each use */
const PART_SHIFT = PART_BITS

export class LogPosterior {
  readonly size: number
  /** log f(i) up to a common constant; the maximum is <= 0 (exactly 0 after `update` or a refresh) */
  readonly logF: Float64Array
  /** exp(logF[i]); sums to `total` */
  readonly weight: Float64Array
  total = 0
  maxWeight = 0
  /** sum of the weights except one largest, computed on demand (NaN: not yet computed for the current posterior) */
  private others = NaN
  /**
   * One round's small numbers in one array (each typed array a hot loop touches costs it a map and bounds check per
   * access in V8): [factor for the complement, factor for Q, shift for the complement, shift for Q, then the next
   * sixteen parts' masses].
   */
  private readonly round = new Float64Array(4)
  /** `updateWithNext`'s tables and pair sums (in the kernel's memory when it runs) */
  private readonly tables: Float64Array
  /** the arrays, and the kernel that runs the whole words when there is one (search-memory.ts) */
  private readonly memory: SearchMemory

  /** `memory`: the search's arrays, shared with its RandomPrefix (a fresh one by default). */
  constructor(size: number, memory?: SearchMemory) {
    if (!(Number.isInteger(size) && size >= 1)) throw new RangeError(`the posterior needs at least one individual (got ${size})`)
    if (memory !== undefined && memory.size !== size) throw new RangeError(`the search memory holds ${memory.size} individuals, not ${size}`)
    this.size = size
    this.memory = memory ?? new SearchMemory(size)
    this.tables = this.memory.tables
    this.weight = this.memory.weight
    this.logF = this.memory.logF
    // The uniform prior: logF = 0 and weight = exp(0) = 1 exactly (no exp pass needed).
    this.logF.fill(0)
    this.weight.fill(1)
    this.total = size
    this.maxWeight = 1
  }

  /** max_i f(i) */
  maxProbability(): number {
    return this.maxWeight / this.total
  }

  /**
   * Sum of the weights except one largest. Taken as total - max unless that is small next to the max, where the
   * subtraction would lose the digits; then summed separately so that tiny remainders keep their precision.
   */
  get othersTotal(): number {
    if (Number.isNaN(this.others)) {
      const wMax = this.maxWeight
      let o = this.total - wMax
      if (o < 1e-6 * wMax) {
        o = 0
        let skipped = false
        const w = this.weight
        for (let i = 0; i < this.size; i++) {
          if (!skipped && w[i] === wMax) skipped = true
          else o += w[i]
        }
      }
      this.others = o
    }
    return this.others
  }

  /** log(max f / (1 - max f)) = log(max weight) - log(sum of the other weights). */
  logOddsMax(): number {
    return Math.log(this.maxWeight) - Math.log(this.othersTotal)
  }

  /** f(i) */
  probability(i: number): number {
    return this.weight[i] / this.total
  }

  /** The normalised posterior as a new array. */
  toArray(): Float64Array {
    const out = new Float64Array(this.size)
    const inv = 1 / this.total
    for (let i = 0; i < this.size; i++) out[i] = this.weight[i] * inv
    return out
  }

  /** Add `inQ` to log f(i) for members of the query (mask 1) and `outQ` to the others, then renormalise. O(N) exp. */
  update(inQuery: Uint8Array, inQ: number, outQ: number): void {
    const l = this.logF
    for (let i = 0; i < this.size; i++) l[i] += inQuery[i] === 1 ? inQ : outQ
    this.refresh()
  }

  /**
   * The Bayes update of one search round: Q = {i : part(i) < threshold} (parts packed eight to a word, random-prefix.ts),
   * `delta` = (increment for Q) - (increment for the complement). Equivalent to `update` up to the common constant.
   *
   * With `next` (the next round's fresh parts, random-prefix.ts), the same pass also sums the next round's part masses
   * under the updated weights into `next.partMass`, so the next split can start at `splitLabelled`.
   */
  updateSplit(parts: Int32Array, threshold: number, delta: number, next?: NextParts): void {
    const n = this.size
    const l = this.logF
    const w = this.weight
    const r = this.round
    const loser = delta >= 0 ? 0 : 1
    r[loser] = Math.exp(-Math.abs(delta))
    r[1 - loser] = 1
    r[2 + loser] = -Math.abs(delta)
    r[3 - loser] = 0
    let total = 0
    let wMax = -Infinity // a double from the start, so the loop keeps it unboxed
    // Imported bindings are read afresh at every use (live bindings): the hot loops use local copies.
    const perWord = PARTS_PER_WORD
    const fieldMask = PARTS - 1
    if (next === undefined) {
      // Eight individuals per word, in an inner loop that keeps the words in registers.
      for (let i = 0, k = 0; i < n; k++) {
        let word = parts[k] | 0
        const end = Math.min(n, i + perWord)
        for (; i < end; i++) {
          const side = ((word & fieldMask) - threshold) >>> 31 // 1 iff in Q, without a branch
          word >>= PART_SHIFT
          const v = w[i] * r[side]
          w[i] = v
          l[i] += r[2 + side]
          total += v
          if (v > wMax) wMax = v
        }
      }
    } else {
      wMax = this.updateWithNext(parts, threshold, next)
      const mass = next.partMass
      for (let g = 0; g < NPARTS; g++) total += mass[g]
    }
    if (!(wMax >= REFRESH_BELOW)) {
      this.refresh()
      if (next !== undefined) {
        // The weights were recomputed: the next parts' masses follow them.
        const mass = next.partMass
        mass.fill(0)
        for (let i = 0; i < n; i++) mass[partOf(next.parts, i)] += w[i]
      }
      return
    }
    this.total = total
    this.maxWeight = wMax
    this.others = NaN
  }

  /**
   * The update of `updateSplit` with the next round's parts: multiplies each weight by its side's factor, adds its
   * side's shift to its log-weight, and sums the updated weights by next part into `next.partMass`; returns the largest
   * updated weight. Individuals are taken in pairs (2m, 2m + 1): the pair's byte of current parts selects both factors
   * and shifts from two 256-entry tables, and the pair's byte of next parts selects a pair of sums (lane 0: the even
   * individual, lane 1: the odd one), reduced to the sixteen parts at the end. The WebAssembly kernel
   * (wasm/search-update.wat, two individuals per vector) writes the tables, runs the whole words and reduces the sums;
   * this method's loops the rest (or everything, without the kernel), with the same operations in the same order: the
   * same bits either way.
   */
  private updateWithNext(parts: Int32Array, threshold: number, next: NextParts): number {
    const n = this.size
    const w = this.weight
    const l = this.logF
    const r = this.round
    const t = this.tables
    const memory = this.memory
    const kernel = memory.kernel
    const fresh = next.parts
    const fieldMask = NPARTS - 1
    const mass = next.partMass
    let wMax = -Infinity
    let start = 0
    // Factor table at 0, shift table at 512 (two doubles per byte), pair sums at 1024, part masses at 1536.
    if (kernel !== null) {
      kernel.tables(threshold, r[0], r[1], r[2], r[3])
      const full = (n / PER_WORD) | 0
      wMax = kernel.update(w.byteOffset, l.byteOffset, this.kernelWords(parts, 0), this.kernelWords(fresh, 1), full)
      start = full * PER_WORD
    } else {
      for (let hi = 0; hi < NPARTS; hi++) {
        const sideHi = (hi - threshold) >>> 31
        for (let lo = 0; lo < NPARTS; lo++) {
          const sideLo = (lo - threshold) >>> 31
          const b = 2 * (hi * NPARTS + lo)
          t[b] = r[sideLo]
          t[b + 1] = r[sideHi]
          t[512 + b] = r[2 + sideLo]
          t[513 + b] = r[2 + sideHi]
        }
      }
      t.fill(0, 1024, 1536)
    }
    for (let i = start; i < n; i++) {
      const k = i >>> 3
      const side = (((parts[k] >>> (PART_SHIFT * (i & 7))) & fieldMask) - threshold) >>> 31
      const pair = (fresh[k] >>> (8 * ((i >>> 1) & 3))) & 255
      const v = w[i] * r[side]
      w[i] = v
      l[i] += r[2 + side]
      if (v > wMax) wMax = v
      t[1024 + 2 * pair + (i & 1)] += v
    }
    if (kernel !== null) {
      kernel.reduce()
      for (let g = 0; g < NPARTS; g++) mass[g] = t[1536 + g]
    } else {
      mass.fill(0)
      for (let b = 0; b < 256; b++) {
        mass[b & fieldMask] += t[1024 + 2 * b]
        mass[b >>> PART_SHIFT] += t[1025 + 2 * b]
      }
    }
    return wMax
  }

  /** The kernel's address of the words `a`: where they lie when in its memory, else a copy's (copy `which`). */
  private kernelWords(a: Int32Array, which: 0 | 1): number {
    if (this.memory.holds(a)) return a.byteOffset
    const copy = this.memory.copies[which]
    copy.set(a.subarray(0, copy.length))
    return copy.byteOffset
  }

  /** Shift logF so that its maximum is 0 and recompute every weight and the totals (O(N) exp). */
  refresh(): void {
    const l = this.logF
    const w = this.weight
    const n = this.size
    let max = -Infinity
    for (let i = 0; i < n; i++) if (l[i] > max) max = l[i]
    if (!Number.isFinite(max)) throw new Error('posterior lost all its mass (an update was -Infinity everywhere)')
    let total = 0
    for (let i = 0; i < n; i++) {
      const v = l[i] - max
      l[i] = v
      const e = v < -745 ? 0 : Math.exp(v) // exp underflows to 0 there anyway; skipping it saves time
      w[i] = e
      total += e
    }
    this.maxWeight = 1
    this.total = total
    this.others = NaN
  }

  /**
   * The k indices with the largest posterior, largest first; ties are ordered uniformly at random, as if broken by a fresh
   * random permutation of all N (paper section 6.2), using `randomInt(m)` (uniform in [0, m)) only for the tied candidates:
   * the strictly larger ones are shuffled then stably sorted, and the missing places are filled by a uniformly drawn ordered
   * sample of the individuals tied at the k-th largest value.
   */
  topRandomTies(k: number, randomInt: (m: number) => number): number[] {
    const n = this.size
    const kk = Math.min(k, n)
    if (kk <= 0) return []
    const l = this.logF
    // The kk-th largest value.
    let kth: number
    if (kk > 64) {
      kth = Float64Array.from(l).sort()[n - kk]
    } else {
      const best = new Float64Array(kk).fill(-Infinity)
      for (let i = 0; i < n; i++) {
        const v = l[i]
        if (v <= best[kk - 1]) continue
        let pos = kk - 1
        while (pos > 0 && best[pos - 1] < v) {
          best[pos] = best[pos - 1]
          pos--
        }
        best[pos] = v
      }
      kth = best[kk - 1]
    }
    const above: number[] = []
    const tied: number[] = []
    for (let i = 0; i < n; i++) {
      if (l[i] > kth) above.push(i)
      else if (l[i] === kth) tied.push(i)
    }
    shuffleInPlace(above, above.length, randomInt)
    above.sort((a, b) => l[b] - l[a]) // stable: equal values keep their random order
    const need = kk - above.length
    shuffleInPlace(tied, need, randomInt)
    for (let r = 0; r < need; r++) above.push(tied[r])
    return above
  }
}

/** Partial Fisher-Yates: the first `count` places of `a` become a uniformly drawn ordered sample of its elements. */
function shuffleInPlace(a: number[], count: number, randomInt: (m: number) => number): void {
  const m = a.length
  for (let r = 0; r < count && r < m - 1; r++) {
    const j = r + randomInt(m - r)
    const t = a[j]
    a[j] = a[r]
    a[r] = t
  }
}
