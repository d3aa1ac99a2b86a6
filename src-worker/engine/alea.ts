/**
 * Alea (Johannes Baagøe, 2010), exactly as the `seedrandom` package implements it (`seedrandom.alea`): the Mash string
 * hash seeds three 32-bit fractions s0, s1, s2 and a carry c; each step is the multiply-with-carry
 *   t = 2091639 s0 + c 2^-32;  (s0, s1, s2) <- (s1, s2, t - floor(t));  c <- floor(t);  output s2 (32 random bits in [0, 1)).
 *
 * Our own copy pins the algorithm to this file (a new version of the package cannot change seeded results) and seeds
 * without the package's closures: Mash's state stays a local double instead of a captured, boxed one. The unit tests hold
 * it equal to `seedrandom.alea` (states and outputs) and to fixed vectors.
 */

/** Alea's state: [s0, s1, s2, c]. */
export type AleaState = Float64Array

const TWO_M32 = 2.3283064365386963e-10 // 2^-32

/** One pass of Mash over `data`, continuing from its internal state `n`; returns the new state. */
function mashPass(n: number, data: string): number {
  for (let i = 0; i < data.length; i++) {
    n += data.charCodeAt(i)
    let h = 0.02519603282416938 * n
    n = h >>> 0
    h -= n
    h *= n
    n = h >>> 0
    h -= n
    n += h * 0x100000000
  }
  return n
}

/** Alea's initial state for `seed` (Baagøe's seeding: three Mash values of ' ', minus three Mash values of the seed). */
export function aleaSeed(seed: string, out: AleaState = new Float64Array(4), offset = 0): AleaState {
  let n = 0xefc8249d
  n = mashPass(n, ' ')
  let s0 = (n >>> 0) * TWO_M32
  n = mashPass(n, ' ')
  let s1 = (n >>> 0) * TWO_M32
  n = mashPass(n, ' ')
  let s2 = (n >>> 0) * TWO_M32
  n = mashPass(n, seed)
  s0 -= (n >>> 0) * TWO_M32
  if (s0 < 0) s0 += 1
  n = mashPass(n, seed)
  s1 -= (n >>> 0) * TWO_M32
  if (s1 < 0) s1 += 1
  n = mashPass(n, seed)
  s2 -= (n >>> 0) * TWO_M32
  if (s2 < 0) s2 += 1
  out[offset] = s0
  out[offset + 1] = s1
  out[offset + 2] = s2
  out[offset + 3] = 1
  return out
}

/** One step of the Alea stream whose state is `st[offset..offset + 4)`: 32 random bits as a fraction in [0, 1). */
export function aleaStep(st: AleaState, offset = 0): number {
  const t = 2091639 * st[offset] + st[offset + 3] * TWO_M32
  const c = t | 0
  st[offset] = st[offset + 1]
  st[offset + 1] = st[offset + 2]
  st[offset + 3] = c
  return (st[offset + 2] = t - c)
}

/** seedrandom's `double()`: 53 random bits from two steps. */
export function aleaDouble(st: AleaState): number {
  return aleaStep(st) + ((aleaStep(st) * 0x200000) | 0) * 1.1102230246251565e-16 // 2^-53
}
