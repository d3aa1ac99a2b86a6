/**
 * The DuckDB two-pass maxGroups form (duckdb-truncation.ts: predicate bits as literal words ORed per person, ranks in
 * doubles by keyed-hash.ts `rankOfSmallIndex`, each person's m smallest (rank, i)) on data built to break it, held to
 * two references: dialect.ts's single statement on the same DuckDB source, and the rule computed here in JavaScript
 * from the rows this file wrote (keyed-hash.ts `keyedRank` in BigInt, the key the evaluation draws from its generator).
 * If the kept sets differed, a person could add to more than maxGroups counts or to counts it has no rows in, and the
 * sensitivity the charge assumes would not hold.
 *
 * The data: persons with rows in one predicate only, at every index where a 32-bit half or a 64-bit word begins or
 * ends (bit 31 and bit 63 of a word are the sign bits of the int32 and int64 the words pass through); persons in every
 * one of 512 predicates; persons in the indices of every word's bit 31 and 63 only; persons in two adjacent predicates
 * across a word boundary (which one is kept depends on the ranks alone); persons in one period only (a reference
 * threshold keeps over both periods); a nullable text key, so that NULL keys are predicates; and predicates that are
 * null entries of the bound (a duplicate key, a key no row can have) at boundary indices.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { ThresholdQueryDefinition } from '../../../src-main/contract/datasets'
import { linkFile } from '../../../src-main/services/datasets/link-file'
import { getDataset } from '../../../src-main/services/catalog/catalog'
import { findColumn } from '../../../src-main/services/catalog/columns'
import { predicateStoredValues } from '../../../src-main/services/datasets/threshold-evaluation'
import { thresholdPredicates } from '../../../src-main/services/datasets/threshold-predicates'
import { type Sql, whereOf } from '../../../src-main/services/sources/dialect'
import { closeDuckDb, duckAll, duckString } from '../../../src-main/services/sources/duckdb-sync'
import { twoPassTruncation } from '../../../src-main/services/sources/duckdb-truncation'
import { sourceFor } from '../../../src-main/services/sources/source'
import { keyedRank, truncationKey } from '../../../src-main/services/sources/keyed-hash'
import { seededRng } from '../../../src-worker/engine/random'
import { type Harness, harness } from '../datasets/harness'
import { officerAct } from '../officer-fixture'
import { type FormRun, groupsDefinition, runInForm } from './truncation-forms'

const START = Date.UTC(2021, 2, 1)
const HOUR = 3_600_000
const DAY = 24 * HOUR
const iso = (t: number) => new Date(t).toISOString().replace('T', ' ').slice(0, 19)
/** Where a 32-bit half or a 64-bit word of the predicate bits begins or ends. */
const EDGES = Array.from({ length: 16 }, (_, q) => [32 * q, 32 * q + 31]).flat()
const SIGN_BITS = Array.from({ length: 8 }, (_, w) => [64 * w + 31, 64 * w + 63]).flat()
const NULL_KEYS = ['n1', 'n2', null] as const

interface Row {
  pt: string
  pi: number
  g: number
  gn: string | null
  at: number
}

let h: Harness
let id: number
const rows: Row[] = []

beforeAll(() => {
  h = harness()
  const rng = seededRng('review6-adversarial')
  const r = () => rng.next()
  let n = 0
  const person = (rowsOf: (add: (g: number, day: number) => void) => void) => {
    const pt = `p${n}`
    const pi = n - 200
    n++
    rowsOf((g, day) => rows.push({ pt, pi, g: 1000 + g, gn: NULL_KEYS[Math.floor(r() * 3)], at: START + day * DAY + Math.floor(r() * DAY) }))
  }
  // Alone in one edge predicate, several rows (past a cap of 1 or 2), in the main period, the reference or both.
  for (const i of [...EDGES, 65, 127, 128, 129, 192, 256, 320, 448, 511]) {
    for (const days of [[0], [2], [1, 3]]) person((add) => [0, 1, 2].forEach((k) => add(i, days[k % days.length])))
  }
  // In every one of 512 predicates, in the main period, the reference, or one row per predicate split between them.
  for (let k = 0; k < 24; k++) person((add) => Array.from({ length: 512 }, (_, i) => add(i, k % 3 === 0 ? 0 : k % 3 === 1 ? 2 : i % 4)))
  // In the sign-bit predicates only.
  for (let k = 0; k < 24; k++) person((add) => SIGN_BITS.forEach((i) => add(i, k % 4)))
  // Two adjacent predicates across each half and word boundary: which is kept is the ranks' choice.
  for (const i of [31, 63, 95, 127, 191, 255, 319, 383, 447, 510])
    for (let k = 0; k < 12; k++) person((add) => [i, i + 1].forEach((j) => add(j, k % 4)))
  // Random subsets of every size, boundary indices favoured.
  for (let k = 0; k < 150; k++) {
    const size = 1 + Math.floor(r() ** 2 * 511)
    person((add) => {
      for (let j = 0; j < size; j++) add(r() < 0.3 ? EDGES[Math.floor(r() * EDGES.length)] : Math.floor(r() * 512), Math.floor(r() * 4))
    })
  }
  const lines = ['pt,pi,g,gn,at', ...rows.map((x) => [x.pt, x.pi, x.g, x.gn ?? '', iso(x.at)].join(','))]
  const csvPath = join(h.dir, 'adversarial.csv')
  writeFileSync(csvPath, lines.join('\n') + '\n')
  const pq = join(h.dir, 'adversarial.parquet')
  duckAll(
    `COPY (SELECT * FROM read_csv(${duckString(csvPath)}, header = true, auto_detect = false, ` +
      `columns = {'pt': 'VARCHAR', 'pi': 'BIGINT', 'g': 'BIGINT', 'gn': 'VARCHAR', 'at': 'TIMESTAMP'})) TO ${duckString(pq)} (FORMAT parquet, ROW_GROUP_SIZE 2048)`
  )
  id = linkFile(h.store.db, { name: 'adversarial', file: pq, personColumn: 'pt', ...officerAct(h.store.db) }).id
})

afterAll(async () => {
  await closeDuckDb()
  h.cleanup()
})

type Run = FormRun

function run(def: ThresholdQueryDefinition, twoPass: boolean, seed: string): Run {
  return runInForm(h.store.db, id, def, twoPass ? 'two-pass' : 'single', seed)
}

type Key = Array<number | string | null>

/**
 * The rule in JavaScript: each person keeps the m predicates of smallest (keyedRank, i) among those its rows are in
 * (over both periods with a reference), duplicates and keys no row can have taking no place; counts sum min(rows, cap).
 */
function expected(def: ThresholdQueryDefinition, seed: string, personColumn: 'pt' | 'pi'): { counts: number[]; max: number[]; sum: number[] } {
  const key = truncationKey(seededRng(seed))
  const count = def.count as { cap: number; maxGroups: number }
  const groups = def.groups as Key[]
  const cols = def.groupBy as Array<'g' | 'gn'>
  const first = new Map<string, number>()
  const live = groups.map((k, i) => {
    const s = JSON.stringify(k)
    if (first.has(s)) return false
    first.set(s, i)
    return true
  })
  const index = new Map<string, number>()
  groups.forEach((k, i) => {
    if (live[i]) index.set(JSON.stringify(k), i)
  })
  const span = (p: { from: string; to: string } | undefined) =>
    p ? [Date.parse(p.from.replace(' ', 'T') + 'Z'), Date.parse(p.to.replace(' ', 'T') + 'Z')] : [-Infinity, Infinity]
  const [mf, mt] = span(def.period)
  const th = def.threshold
  const ref = th.kind === 'reference' ? span(th) : null
  const bucketMs = th.kind === 'reference' && th.bucket === 'hour' ? HOUR : DAY
  const inMain = new Map<string, Map<number, number>>()
  const inRef = new Map<string, Map<string, number>>()
  const predicatesOf = new Map<string, Set<number>>()
  for (const x of rows) {
    const i = index.get(JSON.stringify(cols.map((c) => x[c])))
    if (i === undefined) continue
    const p = String(x[personColumn])
    const main = x.at >= mf && x.at < mt
    const inReference = ref !== null && x.at >= ref[0] && x.at < ref[1]
    if (!main && !inReference) continue
    if (!predicatesOf.has(p)) predicatesOf.set(p, new Set())
    predicatesOf.get(p)!.add(i)
    if (main) {
      const m = inMain.get(p) ?? new Map<number, number>()
      m.set(i, (m.get(i) ?? 0) + 1)
      inMain.set(p, m)
    }
    if (inReference) {
      const m = inRef.get(p) ?? new Map<string, number>()
      const k = `${i}:${Math.floor(x.at / bucketMs)}`
      m.set(k, (m.get(k) ?? 0) + 1)
      inRef.set(p, m)
    }
  }
  const n = groups.length
  const counted = new Array<number>(n).fill(0)
  const perBucket = new Map<string, number>()
  for (const [p, set] of predicatesOf) {
    const ranked = [...set].map((i) => [keyedRank(key, p, i), i]).sort((a, b) => a[0] - b[0] || a[1] - b[1])
    const kept = new Set(ranked.slice(0, count.maxGroups).map((x) => x[1]))
    expect(kept.size).toBeLessThanOrEqual(count.maxGroups)
    for (const [i, c] of inMain.get(p) ?? []) if (kept.has(i)) counted[i] += Math.min(c, count.cap)
    for (const [k, c] of inRef.get(p) ?? []) {
      if (kept.has(Number(k.split(':')[0]))) perBucket.set(k, (perBucket.get(k) ?? 0) + Math.min(c, count.cap))
    }
  }
  const max = new Array<number>(n).fill(0)
  const sum = new Array<number>(n).fill(0)
  for (const [k, c] of perBucket) {
    const i = Number(k.split(':')[0])
    max[i] = Math.max(max[i], c)
    sum[i] += c
  }
  const byFirst = (xs: number[]) => groups.map((k) => xs[first.get(JSON.stringify(k))!])
  return { counts: byFirst(counted), max: byFirst(max), sum: byFirst(sum) }
}

/** Two-pass = single statement = the rule; the two-pass form ran. */
function holds(def: ThresholdQueryDefinition, personColumn: 'pt' | 'pi', seed: string): Run {
  const a = run(def, true, seed)
  const b = run(def, false, seed)
  const what = `${JSON.stringify(def.count)} ${def.groups!.length} groups ${def.threshold.kind} seed ${seed}`
  expect(a.twoPass, what).toBe(true)
  expect(b.twoPass).toBe(false)
  expect(a.counts, what).toEqual(b.counts)
  expect(a.thresholds, what).toEqual(b.thresholds)
  const want = expected(def, seed, personColumn)
  expect(a.counts, what).toEqual(want.counts)
  const th = def.threshold
  if (th.kind === 'reference' && th.aggregate === 'max') expect(a.thresholds, what).toEqual(want.max.map((x) => th.factor * x))
  return a
}

function def(n: number, personColumn: 'pt' | 'pi', maxGroups: number, cap: number, more: Partial<ThresholdQueryDefinition> = {}) {
  return groupsDefinition(n, personColumn, { cap, maxGroups }, more)
}

const reference = (aggregate: 'max' | 'mean', bucket: 'hour' | 'day'): Partial<ThresholdQueryDefinition> => ({
  period: { column: 'at', from: iso(START), to: iso(START + 2 * DAY) },
  threshold: { kind: 'reference', factor: 1, aggregate, bucket, column: 'at', from: iso(START + 2 * DAY), to: iso(START + 4 * DAY) }
})

const tablesLeft = () => Number(duckAll(`SELECT count(*) FROM duckdb_tables() WHERE table_name LIKE 'qa_truncation%'`).rows[0][0])

describe('the two-pass maxGroups form on adversarial data: the single statement and the rule', { timeout: 600_000 }, () => {
  it('512 predicates, m on both sides of the insertion bound and of a word up to 511, cap 1 and 2, text and integer persons, two keys', () => {
    for (const m of [1, 2, 16, 17, 63, 64, 511]) {
      for (const personColumn of ['pt', 'pi'] as const) {
        const got = holds(def(512, personColumn, m, m % 2 === 0 ? 2 : 1), personColumn, `m${m}-${personColumn}`)
        expect(got.counts.some((c) => c > 0)).toBe(true)
      }
    }
    for (const seed of ['k1', 'k2']) holds(def(512, 'pt', 1, 1), 'pt', seed)
    expect(tablesLeft()).toBe(0)
  })

  it('predicates in 1 to 8 words: the last index of every word and half in the last word, m up to one below the number', () => {
    for (const n of [32, 33, 64, 65, 128, 129, 192, 256, 257, 448, 511]) {
      for (const m of [1, 17, n - 1]) holds(def(n, 'pt', m, 2), 'pt', `n${n}-m${m}`)
    }
  })

  it('persons read a few at a time (one append of their kept pairs per read): the rule, m either side of the insertion bound and past every bit', () => {
    const db = h.store.db
    const ds = getDataset(db, id)
    const src = sourceFor(db, ds)
    const d = src.dialect
    for (const [m, most] of [
      [1, 1],
      [16, 3],
      [17, 2],
      [600, 4]
    ]) {
      const seed = `pieces-${m}-${most}`
      const dfn = def(512, 'pt', m, 2)
      const predicates = thresholdPredicates(db, ds, dfn).keys.map((k) => predicateStoredValues(['integer'], k))
      const t = { person: findColumn(ds, 'pt', 'p'), predicates, key: truncationKey(seededRng(seed)), maxGroups: m, cap: 2 }
      const appends: number[] = []
      const counting = {
        all: (q: Sql) => src.all(q),
        numbers: (q: Sql) => src.numbers!(q),
        appendNumbers: (table: string, values: Float64Array) => {
          appends.push(values.length)
          src.appendNumbers!(table, values)
        }
      }
      const rowsOf = twoPassTruncation(counting, d, ds, dfn, t, whereOf(d, ds, dfn, null), null, most)!
      const counts = new Array<number>(512).fill(0)
      for (const [i, n] of rowsOf.counts) counts[Number(i)] = Number(n)
      expect(counts, `m ${m}, ${most} per read`).toEqual(expected(dfn, seed, 'pt').counts)
      expect(appends.length).toBeGreaterThan(100)
      expect(Math.max(...appends)).toBeLessThanOrEqual(m * most)
    }
    expect(tablesLeft()).toBe(0)
  })

  it('a person alone in an edge predicate is counted there, with maxGroups 1 and cap 1', () => {
    const got = holds(def(512, 'pt', 1, 1), 'pt', 'alone')
    // Each edge index holds at least its three lone persons of the main period (the period-less definition counts all).
    for (const i of EDGES) expect(got.counts[i], `index ${i}`).toBeGreaterThanOrEqual(3)
  })

  it('reference thresholds: persons in one period only, the kept set over both, hour and day buckets', () => {
    for (const [aggregate, bucket] of [
      ['max', 'hour'],
      ['max', 'day'],
      ['mean', 'day']
    ] as const) {
      for (const m of [1, 17]) {
        const got = holds(def(512, 'pt', m, 2, reference(aggregate, bucket)), 'pt', `ref-${aggregate}-${bucket}-${m}`)
        expect(got.thresholds.some((x) => x > 0)).toBe(true)
      }
    }
  })

  it('null entries of the bound at edge indices (duplicate keys), keys no row has, and m not below the live predicates', () => {
    const groups: Key[] = Array.from({ length: 512 }, (_, i) => [1000 + i])
    // Duplicates of earlier keys at 63, 64, 127 and 511 (null entries); keys no row has at 31, 32, 255, 256.
    groups[63] = [1000]
    groups[64] = [1000]
    groups[127] = [1126]
    groups[511] = [1510]
    for (const i of [31, 32, 255, 256]) groups[i] = [99_000 + i]
    for (const m of [1, 2, 17, 300]) {
      const d = { ...def(0, 'pt', m, 2), groups }
      const got = holds(d, 'pt', `dups-${m}`)
      expect(got.counts[63]).toBe(got.counts[0])
      expect(got.counts[64]).toBe(got.counts[0])
      expect(got.counts[127]).toBe(got.counts[126])
      expect(got.counts[511]).toBe(got.counts[510])
      for (const i of [31, 32, 255, 256]) expect(got.counts[i]).toBe(0)
    }
    // 500 keys of 64 distinct ones and m = 100: the bound keeps everything, as without it.
    const few: Key[] = Array.from({ length: 500 }, (_, i) => [1000 + ((i * 37) % 64) * 8])
    const all = holds({ ...def(0, 'pt', 100, 2), groups: few }, 'pt', 'few')
    const unbounded = run({ ...def(0, 'pt', 100, 2), groups: few, count: { kind: 'persons', personColumn: 'pt', cap: 2 } }, false, 'few')
    expect(all.counts).toEqual(unbounded.counts)
  })

  it('NULL keys as predicates: (gn, g) with gn NULL at edge indices', () => {
    const groups: Key[] = Array.from({ length: 512 }, (_, i) => [NULL_KEYS[i % 3], 1000 + (i >> 1)])
    for (const i of [63, 64, 127, 128, 511]) groups[i] = [null, 1000 + i]
    for (const m of [1, 5, 40]) {
      const got = holds({ ...def(0, 'pt', m, 1), groupBy: ['gn', 'g'], groups }, 'pt', `nulls-${m}`)
      expect(got.counts[63] + got.counts[64] + got.counts[511]).toBeGreaterThan(0)
    }
    const refGot = holds({ ...def(0, 'pi', 3, 2, reference('max', 'hour')), groupBy: ['gn', 'g'], groups }, 'pi', 'nulls-ref')
    expect(refGot.thresholds.some((x) => x > 0)).toBe(true)
  })
})
