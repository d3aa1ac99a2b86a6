/**
 * The JavaScript middle of the DuckDB maxGroups form (duckdb-truncation.ts `keptPairs`) and its rank arithmetic
 * (keyed-hash.ts `rankOfSmallIndex`, in doubles): against a plain BigInt reference of the rule (each
 * person keeps the `m` set bits of smallest (rank, i)), over every word and both halves of a word (bit 31 of a 32-bit
 * piece is the sign of an int32), with m on both sides of the insertion bound, and at the largest coefficients and index.
 */
import { describe, expect, it } from 'vitest'
import { PAIRS_PER_WRITE, PERSONS_PER_READ, keptPairs, personsPerRead } from '../../src-main/services/sources/duckdb-truncation'
import { RANK_MODULUS, SMALL_INDICES, keyedRank, personDigest, digestWord, rankOfSmallIndex } from '../../src-main/services/sources/keyed-hash'
import { seededRng } from '../../src-worker/engine/random'

const P = BigInt(RANK_MODULUS)
function bigRank(c: number[], i: number): bigint {
  const x = BigInt(i)
  return (BigInt(c[0]) + BigInt(c[1]) * x + BigInt(c[2]) * x * x + BigInt(c[3]) * x * x * x) % P
}

interface Person {
  pid: number
  c: number[]
  bits: number[]
}

/** pass 1's columns for these persons: pid, c_0..c_3, then per word its low and high 32 bits. */
function columnsOf(persons: Person[], words: number): Float64Array[] {
  const cols = Array.from({ length: 5 + 2 * words }, () => new Float64Array(persons.length))
  persons.forEach((p, r) => {
    cols[0][r] = p.pid
    p.c.forEach((x, j) => (cols[1 + j][r] = x))
    for (const i of p.bits) cols[5 + (i >> 5)][r] += 2 ** (i & 31)
  })
  return cols
}

function reference(persons: Person[], words: number, m: number): number[] {
  const out: number[] = []
  for (const p of persons) {
    const kept = [...p.bits]
      .map((i) => ({ i, r: bigRank(p.c, i) }))
      .sort((a, b) => (a.r < b.r ? -1 : a.r > b.r ? 1 : a.i - b.i))
      .slice(0, m)
    for (const k of kept) out.push(p.pid * 64 * words + k.i)
  }
  return out
}

/** The pairs as a set (their order carries nothing). */
const sorted = (xs: ArrayLike<number>) => Array.from(xs).sort((a, b) => a - b)

describe('keptPairs: each person keeps its m set bits of smallest (rank, i)', () => {
  const rng = seededRng('kept-pairs')
  const r = () => rng.next()
  const BOUNDARIES = [0, 1, 31, 32, 63, 64, 95, 127, 128, 191, 192, 255, 256, 383, 447, 448, 479, 480, 510, 511]
  function persons(n: number, words: number): Person[] {
    return Array.from({ length: n }, (_, k) => {
      const span = 64 * words
      const bits = new Set<number>()
      const size = Math.floor(r() * r() * span) + 1
      for (let t = 0; t < size; t++) bits.add(r() < 0.4 ? BOUNDARIES[Math.floor(r() * BOUNDARIES.length)] % span : Math.floor(r() * span))
      // The largest coefficients for some persons: every Horner step at its widest.
      const c = Array.from({ length: 4 }, () => (r() < 0.2 ? RANK_MODULUS - 1 : Math.floor(r() * RANK_MODULUS)))
      return { pid: 1 + k * 3 + Math.floor(r() * 3), c, bits: [...bits] }
    })
  }

  for (const words of [1, 4, 8]) {
    it(`${words} word(s): m from 1 to past the person's bits, either side of the insertion bound`, () => {
      const ps = persons(300, words)
      const cols = columnsOf(ps, words)
      for (const m of [1, 2, 3, 5, 16, 17, 40, 64 * words - 1])
        expect(sorted(keptPairs(cols, words, m)), `m = ${m}`).toEqual(sorted(reference(ps, words, m)))
    })
  }

  it('ties in rank are broken by the index', () => {
    // c_1 = c_2 = c_3 = 0: every index has rank c_0.
    const ps: Person[] = [{ pid: 7, c: [5, 0, 0, 0], bits: [300, 3, 64, 200, 31] }]
    expect(sorted(keptPairs(columnsOf(ps, 5), 5, 2))).toEqual([7 * 320 + 3, 7 * 320 + 31])
    expect(sorted(keptPairs(columnsOf(ps, 5), 5, 17))).toEqual([3, 31, 64, 200, 300].map((i) => 7 * 320 + i))
  })

  it('no persons: no pairs; more words than the form takes: refused', () => {
    expect(Array.from(keptPairs(columnsOf([], 2), 2, 3))).toEqual([])
    expect(() => keptPairs(columnsOf([], 9), 9, 3)).toThrow(RangeError)
  })
})

describe('keptPairs on the orders that break an insertion with an early reject', () => {
  const P1 = RANK_MODULUS - 1
  // A person in every predicate of 8 words (bits 31 and 63 of each word set: the sign bits of the int32 halves).
  const all512 = Array.from({ length: 512 }, (_, i) => i)
  // Coefficients for rank(i) as a function of i: c_1 = P - 1 is -1 mod P, so rank(i) = c_0 - i falls as the bits are
  // visited (every key displaces the worst: the early reject never fires); c_1 = 1 rises (it fires for every key after m);
  // c_1 = (P + 1) / 2 is 1/2 mod P: even i rank i / 2, odd i (P + i) / 2, so small and large keys alternate (the worst
  // changes after every key kept); all c_j = 0 but c_0: every rank ties, the index decides.
  const orders: Array<[string, number[]]> = [
    ['falling ranks', [1000, P1, 0, 0]],
    ['rising ranks', [0, 1, 0, 0]],
    ['alternating ranks', [0, (RANK_MODULUS + 1) / 2, 0, 0]],
    ['tied ranks', [12345, 0, 0, 0]],
    ['largest coefficients', [P1, P1, P1, P1]]
  ]
  // The largest pid whose pairs are exact at 8 words: pid * 512 + 511 < 2^53.
  const TOP = 2 ** 44 - 1

  for (const [what, c] of orders) {
    it(`${what}: every m from 1 to past the person's bits, lone bits at every half and word edge, the largest exact pid`, () => {
      const ps: Person[] = [
        { pid: 1, c, bits: all512 },
        { pid: 2, c, bits: all512.filter((i) => i % 32 === 31 || i % 32 === 0) },
        ...[0, 31, 32, 63, 64, 255, 256, 511].map((i, k) => ({ pid: 3 + k, c, bits: [i] })),
        { pid: TOP - 1, c, bits: [0, 31, 32, 63, 448, 511] },
        { pid: TOP, c, bits: all512 }
      ]
      const cols = columnsOf(ps, 8)
      const ms = [...Array.from({ length: 40 }, (_, k) => k + 1), 64, 255, 256, 257, 511, 512, 513]
      for (const m of ms) expect(sorted(keptPairs(cols, 8, m)), `m = ${m}`).toEqual(sorted(reference(ps, 8, m)))
    })
  }

  it('m past the bits of one person and not of the next: each keeps its own m', () => {
    const c = [1000, P1, 0, 0]
    const ps: Person[] = [
      { pid: 5, c, bits: [63, 64] },
      { pid: 6, c, bits: all512.slice(0, 40) },
      { pid: 7, c, bits: [511] }
    ]
    for (const m of [1, 2, 3, 16, 17, 39, 40, 41]) expect(sorted(keptPairs(columnsOf(ps, 8), 8, m)), `m = ${m}`).toEqual(sorted(reference(ps, 8, m)))
  })
})

describe('rank in doubles', () => {
  it('rankOfSmallIndex equals the BigInt sum of powers for every index below SMALL_INDICES, at the largest coefficients, and keyedRank', () => {
    const rng = seededRng('rank-doubles')
    const cs = [
      [RANK_MODULUS - 1, RANK_MODULUS - 1, RANK_MODULUS - 1, RANK_MODULUS - 1],
      [0, 0, 0, RANK_MODULUS - 1],
      [0, RANK_MODULUS - 1, RANK_MODULUS - 1, RANK_MODULUS - 1],
      ...Array.from({ length: 20 }, () => Array.from({ length: 4 }, () => Math.floor(rng.next() * RANK_MODULUS)))
    ]
    expect(SMALL_INDICES).toBe(2048)
    for (const c of cs) {
      for (let i = 0; i < SMALL_INDICES; i++) {
        const got = rankOfSmallIndex(c[0], c[1], c[2], c[3], i)
        if (got !== Number(bigRank(c, i))) expect(got, `c = ${c.join(', ')}, i = ${i}`).toBe(Number(bigRank(c, i)))
      }
    }
    // From a person's digest words: the ranks of keyedRank (the engines' reference).
    const key = '0123456789abcdef0123456789abcdef'
    for (const person of ['p1', 'ünïcode', '-17']) {
      const d = personDigest(key, person)
      const w = [0, 1, 2, 3].map((j) => digestWord(d, j))
      for (const i of [0, 1, 2, 63, 64, 511, 2047]) expect(rankOfSmallIndex(w[0], w[1], w[2], w[3], i)).toBe(keyedRank(key, person, i))
    }
  })
})

describe('persons per read', () => {
  it('at most PERSONS_PER_READ, and a read keeps at most PAIRS_PER_WRITE pairs for every maxGroups', () => {
    expect(personsPerRead(3)).toBe(PERSONS_PER_READ)
    for (const m of [1, 3, 8, 9, 100, 511, 1_000_000, 3_000_000]) {
      const n = personsPerRead(m)
      expect(n).toBeGreaterThanOrEqual(1)
      expect(n).toBeLessThanOrEqual(PERSONS_PER_READ)
      if (m <= PAIRS_PER_WRITE) expect(n * m).toBeLessThanOrEqual(PAIRS_PER_WRITE)
    }
    expect(personsPerRead(511)).toBe(Math.floor(PAIRS_PER_WRITE / 511))
    expect(personsPerRead(3, 7)).toBe(7)
  })
})
