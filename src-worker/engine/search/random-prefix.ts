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
 * decides whether it joins Q. Four key bits at the first level (sixteen parts), three at each deeper one (eight parts): a
 * round visits about N + N/14 candidates and uses about N/8 + N/140 random words. This is exactly the distribution of
 * walking a fresh uniform permutation (checked against enumeration, and split by split against the order of the recorded
 * keys, in the tests).
 *
 * Packed parts (packed-parts.ts owns the layout): the first level's four key bits per individual are a random 32-bit
 * word per eight individuals, used as it is, so drawing the first level writes nothing per individual. Q is then "part below a threshold T", and only the members of the crossing part (about
 * N/16) get their field rewritten when the deeper levels decide their side (see `splitLabelled`). The search sums the
 * parts' masses inside the posterior update of the round before (`LogPosterior.updateSplit` with `NextParts`), so a
 * round reads the weights once for the update and once more only for the crossing part's members.
 *
 * The random words come in batches (`Rng.fillSampleWords`: the CSPRNG itself for releases, the seeded generator's
 * xoshiro128** stream for simulations), so the hot loops do not call the generator. Uniform integers (for tie-breaking)
 * are exact: Lemire's multiply-and-reject on 26-bit blocks (the top 26 bits of a word). (The buffers draw ahead, and a
 * seeded generator's oracle noise comes from its other stream: seeded outputs differ from drawing one word at a time,
 * no distribution does: every word is used once.)
 */
import type { Rng } from '../random'
import * as layout from './packed-parts'
import { partWords } from './packed-parts'
import { type SearchMemory, WAYS, WAYS_PER_WORD } from './search-memory'

// Module constants for the hot loops: an imported binding is read afresh (a property load) at every use.
const { FIELD_LOW_BITS, LAST_PART: LAST, PART_BITS, PARTS, PARTS_PER_WORD, inQuery, matchBits, partOf, setPart } = layout

// The layout of the parts lives in packed-parts.ts; re-exported for the modules and tests that import it from here.
export { PART_BITS, PARTS, PARTS_PER_WORD, type PackedParts, inQuery, partOf, partWords } from './packed-parts'

const TWO_26 = 67108864
const INV_TWO_26 = 1 / TWO_26
/** random words per refill of the small buffer for uniform integers */
const TIE_WORDS = 64

/**
 * The next round's first level, filled in by the posterior update of this round (`LogPosterior.updateSplit`): `parts`
 * holds fresh random words; the update writes the sixteen parts' masses under the updated weights.
 */
export interface NextParts {
  readonly parts: Int32Array
  readonly partMass: Float64Array
}

export class RandomPrefix {
  /** the current round's parts, and a spare buffer for the next round's */
  private current: Int32Array
  private spare: Int32Array
  /** the current parts' masses */
  readonly partMass = new Float64Array(PARTS)
  /** random words for the deeper levels, drawn in one batch per level */
  private readonly keyWords: Int32Array
  /** random words for uniform integers; tieWords[tiePos..] are unused */
  private readonly tieWords = new Int32Array(TIE_WORDS)
  private tiePos = TIE_WORDS
  /** the candidates of the current level */
  private readonly cur: Int32Array
  /** the twin's eight parts of a deeper level: part g holds sub[g * stride .. g * stride + count[g]) (grown on demand) */
  private sub = new Int32Array(0)
  private stride = 0
  private readonly count: Int32Array
  private readonly mass: Float64Array
  private readonly next: { parts: Int32Array; readonly partMass: Float64Array }
  /** the search's shared arrays (search-memory.ts): with a kernel there, it lists the crossing part's members */
  private readonly memory: SearchMemory | null

  /** `memory`: the arrays shared with the search's LogPosterior (parts and members live there); own arrays without it. */
  constructor(
    readonly size: number,
    private readonly rng: Rng,
    memory?: SearchMemory
  ) {
    if (memory !== undefined && memory.size !== size) throw new RangeError(`the search memory holds ${memory.size} individuals, not ${size}`)
    this.memory = memory ?? null
    this.cur = memory?.members ?? new Int32Array(size)
    this.current = memory?.parts[0] ?? new Int32Array(partWords(size))
    this.spare = memory?.parts[1] ?? new Int32Array(partWords(size))
    this.keyWords = memory?.keyWords ?? new Int32Array(Math.ceil(size / WAYS_PER_WORD))
    this.count = memory?.dealCount ?? new Int32Array(WAYS)
    this.mass = memory?.dealMass ?? new Float64Array(WAYS)
    this.next = { parts: this.spare, partMass: this.partMass }
  }

  /** The current round's parts (eight 4-bit fields per word); after `splitLabelled`, Q = {i : part < T}. */
  get parts(): Int32Array {
    return this.current
  }

  /** 26 uniform random bits (an integer in [0, 2^26)). */
  bits26(): number {
    if (this.tiePos === TIE_WORDS) {
      this.rng.fillSampleWords(this.tieWords)
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

  /** Is anyone's current part in [lo, hi]? */
  private anyInParts(lo: number, hi: number): boolean {
    for (let i = 0; i < this.size; i++) {
      const g = partOf(this.current, i)
      if (g >= lo && g <= hi) return true
    }
    return false
  }

  /**
   * The members of part c of the current parts into `cur`, in increasing order; returns how many. The search kernel
   * lists them when the parts lie in its memory (wasm/search-update.wat `members`), this loop otherwise: the same list.
   */
  private members(c: number): number {
    const n = this.size
    const parts = this.current
    const cur = this.cur
    const words = partWords(n)
    const memory = this.memory
    if (memory !== null && memory.kernel !== null && memory.holds(parts) && memory.holds(cur)) {
      return memory.kernel.members(parts.byteOffset, words, c, n, cur.byteOffset)
    }
    // Fields equal to c (zero fields of word ^ cccccccc), as one bit per individual for 24 individuals (three words) at
    // a time, so the loop over the matches (about 1.5 per 24) is entered once per 24 (24 bits keep the mask a positive
    // small integer).
    const pattern = Math.imul(c, FIELD_LOW_BITS)
    let cnt = 0
    for (let k = 0, base = 0; k < words; k += 3, base += 24) {
      let m = matchBits(parts[k] ^ pattern)
      if (k + 1 < words) m |= matchBits(parts[k + 1] ^ pattern) << 8
      if (k + 2 < words) m |= matchBits(parts[k + 2] ^ pattern) << 16
      while (m !== 0) {
        const i = base + 31 - Math.clz32(m & -m)
        if (i < n) cur[cnt++] = i
        m &= m - 1
      }
    }
    return cnt
  }

  /**
   * One deeper level (the twin of the kernel's `deal`): the `cnt` candidates of `cur` to eight parts by three key bits
   * each (ten to a word of `keyWords`), in candidate order, with the parts' counts and masses under `w`.
   */
  private deal(cnt: number, w: Float64Array): void {
    const cur = this.cur
    const words = this.keyWords
    const sub = this.sub
    const stride = this.stride
    const count = this.count
    const mass = this.mass
    count.fill(0)
    mass.fill(0)
    for (let r = 0, pos = 0; r < cnt;) {
      let word = words[pos++] | 0
      const end = Math.min(cnt, r + WAYS_PER_WORD)
      for (; r < end; r++) {
        const g = word & 7
        word >>= 3
        const i = cur[r]
        const k = count[g]
        sub[g * stride + k] = i
        count[g] = k + 1
        mass[g] += w[i]
      }
    }
  }

  /** Is individual i in Q, for the threshold T that `split` or `splitLabelled` returned? */
  inQ(i: number, T: number): boolean {
    return inQuery(this.current, T, i)
  }

  /**
   * The median split for weights `w` (length `size`, sum `total`): draws fresh parts and returns a threshold T with
   * Q = {i : inQ(i, T)}. |Q| is between 1 and size - 1 (degenerate posteriors, with all the mass on one individual or
   * float rounding, still give two non-empty sides: an empty Q takes the first individual of the order, a full Q gives
   * up the last).
   */
  split(w: Float64Array, total: number): number {
    this.labelParts(w)
    return this.splitLabelled(w, total)
  }

  /** The first level on its own: fresh parts for everyone and their masses under `w`. */
  labelParts(w: Float64Array): void {
    const n = this.size
    const parts = this.current
    const mass = this.partMass
    this.rng.fillSampleWords(parts)
    mass.fill(0)
    for (let i = 0, k = 0; i < n; k++) {
      let word = parts[k] | 0
      const end = Math.min(n, i + PARTS_PER_WORD)
      for (; i < end; i++) {
        const g = word & LAST
        word >>= PART_BITS
        mass[g] += w[i]
      }
    }
  }

  /**
   * The spare buffer filled with fresh random words, for the posterior update to sum the next round's part masses into
   * `partMass`; `adoptNext` then makes it the current parts.
   */
  drawNext(): NextParts {
    this.rng.fillSampleWords(this.spare)
    return this.next
  }

  /** Make the parts drawn by `drawNext` (and summed by the update) the current ones. */
  adoptNext(): void {
    const t = this.current
    this.current = this.spare
    this.spare = t
    this.next.parts = t
  }

  /**
   * The rest of the split, after the first level: `parts` holds the current parts and `partMass` their masses under
   * `w`. Returns T; Q = {i : part < T}.
   *
   * With crossing part c: when c >= 1, T = c and the members of part c that join Q get part 0; when c = 0, T = 1 and the
   * members of part 0 that stay out get part 15. An individual taken out of a full Q gets part 15 (T <= 15 always), one
   * put into an empty Q gets part 0 (T >= 1 always).
   */
  splitLabelled(w: Float64Array, total: number): number {
    const n = this.size
    const half = total / 2
    const parts = this.current
    const partMass = this.partMass
    let c = 0
    let before = 0
    while (c < LAST && before + partMass[c] < half) before += partMass[c++]
    let after = 0
    for (let g = c + 1; g < PARTS; g++) after += partMass[g]
    // Whether anyone precedes / follows the crossing part (a positive mass says so; zero mass needs a look: weights can
    // underflow to 0). Q must end up with between 1 and n - 1 members.
    const anyBefore = before > 0 || (c > 0 && this.anyInParts(0, c - 1))
    const anyAfter = after > 0 || (c < LAST && this.anyInParts(c + 1, LAST))
    let joiners = false
    let stayers = false
    const T = c === 0 ? 1 : c
    /** Rewrite joiners (c >= 1) or those staying out (c = 0); the others already have the right part. */
    const markJoiners = c > 0
    const cur = this.cur
    let cnt = this.members(c)
    if (cnt === 0) {
      // Only by float rounding (the mass was enough to reach half): no crossing individual, so everyone is in Q.
      // Take out the last one of the order (the last individual of the highest non-empty part).
      let last = 0
      for (let i = 0; i < n; i++) if (partOf(parts, i) >= partOf(parts, last)) last = i
      setPart(parts, last, LAST)
      return T
    }
    // Every deeper part is a subset of the crossing part: room for eight of its size. The kernel deals and assigns in
    // its memory's parts when they have that room and everything it touches lies in its memory (the weights are the
    // caller's); otherwise the twin does, in its own parts (grown with slack for later rounds).
    const memory = this.memory
    const kernel = memory !== null && cnt <= memory.subStride && memory.holds(w) && memory.holds(cur) && memory.holds(parts) ? memory.kernel : null
    if (kernel === null && cnt > this.stride) {
      this.stride = Math.min(n, Math.ceil(cnt * 1.5))
      this.sub = new Int32Array(WAYS * this.stride)
    }
    const inKernel = kernel !== null && memory !== null
    const sub = inKernel ? memory.sub : this.sub
    const stride = inKernel ? memory.subStride : this.stride
    const count = this.count
    const mass = this.mass
    let crossing: number
    let includeCrossing: boolean
    for (;;) {
      if (cnt === 1) {
        // The crossing individual: include it only if that brings Q's mass closer to half.
        crossing = cur[0]
        const next = before + w[crossing]
        includeCrossing = !(next >= half && next - half >= half - before)
        break
      }
      // Split the candidates by three fresh key bits each into eight parts, in key order (part 0 first).
      const words = this.keyWords
      this.rng.fillSampleWords(words, Math.ceil(cnt / WAYS_PER_WORD))
      if (kernel !== null) kernel.deal(cur.byteOffset, cnt, words.byteOffset, w.byteOffset, sub.byteOffset, stride, count.byteOffset, mass.byteOffset)
      else this.deal(cnt, w)
      // The part holding the crossing individual: the first whose cumulative mass reaches half (non-empty then, as
      // before < half); the parts before it join Q, the parts after it stay out.
      let g = 0
      let acc = before
      while (g < WAYS - 1 && acc + mass[g] < half) acc += mass[g++]
      for (let h = 0; h < WAYS; h++) {
        if (h === g || count[h] === 0) continue
        if (h < g) joiners = true
        else stayers = true
        if (h < g === markJoiners) {
          const b = h * stride
          const value = markJoiners ? 0 : LAST
          if (kernel !== null) kernel.assign(sub.byteOffset + 4 * b, count[h], parts.byteOffset, value)
          else for (let r = 0; r < count[h]; r++) setPart(parts, sub[b + r], value)
        }
      }
      before = acc
      cnt = count[g]
      if (cnt === 0) {
        // Only by float rounding (the candidates' mass was enough to reach half): no crossing individual.
        if (!anyAfter && !stayers) {
          for (let h = g - 1; h >= 0; h--) {
            if (count[h] > 0) {
              setPart(parts, sub[h * stride + count[h] - 1], LAST)
              break
            }
          }
        }
        return T
      }
      const b = g * stride
      cur.set(sub.subarray(b, b + cnt))
    }
    if (includeCrossing === markJoiners) setPart(parts, crossing, markJoiners ? 0 : LAST)
    // Q would be empty: the crossing individual is the first of the order. Q would be everyone: it is the last.
    if (!includeCrossing && !anyBefore && !joiners) setPart(parts, crossing, 0)
    else if (includeCrossing && !anyAfter && !stayers) setPart(parts, crossing, LAST)
    return T
  }
}
