/**
 * The `maxGroups` bound computed in the engine (dialect.ts `truncatedCountSql`, keyed-hash.ts):
 * - the counts are those of a plain JavaScript reference of the rule (each person keeps the predicates of smallest
 *   (MD5 rank, index) among their predicates in either period; rows in no predicate take no place), in SQLite and in
 *   DuckDB (a linked CSV), for a constant and a reference threshold;
 * - the kept subset is uniform: over many persons (chi-square, alpha 1e-6) and, for one person, over many keys;
 * - the attack: adding a person changes no other person's kept predicates (per-person predicates make each person's
 *   kept set visible in the counts), with the same key, in both engines.
 * The equivalence test (sources/equivalence.test.ts) shows PostgreSQL gives the same counts as SQLite.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { ImportResult, ThresholdQueryDefinition } from '../../../src-main/contract/datasets'
import { getDataset } from '../../../src-main/services/catalog/catalog'
import { thresholdCounts } from '../../../src-main/services/datasets/threshold-evaluation'
import { thresholdPredicates } from '../../../src-main/services/datasets/threshold-predicates'
import { linkFile } from '../../../src-main/services/datasets/link-file'
import { closeDuckDb } from '../../../src-main/services/sources/duckdb-sync'
import { keyedRank, truncationKey } from '../../../src-main/services/sources/keyed-hash'
import { seededRng } from '../../../src-worker/engine/random'
import { type Harness, harness } from './harness'
import { officerAct } from '../officer-fixture'

// chi-square critical values at alpha = 1e-6 (scipy.stats.chi2.isf(1e-6, df)).
const CHI2_1E6 = { 2: 27.631, 9: 44.811 } as const

interface Row {
  person: number
  room: string
  at: number
}

const START = Date.UTC(2020, 0, 1)
const DAY = 86_400_000
const ROOMS = ['r0', 'r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7']
const iso = (t: number) => new Date(t).toISOString().replace('T', ' ').slice(0, 19)

let h: Harness
afterAll(async () => {
  await closeDuckDb()
  h.cleanup()
})
beforeAll(() => {
  h = harness()
})

/** The rows as a CSV (person, pid = "u" + person, room, at), imported (SQLite) and linked (DuckDB). */
async function load(name: string, rows: Row[]): Promise<{ sqlite: number; duckdb: number }> {
  const path = join(h.dir, `${name}.csv`)
  writeFileSync(path, ['person,pid,room,at', ...rows.map((r) => `${r.person},u${r.person},${r.room},${iso(r.at)}`)].join('\n') + '\n')
  const types = { person: 'integer', pid: 'text', room: 'text', at: 'timestamp' } as const
  const job = await h.importAndWait({ path, name, personColumn: 'person', types } as never)
  const sqlite = (job.result as ImportResult).dataset.id
  const duckdb = linkFile(h.store.db, { name: `${name} linked`, file: path, personColumn: 'person', ...officerAct(h.store.db) }).id
  return { sqlite, duckdb }
}

function counts(id: number, def: ThresholdQueryDefinition, seed: string): { counts: number[]; thresholds: number[] } {
  const db = h.store.db
  const ds = getDataset(db, id)
  const r = thresholdCounts(db, ds, def, thresholdPredicates(db, ds, def), seededRng(seed))
  return { counts: [...r.counts], thresholds: [...r.thresholds] }
}

/** The rule in plain JavaScript: what the engines must compute. */
function reference(rows: Row[], def: ThresholdQueryDefinition, seed: string) {
  const count = def.count as { cap: number; maxGroups: number }
  const rooms = (def.groups as string[][]).map((g) => g[0])
  const key = truncationKey(seededRng(seed))
  const inPeriod = (t: number, p: { from: string; to: string } | undefined) => !p || (t >= Date.parse(p.from + 'Z') && t < Date.parse(p.to + 'Z'))
  const th = def.threshold
  const ref = th.kind === 'reference' ? { from: th.from, to: th.to } : undefined
  const main = rows.filter((r) => inPeriod(r.at, def.period) && rooms.includes(r.room))
  const refRows = ref ? rows.filter((r) => inPeriod(r.at, ref) && rooms.includes(r.room)) : []
  const groups = new Map<number, Set<number>>()
  for (const r of [...main, ...refRows]) {
    if (!groups.has(r.person)) groups.set(r.person, new Set())
    groups.get(r.person)!.add(rooms.indexOf(r.room))
  }
  const kept = new Map<number, Set<number>>()
  for (const [p, set] of groups) {
    const order = [...set].map((i) => ({ i, h: keyedRank(key, String(p), i) })).sort((a, b) => a.h - b.h || a.i - b.i)
    kept.set(p, new Set(order.slice(0, count.maxGroups).map((x) => x.i)))
  }
  const capped = (cells: Map<string, number>, out: (k: string, n: number) => void) => {
    for (const [k, n] of cells) out(k, Math.min(n, count.cap))
  }
  const perPerson = new Map<string, number>()
  for (const r of main) {
    const i = rooms.indexOf(r.room)
    if (!kept.get(r.person)!.has(i)) continue
    const k = `${r.person}|${i}`
    perPerson.set(k, (perPerson.get(k) ?? 0) + 1)
  }
  const c = new Array<number>(rooms.length).fill(0)
  capped(perPerson, (k, n) => (c[Number(k.split('|')[1])] += n))
  if (th.kind !== 'reference') return { counts: c, thresholds: rooms.map(() => (th as { value: number }).value) }
  const bucketMs = th.bucket === 'hour' ? 3_600_000 : DAY
  const perBucketPerson = new Map<string, number>()
  for (const r of refRows) {
    const i = rooms.indexOf(r.room)
    if (!kept.get(r.person)!.has(i)) continue
    const k = `${r.person}|${i}|${Math.floor(r.at / bucketMs)}`
    perBucketPerson.set(k, (perBucketPerson.get(k) ?? 0) + 1)
  }
  const perBucket = new Map<string, number>()
  capped(perBucketPerson, (k, n) => {
    const [, i, b] = k.split('|')
    perBucket.set(`${i}|${b}`, (perBucket.get(`${i}|${b}`) ?? 0) + n)
  })
  const max = new Array<number>(rooms.length).fill(0)
  const sum = new Array<number>(rooms.length).fill(0)
  for (const [k, n] of perBucket) {
    const i = Number(k.split('|')[0])
    max[i] = Math.max(max[i], n)
    sum[i] += n
  }
  const buckets = Math.floor((Date.parse(th.to + 'Z') - 1) / bucketMs) - Math.floor(Date.parse(th.from + 'Z') / bucketMs) + 1
  return { counts: c, thresholds: rooms.map((_, i) => th.factor * (th.aggregate === 'max' ? max[i] : sum[i] / buckets)) }
}

describe('maxGroups in the engine', () => {
  it('SQLite and DuckDB give the counts of the rule written in JavaScript (constant and reference thresholds)', async () => {
    const rng = seededRng('maxgroups-reference-data')
    const rows: Row[] = []
    for (let p = 0; p < 300; p++) {
      for (const room of [...ROOMS, 'zz']) {
        if (rng.next() < 0.5) continue
        const n = 1 + Math.floor(rng.next() * 4)
        for (let j = 0; j < n; j++) rows.push({ person: p, room, at: START + Math.floor(rng.next() * 10 * 24) * 3_600_000 })
      }
    }
    const { sqlite, duckdb } = await load('reference', rows)
    // Predicates r0..r6: r7 and zz are rows in no predicate.
    const groups = ROOMS.slice(0, 7).map((r) => [r])
    const defs: ThresholdQueryDefinition[] = [
      {
        kind: 'threshold',
        groupBy: ['room'],
        count: { kind: 'persons', personColumn: 'person', cap: 2, maxGroups: 3 },
        threshold: { kind: 'constant', value: 5 },
        groups
      },
      {
        kind: 'threshold',
        groupBy: ['room'],
        count: { kind: 'persons', personColumn: 'person', cap: 3, maxGroups: 2 },
        period: { column: 'at', from: iso(START + 6 * DAY), to: iso(START + 10 * DAY) },
        threshold: { kind: 'reference', factor: 1.5, aggregate: 'max', bucket: 'day', column: 'at', from: iso(START), to: iso(START + 5 * DAY) },
        groups
      },
      {
        kind: 'threshold',
        groupBy: ['room'],
        count: { kind: 'persons', personColumn: 'person', cap: 1, maxGroups: 1 },
        period: { column: 'at', from: iso(START + 2 * DAY), to: iso(START + 9 * DAY) },
        threshold: {
          kind: 'reference',
          factor: 2,
          aggregate: 'mean',
          bucket: 'hour',
          column: 'at',
          from: iso(START + DAY),
          to: iso(START + 3 * DAY)
        },
        groups
      }
    ]
    for (const [j, def] of defs.entries()) {
      for (const seed of ['a', 'b']) {
        const want = reference(rows, def, `${j}-${seed}`)
        // Not vacuous: the bound bites (fewer than without it).
        const whole = reference(rows, { ...def, count: { ...(def.count as object), maxGroups: 7 } as ThresholdQueryDefinition['count'] }, 'x')
        expect(want.counts.reduce((a, b) => a + b)).toBeLessThan(whole.counts.reduce((a, b) => a + b))
        expect(counts(sqlite, def, `${j}-${seed}`), JSON.stringify(def)).toEqual(want)
        expect(counts(duckdb, def, `${j}-${seed}`), JSON.stringify(def)).toEqual(want)
      }
    }
  })

  it('the kept subset is uniform over persons (chi-square at alpha 1e-6)', async () => {
    const N = 3000
    const rows: Row[] = []
    for (let p = 0; p < N; p++) for (const room of ROOMS.slice(0, 3)) rows.push({ person: p, room, at: START })
    const { sqlite } = await load('uniform', rows)
    const groups = ROOMS.slice(0, 3).map((r) => [r])
    for (const m of [1, 2]) {
      const def: ThresholdQueryDefinition = {
        kind: 'threshold',
        groupBy: ['room'],
        count: { kind: 'persons', personColumn: 'person', cap: 1, maxGroups: m },
        threshold: { kind: 'constant', value: 1 },
        groups
      }
      const c = counts(sqlite, def, `uniform-${m}`).counts
      expect(c.reduce((a, b) => a + b)).toBe(N * m)
      // m = 1: which group is kept; m = 2: which one is dropped. Either way three cells of expectation N / 3.
      const cells = m === 1 ? c : c.map((x) => N - x)
      const chi2 = cells.reduce((s, x) => s + (x - N / 3) ** 2 / (N / 3), 0)
      expect(chi2).toBeLessThan(CHI2_1E6[2])
    }
  })

  it("one person's kept subset is uniform over keys (10 subsets of 2 among 5, 400 keys, chi-square at alpha 1e-6)", async () => {
    const rows: Row[] = ROOMS.slice(0, 5).map((room) => ({ person: 42, room, at: START }))
    const { sqlite } = await load('one person', rows)
    const def: ThresholdQueryDefinition = {
      kind: 'threshold',
      groupBy: ['room'],
      count: { kind: 'persons', personColumn: 'person', cap: 1, maxGroups: 2 },
      threshold: { kind: 'constant', value: 1 },
      groups: ROOMS.slice(0, 5).map((r) => [r])
    }
    const K = 400
    const seen = new Map<string, number>()
    for (let k = 0; k < K; k++) {
      const subset = counts(sqlite, def, `key-${k}`).counts.join('')
      seen.set(subset, (seen.get(subset) ?? 0) + 1)
    }
    expect([...seen.keys()].every((s) => s.split('').filter((x) => x === '1').length === 2)).toBe(true)
    const e = K / 10
    const chi2 = [...seen.values()].reduce((s, x) => s + (x - e) ** 2 / e, 0) + (10 - seen.size) * e
    expect(chi2).toBeLessThan(CHI2_1E6[9])
  })

  it("the attack: adding a person changes no other person's kept predicates (same key; SQLite and DuckDB)", async () => {
    const rng = seededRng('maxgroups-attack-data')
    const N = 200
    const rows: Row[] = []
    for (let p = 0; p < N; p++) {
      for (const room of ROOMS.slice(0, 6)) if (rng.next() < 0.6) rows.push({ person: p, room, at: START + Math.floor(rng.next() * 100) * 60_000 })
    }
    // The added person: rows in every room, many of them.
    const added = ROOMS.slice(0, 6).flatMap((room) => Array.from({ length: 5 }, (_, j) => ({ person: N, room, at: START + j * 60_000 })))
    const a = await load('without', rows)
    const b = await load('with', [...added, ...rows])
    // Per-person predicates (pid, room), the same public list for both datasets (the added person's included).
    const groups: string[][] = []
    for (let p = 0; p <= N; p++) for (const room of ROOMS.slice(0, 6)) groups.push([`u${p}`, room])
    const def: ThresholdQueryDefinition = {
      kind: 'threshold',
      groupBy: ['pid', 'room'],
      count: { kind: 'persons', personColumn: 'person', cap: 1, maxGroups: 2 },
      threshold: { kind: 'constant', value: 1 },
      groups
    }
    for (const [x, y] of [
      [a.sqlite, b.sqlite],
      [a.duckdb, b.duckdb]
    ]) {
      const before = counts(x, def, 'attack').counts
      const after = counts(y, def, 'attack').counts
      const others = N * 6
      expect(after.slice(0, others)).toEqual(before.slice(0, others))
      // The added person is truncated to 2 of 6, and so are the others with more than 2 rooms.
      expect(after.slice(others).reduce((s, c) => s + c)).toBe(2)
      expect(before.reduce((s, c) => s + c)).toBeLessThan(rows.length)
    }
    expect(counts(a.sqlite, def, 'attack')).toEqual(counts(a.duckdb, def, 'attack'))

    // Shared predicates (rooms): with the same key, the counts with the person are the counts without plus what the
    // person adds alone (filtered to that person): at most maxGroups counts, by at most cap each.
    const shared = (filter?: ThresholdQueryDefinition['filter']): ThresholdQueryDefinition => ({
      kind: 'threshold',
      groupBy: ['room'],
      count: { kind: 'persons', personColumn: 'person', cap: 1, maxGroups: 2 },
      threshold: { kind: 'constant', value: 1 },
      groups: ROOMS.slice(0, 6).map((r) => [r]),
      ...(filter ? { filter } : {})
    })
    for (const key of ['k1', 'k2', 'k3']) {
      for (const [x, y] of [
        [a.sqlite, b.sqlite],
        [a.duckdb, b.duckdb]
      ]) {
        const without = counts(x, shared(), key).counts
        const alone = counts(y, shared([{ column: 'person', op: '=', value: N }]), key).counts
        expect(alone.filter((c) => c > 0).length).toBe(2)
        expect(counts(y, shared(), key).counts).toEqual(without.map((c, i) => c + alone[i]))
      }
    }
  })
})
