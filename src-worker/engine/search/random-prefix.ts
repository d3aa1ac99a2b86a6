/**
 * The random order of one round, drawn lazily. The search only needs the prefix of a uniform random permutation up to the
 * median split, so it draws that prefix by a partial Fisher-Yates shuffle of a persistent index array (from any starting
 * arrangement this yields exactly the distribution of the prefix of a fresh uniform permutation) and stops one element
 * after the split. Indices are drawn by rejection from 26-bit blocks of the generator's 53-bit doubles (two exact
 * uniform integers per `rng.next()`), so a round costs about a quarter of the generator calls of `permutation(rng, n)`.
 */
import type { Rng } from '../random'

const TWO_26 = 67108864
const TWO_27 = 134217728
const MASK_26 = TWO_26 - 1

export class RandomPrefix {
  readonly order: Uint32Array
  private spare = -1

  constructor(readonly size: number, private readonly rng: Rng) {
    this.order = new Uint32Array(size)
    for (let i = 0; i < size; i++) this.order[i] = i
  }

  /** A 26-bit uniform integer (both halves of one double are used in turn). */
  private bits26(): number {
    if (this.spare >= 0) {
      const s = this.spare
      this.spare = -1
      return s
    }
    // u * 2^26 and the scaled remainder are exact: both generators return multiples of 2^-53.
    const a = this.rng.next() * TWO_26
    const hi = Math.floor(a)
    this.spare = ((a - hi) * TWO_27) & MASK_26 // 26 of the low 27 bits
    return hi
  }

  /** Uniform integer in [0, m), exactly (rejection), for 1 <= m <= 2^26; a plain multiply beyond that. */
  uniformInt(m: number): number {
    if (m > TWO_26) return Math.floor(this.rng.next() * m)
    const limit = TWO_26 - (TWO_26 % m)
    for (;;) {
      const r = this.bits26()
      if (r < limit) return (r % m) | 0
    }
  }

  /** Place a uniformly chosen not-yet-drawn index at position k (k = 0, 1, ... within a round) and return it. */
  draw(k: number): number {
    const o = this.order
    const j = k + this.uniformInt(this.size - k)
    const t = o[j]
    o[j] = o[k]
    o[k] = t
    return t
  }
}
