import { describe, expect, it } from 'vitest'
import { type Rng, seededRng } from '../../../src-worker/engine/random'
import { LogPosterior } from '../../../src-worker/engine/search'
import { RandomPrefix, partOf, partWords } from '../../../src-worker/engine/search/random-prefix'
import { normalUpperQuantile } from './stats'

// Statistical checks in this file: 9 (split) + 2 (ties) + 3 (uniform integers) = 14 chi-square tests, each at
// alpha = 1e-4 / 14 (Bonferroni), with fixed seeds.
const ALPHA = 1e-4 / 14

/** Upper alpha quantile of chi-square with df degrees of freedom (exact for df = 2; Wilson-Hilferty, ~1%, for df >= 3). */
function chiSquareQuantile(df: number, alpha: number): number {
  if (df === 2) return -2 * Math.log(alpha)
  const z = normalUpperQuantile(alpha)
  const h = 2 / (9 * df)
  return df * (1 - h + z * Math.sqrt(h)) ** 3
}

/** Pearson statistic of observed counts against exact probabilities; also fails on any impossible outcome. */
function chiSquare(observed: Map<number, number>, exact: Map<number, number>, draws: number): { stat: number; df: number } {
  for (const k of observed.keys()) expect(exact.has(k), `outcome ${k} has probability 0`).toBe(true)
  let stat = 0
  for (const [k, p] of exact) {
    const e = p * draws
    stat += ((observed.get(k) ?? 0) - e) ** 2 / e
  }
  return { stat, df: exact.size - 1 }
}

function permutations(n: number): number[][] {
  if (n === 1) return [[0]]
  const out: number[][] = []
  for (const p of permutations(n - 1)) for (let i = 0; i <= p.length; i++) out.push([...p.slice(0, i), n - 1, ...p.slice(i)])
  return out
}

/** The median split by its definition: walk the order, longest prefix below half or the crossing one when closer. */
function referenceQ(w: number[], order: number[]): number[] {
  const half = w.reduce((a, b) => a + b, 0) / 2
  const n = w.length
  const inQ = new Array<number>(n).fill(0)
  let mass = 0
  let k = 0
  while (k < n) {
    const i = order[k]
    const next = mass + w[i]
    if (next >= half && next - half >= half - mass) break
    mass = next
    inQ[i] = 1
    k++
    if (next >= half) break
  }
  if (k === 0) inQ[order[0]] = 1
  else if (k === n) inQ[order[n - 1]] = 0
  return inQ
}

/** Q of the definition as a bit mask (small n only). */
function referenceSplit(w: number[], order: number[]): number {
  return referenceQ(w, order).reduce((s, v, i) => s + v * 2 ** i, 0)
}

/** A generator that records every batch of words it hands out. */
function recording(base: Rng): { rng: Rng; batches: Int32Array[] } {
  const batches: Int32Array[] = []
  const rng: Rng = {
    kind: 'seeded',
    next: () => base.next(),
    fillWords: (out, count) => base.fillWords(out, count),
    fillSampleWords(out, count = out.length) {
      base.fillSampleWords(out, count)
      batches.push(out.slice(0, count))
    },
    fillLaneWords: (out, count) => base.fillLaneWords(out, count),
    laneState: () => base.laneState()
  }
  return { rng, batches }
}

/** Q of the definition as a set. */
function referenceSet(w: number[], order: number[]): Set<number> {
  const q = new Set<number>()
  referenceQ(w, order).forEach((v, i) => v === 1 && q.add(i))
  return q
}

/** `reps` splits of `w`: each must equal the definition walked in the order of the keys drawn for it (null = all did). */
function splitsFollowTheirKeys(w: number[], seed: string, reps: number): string | null {
  const n = w.length
  const { rng, batches } = recording(seededRng(seed))
  const prefix = new RandomPrefix(n, rng)
  const wf = Float64Array.from(w)
  const total = w.reduce((a, b) => a + b, 0)
  const half = total / 2
  for (let t = 0; t < reps; t++) {
    batches.length = 0
    const T = prefix.split(wf, total)
    const got = new Set<number>()
    for (let i = 0; i < n; i++) if (prefix.inQ(i, T)) got.add(i)
    const first = batches[0]
    if (first.length !== partWords(n)) return `first level drew ${first.length} words`
    const keys: number[][] = []
    for (let i = 0; i < n; i++) keys.push([(first[i >> 3] >>> (4 * (i & 7))) & 15])
    const partMass = new Array<number>(16).fill(0)
    for (let i = 0; i < n; i++) partMass[keys[i][0]] += w[i]
    let before = 0
    let c = 0
    while (c < 15 && before + partMass[c] < half) before += partMass[c++]
    let cand: number[] = []
    for (let i = 0; i < n; i++) if (keys[i][0] === c) cand.push(i)
    let level = 1
    while (cand.length > 1) {
      const words = batches[level++]
      if (words === undefined) return `no words for level ${level}`
      if (words.length !== Math.ceil(cand.length / 10)) return `level ${level} drew ${words.length} words for ${cand.length}`
      const mass = new Array<number>(8).fill(0)
      for (let r = 0; r < cand.length; r++) {
        const g = (words[Math.floor(r / 10)] >>> (3 * (r % 10))) & 7
        keys[cand[r]].push(g)
        mass[g] += w[cand[r]]
      }
      let g = 0
      while (g < 7 && before + mass[g] < half) before += mass[g++]
      cand = cand.filter((i) => keys[i][keys[i].length - 1] === g)
    }
    if (batches.length !== level) return `drew ${batches.length} batches, the keys use ${level}`
    const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => {
      const ka = keys[a],
        kb = keys[b]
      for (let j = 0; j < Math.min(ka.length, kb.length); j++) if (ka[j] !== kb[j]) return ka[j] - kb[j]
      return a - b
    })
    const ref = referenceSet(w, order)
    if (ref.size !== got.size || [...ref].some((i) => !got.has(i))) {
      return `split ${t}: T=${T} c=${c} definition ${[...ref].sort((a, b) => a - b)} got ${[...got].sort((a, b) => a - b)}`
    }
  }
  return null
}

describe('median split (random prefix drawn lazily)', () => {
  it('has exactly the distribution of walking a fresh uniform permutation (enumeration, chi-square)', () => {
    // Weight vectors with ties, a dominant individual, negligible individuals; dyadic values so the sums are exact.
    const cases = [
      [1, 1, 1, 1, 1],
      [4, 1, 1, 1, 1],
      [0.375, 0.375, 0.125, 0.0625, 0.0625],
      [8, 8, 1, 0.5, 0.25, 0.125],
      [2 ** -30, 1, 2 ** -30, 2 ** -30, 2, 2 ** -30],
      [64, 1, 1, 1],
      // exact tie of the inclusion rule: before = 1, crossing weight 1, half = 1.5 (the crossing one is left out)
      [1, 1, 0.5, 0.5],
      // zero weights: who precedes the crossing individual is known only by looking
      [0, 1],
      [0, 0, 1, 0]
    ]
    const draws = 60_000
    for (const w of cases) {
      const n = w.length
      const exact = new Map<number, number>()
      const perms = permutations(n)
      for (const p of perms) {
        const m = referenceSplit(w, p)
        exact.set(m, (exact.get(m) ?? 0) + 1 / perms.length)
      }
      const prefix = new RandomPrefix(n, seededRng(`split/${w.join(',')}`))
      const wf = Float64Array.from(w)
      const total = w.reduce((a, b) => a + b, 0)
      const seen = new Map<number, number>()
      for (let t = 0; t < draws; t++) {
        const T = prefix.split(wf, total)
        let m = 0
        let size = 0
        for (let i = 0; i < n; i++) {
          if (prefix.inQ(i, T)) {
            m += 2 ** i
            size++
          }
        }
        expect(size).toBeGreaterThanOrEqual(1)
        expect(size).toBeLessThanOrEqual(n - 1)
        seen.set(m, (seen.get(m) ?? 0) + 1)
      }
      const { stat, df } = chiSquare(seen, exact, draws)
      expect(stat, `weights ${w.join(',')}`).toBeLessThan(chiSquareQuantile(df, ALPHA))
    }
    // 540,000 splits: about 20 s alone, several times that on a machine shared with other test runs.
  }, 240_000)

  it('equals the definition on the order its own random keys imply (recorded words), for n up to 700 and zero weights', () => {
    // The split draws iid keys: four bits for everyone (one word per eight individuals), then three more bits per level
    // for the remaining candidates (one word per ten). Recording the words gives each individual's key prefix; sorting by
    // it (ties by index: they cannot matter, see below) is a uniform order, and walking it by the definition must give
    // exactly the split's Q. Checks the packing, the crossing part's search in groups of 24, the rewriting of sides, the
    // rescues of an empty or full Q, and that no word is drawn beyond what the keys use. Individuals whose keys tie are
    // all outside the crossing chain, so their relative order does not change Q.
    const gen = seededRng('keys/weights')
    const failures: string[] = []
    for (let trial = 0; trial < 1200; trial++) {
      const n = 2 + Math.floor(gen.next() * (trial < 600 ? 70 : 700))
      const kind = trial % 6
      const w: number[] = []
      for (let i = 0; i < n; i++) {
        const u = gen.next()
        if (kind === 0)
          w.push(Math.floor(u * 4)) // zeros and small whole numbers
        else if (kind === 1) w.push(u < 0.9 ? 0 : 1 + Math.floor(gen.next() * 3))
        else if (kind === 2) w.push(1)
        else if (kind === 3) w.push(u < 0.5 ? 0 : 2 ** Math.floor(gen.next() * 6))
        else if (kind === 4) w.push(0)
        else w.push(2 ** -Math.floor(u * 30))
      }
      if (kind === 4) w[Math.floor(gen.next() * n)] = 1
      if (Math.max(...w) === 0) w[0] = 1
      const f = splitsFollowTheirKeys(w, `keys/${trial}`, 10)
      if (f) failures.push(`n=${n} w=${w.join(',')}: ${f}`)
      if (failures.length >= 3) break
    }
    expect(failures.join('\n')).toBe('')
  })

  it('gives two non-empty sides on large and degenerate posteriors', () => {
    const n = 5000
    const prefix = new RandomPrefix(n, seededRng('sides'))
    for (const heavy of [0, 1, 0.5, 1e300]) {
      const w = new Float64Array(n).fill(heavy === 0 ? 0 : 1e-300)
      w[17] = heavy === 0 ? 1 : heavy
      const total = w.reduce((a, b) => a + b, 0)
      for (let t = 0; t < 50; t++) {
        const T = prefix.split(w, total)
        let size = 0
        for (let i = 0; i < n; i++) if (prefix.inQ(i, T)) size++
        expect(size).toBeGreaterThanOrEqual(1)
        expect(size).toBeLessThanOrEqual(n - 1)
      }
    }
  })
})

describe('posterior updates', () => {
  it('updateSplit equals the general update (same posterior), including across refreshes', () => {
    const n = 300
    const rng = seededRng('upd')
    const a = new LogPosterior(n)
    const b = new LogPosterior(n)
    const parts = new Int32Array(partWords(n))
    const mask = new Uint8Array(n)
    for (let t = 0; t < 400; t++) {
      const T = 1 + Math.floor(rng.next() * 15)
      rng.fillWords(parts)
      for (let i = 0; i < n; i++) mask[i] = partOf(parts, i) < T ? 1 : 0
      // mostly small increments, sometimes tens of nats (forces the exp refresh below 2^-64)
      const scale = rng.next() < 0.1 ? 60 : 2
      const inQ = (rng.next() - 0.5) * scale
      const outQ = (rng.next() - 0.5) * scale
      a.update(mask, inQ, outQ)
      b.updateSplit(parts, T, inQ - outQ)
      expect(b.maxProbability()).toBeCloseTo(a.maxProbability(), 9)
    }
    const fa = a.toArray()
    const fb = b.toArray()
    const la = a.logF
    const lb = b.logF
    const shift = lb[0] - la[0]
    for (let i = 0; i < n; i++) {
      expect(Math.abs(fb[i] - fa[i])).toBeLessThanOrEqual(1e-9 * Math.max(fa[i], 1e-300) + 1e-300)
      expect(lb[i] - shift).toBeCloseTo(la[i], 6)
    }
    expect(b.logOddsMax()).toBeCloseTo(a.logOddsMax(), 6)
  })

  it('updateSplit with the next parts sums the same first level as labelParts would (same words), across refreshes', () => {
    // Two identical searches' states: one sums the next parts' masses inside the update, the other updates and then calls
    // labelParts. Both prefixes draw the same words in the same order, so parts and splits must agree exactly, and part
    // masses up to the order of summation.
    const n = 1003
    const a = new LogPosterior(n),
      b = new LogPosterior(n)
    const pa = new RandomPrefix(n, seededRng('relabel')),
      pb = new RandomPrefix(n, seededRng('relabel'))
    const rng = seededRng('relabel-deltas')
    pa.labelParts(a.weight)
    pb.labelParts(b.weight)
    let refreshes = 0
    for (let t = 0; t < 300; t++) {
      const Ta = pa.splitLabelled(a.weight, a.total)
      const Tb = pb.splitLabelled(b.weight, b.total)
      expect(Ta).toBe(Tb)
      expect(Array.from(pa.parts)).toEqual(Array.from(pb.parts))
      const delta = (rng.next() - 0.5) * (rng.next() < 0.1 ? 120 : 4) // sometimes far enough to force a refresh
      a.updateSplit(pa.parts, Ta, delta, pa.drawNext())
      pa.adoptNext()
      const before = b.maxWeight
      b.updateSplit(pb.parts, Tb, delta)
      if (b.maxWeight === 1 && before !== 1) refreshes++
      pb.labelParts(b.weight)
      expect(Array.from(pa.parts)).toEqual(Array.from(pb.parts))
      for (let g = 0; g < pa.partMass.length; g++) {
        expect(Math.abs(pa.partMass[g] - pb.partMass[g])).toBeLessThanOrEqual(1e-12 * b.total)
      }
      // the totals are summed in another order (by part)
      expect(Math.abs(a.maxProbability() - b.maxProbability())).toBeLessThanOrEqual(1e-12 * b.maxProbability())
    }
    expect(refreshes).toBeGreaterThan(0)
  })

  it('top-|S| orders tied individuals uniformly at random', () => {
    const draws = 30_000
    const prefix = new RandomPrefix(6, seededRng('ties'))
    const randomInt = (m: number) => prefix.uniformInt(m)
    // (a) logF = [0, -1, -1, -1, -1, -2]: index 0 first, then an ordered pair of the four tied ones (12 pairs).
    const p = new LogPosterior(6)
    p.update(Uint8Array.from([1, 0, 0, 0, 0, 0]), 1, 0)
    p.update(Uint8Array.from([0, 0, 0, 0, 0, 1]), -1, 0)
    const seenA = new Map<number, number>()
    for (let t = 0; t < draws; t++) {
      const top = p.topRandomTies(3, randomInt)
      expect(top[0]).toBe(0)
      const key = top[1] * 10 + top[2]
      seenA.set(key, (seenA.get(key) ?? 0) + 1)
    }
    const exactA = new Map<number, number>()
    for (const x of [1, 2, 3, 4]) for (const y of [1, 2, 3, 4]) if (x !== y) exactA.set(x * 10 + y, 1 / 12)
    const a = chiSquare(seenA, exactA, draws)
    expect(a.stat).toBeLessThan(chiSquareQuantile(a.df, ALPHA))
    // (b) all six tied: the top 2 is a uniformly drawn ordered pair (30 pairs).
    const q = new LogPosterior(6)
    const seenB = new Map<number, number>()
    for (let t = 0; t < draws; t++) {
      const top = q.topRandomTies(2, randomInt)
      const key = top[0] * 10 + top[1]
      seenB.set(key, (seenB.get(key) ?? 0) + 1)
    }
    const exactB = new Map<number, number>()
    for (let x = 0; x < 6; x++) for (let y = 0; y < 6; y++) if (x !== y) exactB.set(x * 10 + y, 1 / 30)
    const b = chiSquare(seenB, exactB, draws)
    expect(b.stat).toBeLessThan(chiSquareQuantile(b.df, ALPHA))
  })
})

describe('exact uniform integers', () => {
  it('uniformInt(m) is uniform on [0, m) (chi-square), including a range where skipping the rejection would bias it', () => {
    // m = 3 * 2^24: without Lemire's rejection, values = 0 (mod 3) would get two of the 2^26 blocks and the others one,
    // i.e. residues mod 3 with probabilities 1/2, 1/4, 1/4; binned by residue that bias is gross. The other cases bin
    // by range.
    const cases: Array<[number, number, (x: number) => number, number]> = [
      [3, 60_000, (x) => x, 3],
      [1000, 200_000, (x) => Math.floor(x / 20), 50],
      [3 * 2 ** 24, 60_000, (x) => x % 3, 3]
    ]
    for (const [m, draws, bin, bins] of cases) {
      const prefix = new RandomPrefix(2, seededRng(`int/${m}`))
      const counts = new Map<number, number>()
      for (let t = 0; t < draws; t++) {
        const x = prefix.uniformInt(m)
        expect(Number.isInteger(x) && x >= 0 && x < m).toBe(true)
        counts.set(bin(x), (counts.get(bin(x)) ?? 0) + 1)
      }
      // every case has m divisible by the number of bins, so the bins are equally likely
      const exact = new Map<number, number>()
      for (let k = 0; k < bins; k++) exact.set(k, 1 / bins)
      const c = chiSquare(counts, exact, draws)
      expect(c.stat, `m = ${m}`).toBeLessThan(chiSquareQuantile(c.df, ALPHA))
    }
  })
})
