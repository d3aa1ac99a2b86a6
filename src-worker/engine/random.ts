/**
 * The one source of randomness in Quiet Alarm.
 *
 * - `seededRng(seed)`: reproducible generator for simulations (Monte Carlo, sweeps). Never for releases.
 * - `SecureRandom.create()`: cryptographically secure generator for releases. It has no seed parameter and cannot be
 *   constructed from one; release code requires a `SecureRandom` instance (checked at run time too, see `assertSecure`).
 * - `laplace(rng, scale)`, `uniformOpen(rng)`: one-draw samplers built on either generator; batch-samplers.ts has the
 *   batch ones (a block of Laplace draws or uniforms from one call for random words).
 *
 * A seeded generator has four streams, each created on first use from the seed text, so that a trial pays only for
 * the streams it draws from:
 * - `next()`: Alea (alea.ts, equal to seedrandom's `alea(seed).double()`);
 * - `fillWords`: four Alea streams seeded from `seed + "\0words\0" + j`, stepped side by side (the search's split);
 * - `fillSampleWords`: xoshiro128** seeded by `seedHash128(seed)` (xoshiro.ts), the batch samplers' words;
 * - `fillLaneWords`: four xoshiro128** streams stepped side by side, lane l seeded by `seedHash128(seed + "\0lanes\0" + l)`
 *   (NLM / TSLM: the WebAssembly kernel steps the four lanes as one vector, from `laneState`).
 * The algorithms are pinned by our own copies and by fixed vectors in the unit tests, so seeded results do not change
 * with a dependency's version.
 *
 * Pure TypeScript: the CSPRNG is the Web Crypto `getRandomValues`, present in Node >= 20, Electron and browsers.
 */
import { type AleaState, aleaDouble, aleaSeed } from './alea'
import { LANES, type XoshiroLanes, type XoshiroState, seedHash128, xoshiroFill, xoshiroLanesFill } from './xoshiro'

/** A source of uniform doubles in [0, 1). */
export interface Rng {
  next(): number
  /** Fill the first `count` (default: all) entries of `out` with uniform random 32-bit words, in one batch. */
  fillWords(out: Int32Array, count?: number): void
  /**
   * The same, from the stream the batch samplers use (batch-samplers.ts): the CSPRNG for the secure generator, the
   * xoshiro128** stream for a seeded one. Exactly `count` words are drawn.
   */
  fillSampleWords(out: Int32Array, count?: number): void
  /**
   * Words from four streams side by side (word 4 j + l is the j-th word of lane l; a count that is not a multiple of 4
   * draws the last group whole and drops the rest): four xoshiro128** lanes for a seeded generator (xoshiro.ts
   * `xoshiroLanesFill`), the CSPRNG for the secure one. Exactly ceil(count / 4) groups are drawn.
   */
  fillLaneWords(out: Int32Array, count?: number): void
  /**
   * The seeded generator's lane states (xoshiro.ts `XoshiroLanes`), which a kernel may advance in place exactly as
   * `fillLaneWords` would; null for the secure generator.
   */
  laneState(): Int32Array | null
  /** 'seeded' for simulations, 'secure' for releases. */
  readonly kind: 'seeded' | 'secure'
}

/** Independent Alea streams that `fillWords` steps side by side (one stream's steps form a serial chain of dependent
 * arithmetic: four in one loop draw about three times as fast as one). */
const WORD_STREAMS = 4

class SeededRng implements Rng {
  readonly kind = 'seeded' as const
  /** Alea state of `next()`, created on first use */
  private main: AleaState | null = null
  /** Alea states (s0, s1, s2, c) of the word streams, created on first use */
  private streams: Float64Array | null = null
  /** xoshiro128** state of the sample stream, created on first use */
  private samples: XoshiroState | null = null
  /** the four lanes' states of `fillLaneWords`, created on first use */
  private lanes: XoshiroLanes | null = null
  constructor(private readonly seed: string) {}
  next(): number {
    // double(): 53 bits of randomness in [0, 1).
    return aleaDouble(this.main ?? (this.main = aleaSeed(this.seed)))
  }
  fillSampleWords(out: Int32Array, count = out.length): void {
    xoshiroFill(this.samples ?? (this.samples = seedHash128(this.seed)), out, count)
  }
  fillLaneWords(out: Int32Array, count = out.length): void {
    xoshiroLanesFill(this.laneState(), out, count)
  }
  laneState(): XoshiroLanes {
    if (this.lanes === null) {
      const lanes = new Int32Array(4 * LANES)
      const one = new Int32Array(4)
      for (let l = 0; l < LANES; l++) {
        seedHash128(`${this.seed}\u0000lanes\u0000${l}`, one)
        for (let w = 0; w < 4; w++) lanes[w * LANES + l] = one[w]
      }
      this.lanes = lanes
    }
    return this.lanes
  }
  /**
   * Words from four Alea streams of their own, seeded by Mash from this seed (as trial seeds are derived from a base
   * seed), interleaved: word k comes from stream k mod 4, each stream's word being its `int32()`. A count that is not a
   * multiple of 4 draws the last group whole and drops the rest, so every stream always advances together.
   */
  fillWords(out: Int32Array, count = out.length): void {
    const st = this.streams ?? (this.streams = wordStreams(this.seed))
    let a0 = st[0],
      a1 = st[1],
      a2 = st[2],
      ac = st[3]
    let b0 = st[4],
      b1 = st[5],
      b2 = st[6],
      bc = st[7]
    let c0 = st[8],
      c1 = st[9],
      c2 = st[10],
      cc = st[11]
    let d0 = st[12],
      d1 = st[13],
      d2 = st[14],
      dc = st[15]
    for (let k = 0; k < count; k += WORD_STREAMS) {
      // Alea's step: t = 2091639 s0 + c 2^-32; (s0, s1, s2) <- (s1, s2, t - floor(t)); c <- floor(t); word = s2 2^32.
      let t = 2091639 * a0 + ac * 2.3283064365386963e-10
      a0 = a1
      a1 = a2
      ac = t | 0
      a2 = t - ac
      t = 2091639 * b0 + bc * 2.3283064365386963e-10
      b0 = b1
      b1 = b2
      bc = t | 0
      b2 = t - bc
      t = 2091639 * c0 + cc * 2.3283064365386963e-10
      c0 = c1
      c1 = c2
      cc = t | 0
      c2 = t - cc
      t = 2091639 * d0 + dc * 2.3283064365386963e-10
      d0 = d1
      d1 = d2
      dc = t | 0
      d2 = t - dc
      if (k + WORD_STREAMS <= count) {
        out[k] = (a2 * 0x100000000) | 0
        out[k + 1] = (b2 * 0x100000000) | 0
        out[k + 2] = (c2 * 0x100000000) | 0
        out[k + 3] = (d2 * 0x100000000) | 0
      } else {
        const last = [a2, b2, c2, d2]
        for (let j = 0; k + j < count; j++) out[k + j] = (last[j] * 0x100000000) | 0
      }
    }
    st[0] = a0
    st[1] = a1
    st[2] = a2
    st[3] = ac
    st[4] = b0
    st[5] = b1
    st[6] = b2
    st[7] = bc
    st[8] = c0
    st[9] = c1
    st[10] = c2
    st[11] = cc
    st[12] = d0
    st[13] = d1
    st[14] = d2
    st[15] = dc
  }
}

/** Initial states of the word streams of `seed` (Alea's seeding; the separator keeps them apart from seeds that callers
 * derive with `deriveSeed`). */
function wordStreams(seed: string): Float64Array {
  const st = new Float64Array(4 * WORD_STREAMS)
  for (let j = 0; j < WORD_STREAMS; j++) aleaSeed(`${seed}\u0000words\u0000${j}`, st, 4 * j)
  return st
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

  fillSampleWords(out: Int32Array, count = out.length): void {
    this.fillWords(out, count)
  }

  fillLaneWords(out: Int32Array, count = out.length): void {
    this.fillWords(out, count)
  }

  laneState(): null {
    return null
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

/**
 * Keeps a uniformly random subset of `m` elements of `list` (in place: the first m places of a Fisher-Yates shuffle,
 * then the list is cut to them); a list of at most m elements is left as it is. Contribution bounding uses it: a person
 * over a bound keeps a random subset of their groups or rows.
 */
export function keepRandomSubset<T>(rng: Rng, list: T[], m: number): T[] {
  if (list.length <= m) return list
  for (let j = 0; j < m; j++) {
    const r = j + Math.floor(rng.next() * (list.length - j))
    const t = list[j]
    list[j] = list[r]
    list[r] = t
  }
  list.length = m
  return list
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
