/**
 * The person bound of anomaly identification (engine/sensitive/person-bound.ts), by brute force on small universes:
 * - the engine's bounded counts equal a naive per-record computation with the same random priorities;
 * - the sensitivity (docs/anomaly-identification.md): adding one person moves each record's flip distance by at most
 *   L = rowsPerBin x binsPerPerson (mdd: on every database; lambda_k: when the person's kept rows can be added one by one
 *   along k-sensitive edges), so the answer's probabilities change by at most e^(L eps): the charge's factor is enough;
 * - and it is needed: some person moves some record's mdd by exactly L;
 * - the bound never silences a row-level anomaly (own bin first), and at 1 x 1 the ball count counts persons.
 */
import { describe, expect, it } from 'vitest'
import { type PersonBound, boundedBallCounts, flipProbability, isAnomaly, isSensitive, lambdaK, mdd } from '../../../src-worker/engine/sensitive'
import type { Rng } from '../../../src-worker/engine/random'
import { seededRng } from '../../../src-worker/engine/random'

const BINS = 5
const RADIUS = 1
const near = (a: number, b: number) => Math.abs(a - b) <= RADIUS
const BOUNDS: PersonBound[] = [
  { rowsPerBin: 1, binsPerPerson: 1 },
  { rowsPerBin: 2, binsPerPerson: 1 },
  { rowsPerBin: 1, binsPerPerson: 2 },
  { rowsPerBin: 2, binsPerPerson: 2 }
]

/** A generator that returns the given values in order (the priorities the engine draws, person by person, bin by bin). */
function scripted(values: number[]): Rng {
  let i = 0
  return { kind: 'seeded', next: () => values[i++] ?? 0.5 } as unknown as Rng
}

type Rows = Array<{ person: number; bin: number }>

/** The bound as documented, written out per record: own bin first, then by priority, while the ball has room. */
function naive(rows: Rows, records: number[], b: PersonBound, prio: (person: number, bin: number) => number) {
  const own = records.map(() => 0)
  const ball = records.map(() => 0)
  const persons = [...new Set(rows.map((r) => r.person))]
  records.forEach((rec, i) => {
    for (const p of persons) {
      const counts = new Map<number, number>()
      for (const r of rows) if (r.person === p && near(r.bin, rec)) counts.set(r.bin, (counts.get(r.bin) ?? 0) + 1)
      const bins = [...counts.keys()].sort((x, y) => (x === rec ? -1 : y === rec ? 1 : prio(p, x) - prio(p, y) || x - y))
      for (const bin of bins.slice(0, b.binsPerPerson)) {
        const c = Math.min(counts.get(bin)!, b.rowsPerBin)
        ball[i] += c
        if (bin === rec) own[i] += c
      }
    }
  })
  return { own, ball }
}

function engine(rows: Rows, records: number[], b: PersonBound, prio: (person: number, bin: number) => number) {
  // The engine draws one priority per (person, bin) pair, persons in code order, bins in point order.
  const pairs = [...new Set(rows.map((r) => `${r.person}:${r.bin}`))]
    .map((k) => k.split(':').map(Number) as [number, number])
    .sort((x, y) => x[0] - y[0] || x[1] - y[1])
  const points = Int32Array.from({ length: BINS }, (_, j) => j)
  return boundedBallCounts(
    { points, kinds: ['numeric'], rowPoint: Int32Array.from(rows, (r) => r.bin), rowPerson: Int32Array.from(rows, (r) => r.person) },
    Int32Array.from(records),
    'l1',
    RADIUS,
    b,
    scripted(pairs.map(([p, bin]) => prio(p, bin)))
  )
}

describe('bounded counts: the engine equals the per-record definition', () => {
  it('on 400 random small person-level datasets and every bound', () => {
    const rng = seededRng('person-bound-equal')
    const int = (n: number) => Math.floor(rng.next() * n)
    for (let t = 0; t < 400; t++) {
      const rows: Rows = Array.from({ length: 1 + int(14) }, () => ({ person: int(4), bin: int(BINS) }))
      const records = Array.from({ length: 1 + int(3) }, () => int(BINS))
      const prios = new Map<string, number>()
      const prio = (p: number, bin: number) => {
        const k = `${p}:${bin}`
        if (!prios.has(k)) prios.set(k, rng.next())
        return prios.get(k)!
      }
      for (const b of BOUNDS) {
        const e = engine(rows, records, b, prio)
        const n = naive(rows, records, b, prio)
        expect(Array.from(e.own)).toEqual(n.own)
        expect(Array.from(e.ball)).toEqual(n.ball)
      }
    }
  })

  it('at 1 x 1 the ball count is the number of persons near the record, and its own count those in its bin', () => {
    // Person 0: 40 rows far away and 2 in bin 2; person 1: 1 row in bin 2; person 2: 3 rows in bin 3.
    const rows: Rows = [
      ...Array.from({ length: 40 }, () => ({ person: 0, bin: 4 })),
      { person: 0, bin: 2 },
      { person: 0, bin: 2 },
      { person: 1, bin: 2 },
      ...Array.from({ length: 3 }, () => ({ person: 2, bin: 3 }))
    ]
    const e = engine(rows, [2], { rowsPerBin: 1, binsPerPerson: 1 }, () => 0.5)
    expect(e.own[0]).toBe(2)
    expect(e.ball[0]).toBe(3)
  })
})

/** Bounded contribution of one person to each record (the rows kept near it), by the naive rule. */
function keptRows(rows: number[], rec: number, b: PersonBound, order: number[]): number[] {
  const bins = rows
    .map((c, bin) => ({ c, bin }))
    .filter((x) => x.c > 0 && near(x.bin, rec))
    .sort((x, y) => (x.bin === rec ? -1 : y.bin === rec ? 1 : order.indexOf(x.bin) - order.indexOf(y.bin)))
    .slice(0, b.binsPerPerson)
  return bins.flatMap((x) => Array.from({ length: Math.min(x.c, b.rowsPerBin) }, () => x.bin))
}

function permutations(xs: number[]): number[][] {
  if (xs.length <= 1) return [xs]
  return xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((p) => [x, ...p]))
}

const histogramsOf = (bins: number, max: number): number[][] =>
  bins === 0 ? [[]] : histogramsOf(bins - 1, max).flatMap((h) => Array.from({ length: max + 1 }, (_, c) => [...h, c]))

const ballOf = (h: number[], i: number) => {
  let s = 0
  for (let j = Math.max(0, i - RADIUS); j <= Math.min(h.length - 1, i + RADIUS); j++) s += h[j]
  return s
}

describe('sensitivity of the bounded answer: one person moves a flip distance by at most L = rowsPerBin x binsPerPerson', () => {
  // A line of 4 bins, radius 1. Everyone else's bounded rows as a histogram (0..2 per bin); the added person's rows
  // (1..2 in each of up to three bins), every order of their bins' priorities, every bound, neighbour limit 1..3, k 1..2.
  const U = 4
  const others = histogramsOf(U, 2)
  const persons = histogramsOf(U, 2).filter((h) => h.filter((c) => c > 0).length <= 3 && h.some((c) => c > 0))
  for (const b of BOUNDS) {
    const L = b.rowsPerBin * b.binsPerPerson
    it(`rowsPerBin ${b.rowsPerBin}, binsPerPerson ${b.binsPerPerson}: |delta mdd| <= ${L}, |delta lambda_k| <= ${L} along k-sensitive additions, and ${L} is reached`, () => {
      const eps = 0.7
      const bound = Math.exp(L * eps) * (1 + 1e-12)
      const one = (xx: number, bb: number, beta: number) => {
        const t = flipProbability(mdd(xx, bb, beta), eps)
        return isAnomaly(xx, bb, beta) ? 1 - t : t
      }
      const bad: string[] = []
      let reached = 0
      let checked = 0
      let sensitiveChecked = 0
      for (const p of persons) {
        const used = p.map((c, j) => (c > 0 ? j : -1)).filter((j) => j >= 0)
        for (const order of permutations(used)) {
          for (let rec = 0; rec < U; rec++) {
            const add = keptRows(p, rec, b, order)
            if (add.length > L) bad.push(`kept ${add.length} rows near ${rec}`)
            for (const x of others) {
              const y = x.slice()
              for (const j of add) y[j]++
              const [xi, B] = [x[rec], ballOf(x, rec)]
              const [yi, By] = [y[rec], ballOf(y, rec)]
              for (const beta of [1, 2, 3]) {
                checked++
                const d = Math.abs(mdd(yi, By, beta) - mdd(xi, B, beta))
                if (d > add.length) bad.push(`mdd moved ${d} > ${add.length}: x=${x} +${add} rec ${rec} beta ${beta}`)
                if (d === L) reached++
                // The released bit's probabilities, at eps per step, differ by at most e^(L eps).
                const [a, c] = [one(xi, B, beta), one(yi, By, beta)]
                if (!(a <= bound * c && c <= bound * a && 1 - a <= bound * (1 - c) && 1 - c <= bound * (1 - a)))
                  bad.push(`ratio over e^(L eps): x=${x} +${add} rec ${rec} beta ${beta}`)
                for (const k of [1, 2]) {
                  if (!sensitivePath(x, add, beta, k)) continue
                  sensitiveChecked++
                  if (Math.abs(lambdaK(yi, By, beta, k) - lambdaK(xi, B, beta, k)) > add.length)
                    bad.push(`lambda_k moved: x=${x} +${add} rec ${rec} k ${k}`)
                }
              }
            }
          }
        }
      }
      expect(bad.slice(0, 5)).toEqual([])
      expect(checked).toBeGreaterThan(50_000)
      expect(sensitiveChecked).toBeGreaterThan(10_000)
      expect(reached).toBeGreaterThan(0)
    })
  }
})

/** Can the rows `add` be added to x one at a time so that each added record is k-sensitive before or after its step? */
function sensitivePath(x: number[], add: number[], beta: number, k: number): boolean {
  const tryFrom = (h: number[], left: number[]): boolean => {
    if (left.length === 0) return true
    for (let i = 0; i < left.length; i++) {
      const j = left[i]
      const after = h.slice()
      after[j]++
      if (!isSensitive(ballOf(h, j), beta, k) && !isSensitive(ballOf(after, j), beta, k)) continue
      if (tryFrom(after, [...left.slice(0, i), ...left.slice(i + 1)])) return true
    }
    return false
  }
  return tryFrom(x, add)
}

describe('the bound keeps every row-level anomaly', () => {
  it('own bin first: a record with rows and at most N rows near it is still an anomaly after the bound (every bound, 2,000 datasets)', () => {
    const rng = seededRng('person-bound-keeps')
    const int = (n: number) => Math.floor(rng.next() * n)
    let anomalies = 0
    for (let t = 0; t < 2000; t++) {
      const rows: Rows = Array.from({ length: 1 + int(12) }, () => ({ person: int(5), bin: int(BINS) }))
      const records = [int(BINS)]
      const counts = Array.from({ length: BINS }, (_, j) => rows.filter((r) => r.bin === j).length)
      for (const beta of [1, 2, 3, 5]) {
        if (!isAnomaly(counts[records[0]], ballOf(counts, records[0]), beta)) continue
        anomalies++
        for (const b of BOUNDS) {
          const e = engine(rows, records, b, () => rng.next())
          expect(isAnomaly(e.own[0], e.ball[0], beta)).toBe(true)
        }
      }
    }
    expect(anomalies).toBeGreaterThan(200)
  })
})
