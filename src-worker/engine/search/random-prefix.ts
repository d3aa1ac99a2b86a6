/**
 * The median split of a search round: walk a fresh uniform random order of the individuals and put into Q the longest
 * prefix whose mass stays below half the total, or the one just past half when that brings Q's mass closer to half (see
 * private-binary-search.ts), without drawing the whole order.
 *
 * The order is drawn lazily as the order of iid uniform random binary keys (a uniform permutation: keys tie with
 * probability 0), a few key bits per individual and level, and only as deep as the split needs, like quickselect. The
 * candidates (initially everyone, preceded in the order by individuals of total mass `before` = 0) are split by fresh key
 * bits into parts in key order. The first part whose cumulative mass, added to `before`, reaches half holds the individual
 * that crosses half: the parts before it precede that individual (all in Q, added to `before`), the parts after it follow
 * it (complement), and the search continues among its members. A single candidate is the crossing individual; the rule
 * decides whether it joins Q. Three bits per level (eight parts), ten parts per 32-bit random word: a round visits about
 * 8N/7 candidates and uses about N/9 words. The first level is a sequential pass that writes each individual's part as a
 * label, so most of Q is defined by a threshold on the labels rather than marked, and no individual is moved; the search
 * does that pass inside the posterior update of the round before (`LogPosterior.updateSplit` with this as its
 * `PartLabeller`), so a round reads the individuals twice, not three times.
 * This is exactly the distribution of walking a fresh uniform permutation (checked against enumeration in the tests).
 *
 * The random words come in batches (`Rng.fillWords`: the CSPRNG's own buffer for releases, the seeded generator's 32-bit
 * steps for simulations), so the hot loops do not call the generator. Uniform integers (for tie-breaking) are exact:
 * Lemire's multiply-and-reject on 26-bit blocks (the top 26 bits of a word). (The buffer draws ahead: the generator's
 * stream is shared with the oracle's noise in another interleaving than one-at-a-time drawing, which changes seeded
 * outputs but no distribution: every word is used once.)
 */
import type { Rng } from '../random'

const TWO_26 = 67108864
const INV_TWO_26 = 1 / TWO_26
/** random words per refill of the small buffer for uniform integers */
const TIE_WORDS = 64
/** three-bit parts taken from one 32-bit word */
export const PARTS_PER_WORD = 10

/** The next round's first-level split, drawn during an update (implemented by RandomPrefix). */
export interface PartLabeller {
  /** a buffer whose first `count` words are fresh uniform random 32-bit words, drawn in one batch */
  freshWords(count: number): Int32Array
  /** the eight parts' masses, written by the update */
  readonly partMass: Float64Array
}

/** parts per level of the split (three key bits per candidate and level) */
export const PARTS = 8
const WAYS = PARTS
/** label of an individual taken out of a full Q (above every threshold) */
const OUT = WAYS + 1

export class RandomPrefix implements PartLabeller {
  /** random words for the parts, drawn in one batch per pass (a hot loop must not call out: it would lose its registers) */
  private readonly keyWords: Int32Array
  /** random words for uniform integers; tieWords[tiePos..] are unused */
  private readonly tieWords = new Int32Array(TIE_WORDS)
  private tiePos = TIE_WORDS
  /** the candidates of the current level */
  private readonly cur: Int32Array
  /** the eight parts of a deeper level: part g holds parts[g * stride .. g * stride + count[g]) (grown on demand) */
  private parts = new Int32Array(0)
  private stride = 0
  private readonly count = new Int32Array(WAYS)
  private readonly mass = new Float64Array(WAYS)

  constructor(readonly size: number, private readonly rng: Rng) {
    this.cur = new Int32Array(size)
    this.keyWords = new Int32Array(Math.ceil(size / PARTS_PER_WORD))
  }

  /** The key-word buffer with its first `count` (at most ceil(size / 10)) words freshly drawn. */
  freshWords(count: number): Int32Array {
    this.rng.fillWords(this.keyWords, count)
    return this.keyWords
  }

  /** 26 uniform random bits (an integer in [0, 2^26)). */
  bits26(): number {
    if (this.tiePos === TIE_WORDS) {
      this.rng.fillWords(this.tieWords)
      this.tiePos = 0
    }
    return this.tieWords[this.tiePos++] >>> 6
  }

  /**
   * Uniform integer in [0, m), exactly, for 1 <= m <= 2^26 (Lemire: floor(x m / 2^26) for a 26-bit x, rejecting the
   * (2^26 mod m) lowest remainders that would bias it; x m < 2^52 is exact in a double). m = 1 draws nothing.
   * A plain multiply beyond 2^26.
   */
  uniformInt(m: number): number {
    if (m <= 1) return 0
    if (m > TWO_26) return Math.floor(this.rng.next() * m)
    for (;;) {
      const p = this.bits26() * m
      const hi = Math.floor(p * INV_TWO_26)
      const lo = p - hi * TWO_26
      if (lo >= m || lo >= TWO_26 % m) return hi
    }
  }

  /**
   * The median split for weights `w` (length `size`, sum `total`). Writes a label per individual and returns a threshold
   * T: Q = {i : label[i] < T}. |Q| is between 1 and size - 1 (degenerate posteriors, with all the mass on one individual or
   * float rounding, still give two non-empty sides: an empty Q takes the first individual of the order, a full Q gives up
   * the last).
   *
   * Labels: the first level writes 1 + part (1..8) for everyone in index order, so the parts before the crossing part are
   * Q by the threshold T = 1 + crossing part with no further writes; inside the crossing part, members that join Q get 0
   * and the others keep T; `OUT` (9) marks an individual taken out of a full Q.
   */
  split(w: Float64Array, total: number, label: Uint8Array): number {
    this.labelParts(w, label)
    return this.splitLabelled(w, total, label)
  }

  /** The masses of the eight first-level parts (filled by `labelParts`, or by `LogPosterior.updateSplit` when relabelling). */
  get partMass(): Float64Array {
    return this.mass
  }

  /**
   * The first level of a split on its own: a fresh part 1..8 per individual in index order, and the parts' masses
   * (`partMass`). `LogPosterior.updateSplit` can do the same inside its update pass (see there), saving a pass per round.
   */
  labelParts(w: Float64Array, label: Uint8Array): void {
    const n = this.size
    const mass = this.mass
    const words = this.freshWords(Math.ceil(n / PARTS_PER_WORD))
    mass.fill(0)
    for (let i = 0, pos = 0; i < n; ) {
      let word = words[pos++] | 0
      const end = Math.min(n, i + PARTS_PER_WORD)
      for (; i < end; i++) {
        const g = word & 7
        word >>= 3
        label[i] = g + 1
        mass[g] += w[i]
      }
    }
  }


  /**
   * The rest of the split, after the first level: `label` holds a fresh part 1..8 per individual (drawn from this
   * generator) and `partMass` the parts' masses under `w`. Returns T as `split` does.
   */
  splitLabelled(w: Float64Array, total: number, label: Uint8Array): number {
    const n = this.size
    const half = total / 2
    const count = this.count
    const mass = this.mass
    let g0 = 0
    let before = 0
    while (g0 < WAYS - 1 && before + mass[g0] < half) before += mass[g0++]
    const T = g0 + 1
    // Gather the crossing part's members and count Q so far (branch-free: (x - T) >>> 31 is 1 iff x < T).
    const cur = this.cur
    let cnt = 0
    let inQ = 0
    for (let i = 0; i < n; i++) {
      const l = label[i]
      cur[cnt] = i
      cnt += ((l ^ T) - 1) >>> 31
      inQ += (l - T) >>> 31
    }
    if (cnt === 0) {
      // Only by float rounding (the mass was enough to reach half): no crossing individual, so everyone is in Q.
      let last = 0
      for (let i = 0; i < n; i++) if (label[i] >= label[last]) last = i
      label[last] = OUT
      return T
    }
    if (cnt > this.stride) {
      // Every deeper part is a subset of the crossing part: room for eight of its size (with slack for later rounds).
      this.stride = Math.min(n, Math.ceil(cnt * 1.5))
      this.parts = new Int32Array(WAYS * this.stride)
    }
    const parts = this.parts
    const stride = this.stride
    let crossing = -1
    let includeCrossing = false
    for (;;) {
      if (cnt === 1) {
        // The crossing individual: include it only if that brings Q's mass closer to half.
        crossing = cur[0]
        const next = before + w[crossing]
        includeCrossing = !(next >= half && next - half >= half - before)
        break
      }
      // Split the candidates by three fresh key bits each into eight parts, in key order (part 0 first).
      count.fill(0)
      mass.fill(0)
      const words = this.freshWords(Math.ceil(cnt / PARTS_PER_WORD))
      for (let r = 0, pos = 0; r < cnt; ) {
        let word = words[pos++] | 0
        const end = Math.min(cnt, r + PARTS_PER_WORD)
        for (; r < end; r++) {
          const g = word & 7
          word >>= 3
          const i = cur[r]
          const c = count[g]
          parts[g * stride + c] = i
          count[g] = c + 1
          mass[g] += w[i]
        }
      }
      // The part holding the crossing individual: the first whose cumulative mass reaches half (non-empty then, as
      // before < half); the parts before it join Q, the parts after it are the complement.
      let g = 0
      let acc = before
      while (g < WAYS - 1 && acc + mass[g] < half) acc += mass[g++]
      for (let h = 0; h < g; h++) {
        const base = h * stride
        for (let r = 0; r < count[h]; r++) label[parts[base + r]] = 0
        inQ += count[h]
      }
      before = acc
      cnt = count[g]
      if (cnt === 0) {
        // Only by float rounding (the candidates' mass was enough to reach half): no crossing individual.
        if (inQ === n) {
          for (let h = g - 1; h >= 0; h--) {
            if (count[h] > 0) {
              label[parts[h * stride + count[h] - 1]] = OUT
              break
            }
          }
        }
        return T
      }
      const base = g * stride
      for (let r = 0; r < cnt; r++) cur[r] = parts[base + r]
    }
    if (includeCrossing) {
      label[crossing] = 0
      inQ++
    }
    // Q would be empty: the crossing individual is the first of the order. Q would be everyone: it is the last.
    if (inQ === 0) label[crossing] = 0
    else if (inQ === n) label[crossing] = OUT
    return T
  }
}
