/**
 * xoshiro128** 1.1 (David Blackman and Sebastiano Vigna, 2018; public domain): the seeded generator of the batch
 * samplers (batch-samplers.ts). Four 32-bit words of state; one output word per step, from a few shifts, xors and two
 * multiplications, with no serial floating-point chain: about 1 ns a word here, against 8 ns for one Alea stream.
 *
 *   result = rotl(s1 * 5, 7) * 9;  t = s1 << 9;
 *   s2 ^= s0;  s3 ^= s1;  s1 ^= s2;  s0 ^= s3;  s2 ^= t;  s3 = rotl(s3, 11)
 *
 * (Version 1.0 scrambled s0 instead of s1; this is 1.1.) The unit tests pin it to the authors' C reference compiled with
 * gcc (state {1, 2, 3, 4} gives 11520, 0, 5927040, 70819200, 2031721883, ...).
 *
 * Seeding: `seedHash128` turns a seed text into the four state words in one pass over its characters (about 1 ns a
 * character; Alea's Mash hash takes 13 ns a character and three passes, which would cost a trial of a short simulation
 * more than its noise). It is not a cryptographic hash: four 32-bit lanes, each character mixed into every lane with
 * its own odd multiplier and rotation (MurmurHash3's x86_128 constants), then MurmurHash3's finalisation (length,
 * cross-lane sums and fmix32). Every step is a bijection of a lane for a given character, so two texts of equal length
 * that differ in one character (trial seeds `cell/57` and `cell/58`) never get the same lane state.
 */

/** xoshiro128**'s state: four 32-bit words, not all zero. */
export type XoshiroState = Int32Array

function fmix32(h: number): number {
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  return h ^ (h >>> 16)
}

/** The 128-bit seed state of a text (see the header). Never all zero. */
export function seedHash128(seed: string, out: XoshiroState = new Int32Array(4)): XoshiroState {
  // SHA-256's first four initial words: arbitrary, with no structure of their own.
  let a = 0x6a09e667 | 0
  let b = 0xbb67ae85 | 0
  let c = 0x3c6ef372 | 0
  let d = 0xa54ff53a | 0
  for (let i = 0; i < seed.length; i++) {
    const k = seed.charCodeAt(i)
    a = Math.imul(a ^ k, 0x239b961b)
    a = (a << 15) | (a >>> 17)
    b = Math.imul(b ^ k, 0xab0e9789)
    b = (b << 16) | (b >>> 16)
    c = Math.imul(c ^ k, 0x38b34ae5)
    c = (c << 17) | (c >>> 15)
    d = Math.imul(d ^ k, 0xa1e38b93)
    d = (d << 18) | (d >>> 14)
  }
  const n = seed.length
  a ^= n
  b ^= n
  c ^= n
  d ^= n
  a = (a + b + c + d) | 0
  b = (b + a) | 0
  c = (c + a) | 0
  d = (d + a) | 0
  a = fmix32(a)
  b = fmix32(b)
  c = fmix32(c)
  d = fmix32(d)
  a = (a + b + c + d) | 0
  b = (b + a) | 0
  c = (c + a) | 0
  d = (d + a) | 0
  if ((a | b | c | d) === 0) d = 1
  out[0] = a
  out[1] = b
  out[2] = c
  out[3] = d
  return out
}

/** Fill out[0..count) with the next `count` output words of the stream whose state is `s` (advanced in place). */
export function xoshiroFill(s: XoshiroState, out: Int32Array, count: number): void {
  let s0 = s[0] | 0
  let s1 = s[1] | 0
  let s2 = s[2] | 0
  let s3 = s[3] | 0
  for (let k = 0; k < count; k++) {
    const r = Math.imul(s1, 5)
    out[k] = Math.imul((r << 7) | (r >>> 25), 9)
    const t = s1 << 9
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = (s3 << 11) | (s3 >>> 21)
  }
  s[0] = s0
  s[1] = s1
  s[2] = s2
  s[3] = s3
}

/** Lanes side by side (`xoshiroLanesFill`): four states, word 4 w + l of the array being state word w of lane l. */
export type XoshiroLanes = Int32Array

export const LANES = 4

/**
 * Fill out[0..count) with the next words of four xoshiro128** streams stepped together: word 4 j + l is the j-th next
 * word of lane l. A count that is not a multiple of 4 steps the last group whole and drops the rest, so the lanes
 * always advance together (the WebAssembly kernels step them as one vector: wasm/single-step.wat).
 */
export function xoshiroLanesFill(s: XoshiroLanes, out: Int32Array, count: number): void {
  const groups = Math.ceil(count / LANES)
  for (let l = 0; l < LANES; l++) {
    let s0 = s[l] | 0
    let s1 = s[LANES + l] | 0
    let s2 = s[2 * LANES + l] | 0
    let s3 = s[3 * LANES + l] | 0
    for (let k = l; k < groups * LANES; k += LANES) {
      const r = Math.imul(s1, 5)
      if (k < count) out[k] = Math.imul((r << 7) | (r >>> 25), 9)
      const t = s1 << 9
      s2 ^= s0
      s3 ^= s1
      s1 ^= s2
      s0 ^= s3
      s2 ^= t
      s3 = (s3 << 11) | (s3 >>> 21)
    }
    s[l] = s0
    s[LANES + l] = s1
    s[2 * LANES + l] = s2
    s[3 * LANES + l] = s3
  }
}
