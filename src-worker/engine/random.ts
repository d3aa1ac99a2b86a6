/**
 * The one source of randomness in Quiet Alarm.
 *
 * - `seededRng(seed)`: reproducible generator for simulations (Monte Carlo, sweeps). Never for releases.
 * - `SecureRandom.create()`: cryptographically secure generator for releases. It has no seed parameter and cannot be
 *   constructed from one; release code requires a `SecureRandom` instance (checked at run time too, see `assertSecure`).
 * - `laplace(rng, scale)`, `uniformOpen(rng)`: samplers built on either generator.
 *
 * Pure TypeScript: the CSPRNG is the Web Crypto `getRandomValues`, present in Node >= 20, Electron and browsers.
 */
import seedrandom from 'seedrandom'

/** A source of uniform doubles in [0, 1). */
export interface Rng {
  next(): number
  /** Fill the first `count` (default: all) entries of `out` with uniform random 32-bit words, in one batch. */
  fillWords(out: Int32Array, count?: number): void
  /** 'seeded' for simulations, 'secure' for releases. */
  readonly kind: 'seeded' | 'secure'
}

class SeededRng implements Rng {
  readonly kind = 'seeded' as const
  private readonly prng: seedrandom.PRNG
  constructor(seed: string) {
    this.prng = seedrandom.alea(seed)
  }
  next(): number {
    // double(): 53 bits of randomness in [0, 1).
    return this.prng.double()
  }
  fillWords(out: Int32Array, count = out.length): void {
    // int32(): one step of the generator, 32 random bits.
    const prng = this.prng
    for (let k = 0; k < count; k++) out[k] = prng.int32()
  }
}

/** Reproducible generator for simulations. The seed is stored with whatever results it produced. */
export function seededRng(seed: string | number): Rng {
  if (typeof seed === 'number' && !Number.isFinite(seed)) throw new RangeError('seed must be a finite number or a string')
  return new SeededRng(String(seed))
}

/** Derive a child seed deterministically (for per-cell / per-batch seeds in sweeps). */
export function deriveSeed(base: string | number, ...parts: Array<string | number>): string {
  return [String(base), ...parts.map(String)].join('/')
}

const secureToken = Symbol('SecureRandom')
const BUFFER_WORDS = 1024

/**
 * Cryptographically secure generator. No seed can be given: the constructor is private and takes a module-private token.
 */
export class SecureRandom implements Rng {
  readonly kind = 'secure' as const
  private readonly words = new Uint32Array(BUFFER_WORDS)
  private pos = BUFFER_WORDS

  private constructor(token: symbol) {
    if (token !== secureToken) throw new TypeError('SecureRandom cannot be constructed directly; use SecureRandom.create()')
  }

  static create(): SecureRandom {
    if (typeof globalThis.crypto?.getRandomValues !== 'function') {
      throw new Error('No cryptographically secure random source is available in this runtime')
    }
    return new SecureRandom(secureToken)
  }

  private word(): number {
    if (this.pos >= BUFFER_WORDS) {
      globalThis.crypto.getRandomValues(this.words)
      this.pos = 0
    }
    return this.words[this.pos++]
  }

  fillWords(out: Int32Array, count = out.length): void {
    // Straight from the CSPRNG (at most 65,536 bytes per call).
    for (let k = 0; k < count; k += 16384) globalThis.crypto.getRandomValues(out.subarray(k, Math.min(count, k + 16384)))
  }

  next(): number {
    // 53 random bits: 27 from one word, 26 from the next.
    const hi = this.word() >>> 5
    const lo = this.word() >>> 6
    return (hi * 67108864 + lo) / 9007199254740992
  }
}

/** Throws unless `rng` is the secure generator. Release paths call this before any noise is drawn. */
export function assertSecure(rng: Rng): asserts rng is SecureRandom {
  if (!(rng instanceof SecureRandom) || rng.kind !== 'secure') {
    throw new Error('A release must use the secure generator; a seeded generator was supplied')
  }
}

/** Uniform in the open interval (0, 1). */
export function uniformOpen(rng: Rng): number {
  let u = rng.next()
  while (u === 0) u = rng.next()
  return u
}

/** One draw from Laplace(0, scale): density exp(-|x|/scale) / (2 scale). */
export function laplace(rng: Rng, scale: number): number {
  if (!(scale > 0) || !Number.isFinite(scale)) throw new RangeError(`Laplace scale must be positive and finite (got ${scale})`)
  const u = uniformOpen(rng)
  // Inverse CDF on two halves; u in (0,1) so log arguments are in (0, 1].
  return u < 0.5 ? scale * Math.log(2 * u) : -scale * Math.log(2 * (1 - u))
}

/** Fisher-Yates shuffle of 0..n-1 (used by the binary search). */
export function permutation(rng: Rng, n: number): Uint32Array {
  const p = new Uint32Array(n)
  for (let i = 0; i < n; i++) p[i] = i
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1))
    const t = p[i]
    p[i] = p[j]
    p[j] = t
  }
  return p
}
