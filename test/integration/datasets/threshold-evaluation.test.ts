/**
 * Threshold query evaluation against a naive computation in TypeScript on generated data: every threshold kind,
 * row counts and person counts with a contribution cap, filters, periods, explicit groups, SQL-looking names.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { ImportResult, ThresholdQueryDefinition } from '../../../src-main/contract/datasets'
import { evaluateThresholdQuery, type ThresholdEvaluation } from '../../../src-main/services/datasets'
import { seededRng } from '../../../src-worker/engine/random'
import { type Harness, harness } from './harness'
import { officerAct } from '../officer-fixture'

const EVIL = 'x"; DROP TABLE datasets; --'
const KINDS = ['in', 'out', "a'); DROP TABLE queries; --", '[bracket]']

interface Row {
  person: string
  room: string
  floor: number
  kind: string
  at: number
  value: number
}

let h: Harness
let rows: Row[]
let ds: number
let limits: number

function csvField(s: string): string {
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s
}

beforeAll(async () => {
  h = harness()
  const rng = seededRng('threshold-evaluation')
  const pick = <T>(xs: T[]) => xs[Math.floor(rng.next() * xs.length)]
  const start = Date.UTC(2015, 0, 1)
  const end = Date.UTC(2015, 2, 8)
  rows = []
  for (let i = 0; i < 6000; i++) {
    rows.push({
      // Few persons so that caps bind.
      person: `p${Math.floor(rng.next() ** 2 * 25)}`,
      room: pick(['r1', 'r2', 'r3', 'r4', 'r5']),
      floor: pick([1, 2, 3]),
      kind: pick(KINDS),
      at: start + Math.floor(rng.next() * ((end - start) / 60_000)) * 60_000,
      value: Math.round(rng.next() * 1000) / 10
    })
  }
  const iso = (t: number) => new Date(t).toISOString().replace('T', ' ').slice(0, 19)
  const text = [
    ['person', 'room', 'floor', EVIL, 'at', 'value'].map(csvField).join(','),
    ...rows.map((r) => [r.person, r.room, String(r.floor), r.kind, iso(r.at), String(r.value)].map(csvField).join(','))
  ].join('\n')
  writeFileSync(join(h.dir, 'events.csv'), text)
  let job = await h.importAndWait({ path: join(h.dir, 'events.csv'), name: 'events' })
  ds = (job.result as ImportResult).dataset.id
  // Threshold table: r1..r4 and r9 (no data); r5 has data but no threshold.
  writeFileSync(join(h.dir, 'limits.csv'), 'site,limit\nr1,40\nr2,35.5\nr3,10\nr4,0\nr9,7\n')
  job = await h.importAndWait({ path: join(h.dir, 'limits.csv'), name: 'limits' })
  limits = (job.result as ImportResult).dataset.id
  await h.handlers['datasets/declare-public']({ datasetId: limits, reason: 'posted room limits', ...officerAct(h.store.db, 'officer') })
})
afterAll(() => h.cleanup())

// ---------------------------------------------------------------------------------------------------------------
// The naive computation.

type Key = Array<string | number | null>
const keyOf = (k: Key) => JSON.stringify(k.map((v) => (v === null ? null : String(v))))
const field = (r: Row, c: string): string | number => (c === EVIL ? r.kind : (r as unknown as Record<string, string | number>)[c])

function naiveCount(def: ThresholdQueryDefinition, match: (r: Row) => boolean, from?: number, to?: number): Map<string, number> {
  const sel = rows.filter((r) => match(r) && (from === undefined || (r.at >= from && r.at < to!)))
  const out = new Map<string, number>()
  if (def.count.kind === 'rows') {
    for (const r of sel) {
      const k = keyOf(def.groupBy.map((c) => field(r, c)))
      out.set(k, (out.get(k) ?? 0) + 1)
    }
    return out
  }
  const per = new Map<string, number>()
  for (const r of sel) {
    const k = keyOf(def.groupBy.map((c) => field(r, c)))
    const pk = `${k}|${r.person}`
    per.set(pk, (per.get(pk) ?? 0) + 1)
  }
  for (const [pk, n] of per) {
    const k = pk.slice(0, pk.lastIndexOf('|'))
    out.set(k, (out.get(k) ?? 0) + Math.min(n, def.count.cap))
  }
  return out
}

function allKeys(def: ThresholdQueryDefinition): string[] {
  return [...new Set(rows.map((r) => keyOf(def.groupBy.map((c) => field(r, c)))))]
}

/** Saves `def`; without a public source of groups, with every key tuple of the generated rows listed in `groups`. */
function save(def: ThresholdQueryDefinition, datasetId = ds): Promise<number> {
  const definition =
    def.threshold.kind === 'column' || def.groups || def.groupsFrom ? def : { ...def, groups: allKeys(def).map((k) => JSON.parse(k) as Key) }
  return h.handlers['queries/save']({ datasetId, name: 'q', definition }).then((q) => q.id)
}

function asMap(e: ThresholdEvaluation): Map<string, { count: number; threshold: number }> {
  return new Map(e.predicates.map((p) => [p.key, { count: p.count, threshold: p.threshold }]))
}

const T = (s: string) => Date.parse(s)

describe('threshold query evaluation equals a naive computation', () => {
  it('constant threshold, row counts, filter and period; zero-count groups stay predicates', async () => {
    const def: ThresholdQueryDefinition = {
      kind: 'threshold',
      filter: [
        { column: EVIL, op: 'in', value: [KINDS[0], KINDS[2]] },
        { column: 'value', op: '>=', value: 20 }
      ],
      period: { column: 'at', from: '2015-02-01', to: '2015-02-01 06:00:00' },
      groupBy: ['room', 'floor'],
      count: { kind: 'rows' },
      threshold: { kind: 'constant', value: 3 }
    }
    const e = evaluateThresholdQuery(h.store, await save(def))
    const naive = naiveCount(
      def,
      (r) => (r.kind === KINDS[0] || r.kind === KINDS[2]) && r.value >= 20,
      T('2015-02-01T00:00:00Z'),
      T('2015-02-01T06:00:00Z')
    )
    const keys = allKeys(def)
    expect(e.predicates.length).toBe(keys.length)
    expect(e.sensitivity).toBe(1)
    const m = asMap(e)
    for (const k of keys) expect(m.get(k)).toEqual({ count: naive.get(k) ?? 0, threshold: 3 })
    // The short period leaves some groups empty: they are still predicates, with count 0.
    expect(e.predicates.some((p) => p.count === 0)).toBe(true)
    expect(e.predicates.find((p) => p.key === keyOf(['r1', 2]))?.label).toBe('room=r1, floor=2')
  })

  it('distinct persons with a contribution cap: count = sum of min(contributions, cap), sensitivity = cap', async () => {
    // Whole data: every person has more than `cap` rows per room; one day: many have fewer.
    for (const [cap, day] of [
      [1, false],
      [3, false],
      [3, true]
    ] as const) {
      const def: ThresholdQueryDefinition = {
        kind: 'threshold',
        filter: [{ column: EVIL, op: '!=', value: KINDS[1] }],
        groupBy: ['room'],
        count: { kind: 'persons', personColumn: 'person', cap },
        threshold: { kind: 'constant', value: 100 }
      }
      if (day) def.period = { column: 'at', from: '2015-01-10', to: '2015-01-11' }
      const e = evaluateThresholdQuery(h.store, await save(def))
      const naive = day
        ? naiveCount(def, (r) => r.kind !== KINDS[1], T('2015-01-10T00:00:00Z'), T('2015-01-11T00:00:00Z'))
        : naiveCount(def, (r) => r.kind !== KINDS[1])
      expect(e.sensitivity).toBe(cap)
      const m = asMap(e)
      for (const k of allKeys(def)) expect(m.get(k)?.count).toBe(naive.get(k) ?? 0)
      // The cap binds (otherwise this test would not test it).
      const uncapped = naiveCount({ ...def, count: { kind: 'rows' } }, (r) => r.kind !== KINDS[1])
      expect([...m.entries()].some(([k, v]) => v.count < (uncapped.get(k) ?? 0))).toBe(true)
    }
  })

  it('column threshold from another dataset: its keys are the predicates', async () => {
    const def: ThresholdQueryDefinition = {
      kind: 'threshold',
      period: { column: 'at', from: '2015-01-05', to: '2015-01-06' },
      groupBy: ['room'],
      count: { kind: 'persons', personColumn: 'person', cap: 2 },
      threshold: { kind: 'column', datasetId: limits, column: 'limit', on: { room: 'site' } }
    }
    const e = evaluateThresholdQuery(h.store, await save(def))
    const naive = naiveCount(def, () => true, T('2015-01-05T00:00:00Z'), T('2015-01-06T00:00:00Z'))
    expect(e.predicates.map((p) => [p.key, p.threshold])).toEqual([
      [keyOf(['r1']), 40],
      [keyOf(['r2']), 35.5],
      [keyOf(['r3']), 10],
      [keyOf(['r4']), 0],
      [keyOf(['r9']), 7]
    ])
    for (const p of e.predicates) expect(p.count).toBe(naive.get(p.key) ?? 0)
    expect(e.predicates.find((p) => p.key === keyOf(['r9']))?.count).toBe(0)
  })

  it('reference threshold: factor x max (or mean) over time buckets of a reference period', async () => {
    for (const [aggregate, bucket, cap] of [
      ['max', 'day', 2],
      ['mean', 'hour', 0]
    ] as const) {
      const def: ThresholdQueryDefinition = {
        kind: 'threshold',
        filter: [{ column: 'floor', op: '<=', value: 2 }],
        period: { column: 'at', from: '2015-03-01', to: '2015-03-02' },
        groupBy: [EVIL, 'floor'],
        count: cap ? { kind: 'persons', personColumn: 'person', cap } : { kind: 'rows' },
        threshold: { kind: 'reference', factor: 0.8, aggregate, bucket, from: '2015-01-01', to: '2015-03-01' }
      }
      const e = evaluateThresholdQuery(h.store, await save(def))
      const match = (r: Row) => r.floor <= 2
      const naive = naiveCount(def, match, T('2015-03-01T00:00:00Z'), T('2015-03-02T00:00:00Z'))
      const size = bucket === 'day' ? 86_400_000 : 3_600_000
      const from = T('2015-01-01T00:00:00Z')
      const to = T('2015-03-01T00:00:00Z')
      const ref = new Map<string, number[]>()
      for (let b = from; b < to; b += size) {
        for (const [k, n] of naiveCount(def, match, b, b + size)) {
          const list = ref.get(k) ?? []
          list.push(n)
          ref.set(k, list)
        }
      }
      const buckets = (to - from) / size
      const m = asMap(e)
      expect(m.size).toBe(allKeys(def).length)
      for (const k of allKeys(def)) {
        const list = ref.get(k) ?? []
        const agg = list.length === 0 ? 0 : aggregate === 'max' ? Math.max(...list) : list.reduce((a, b) => a + b, 0) / buckets
        expect(m.get(k)?.count).toBe(naive.get(k) ?? 0)
        expect(m.get(k)?.threshold).toBeCloseTo(0.8 * agg, 9)
      }
    }
  })

  it('explicit groups define the predicate set (absent groups count 0, others are left out)', async () => {
    const def: ThresholdQueryDefinition = {
      kind: 'threshold',
      groupBy: ['room', 'floor'],
      count: { kind: 'rows' },
      threshold: { kind: 'constant', value: 5 },
      groups: [
        ['r2', 3],
        ['r7', 1],
        ['r1', '1']
      ]
    }
    const e = evaluateThresholdQuery(h.store, await save(def))
    const naive = naiveCount(def, () => true)
    expect(e.predicates.map((p) => [p.key, p.count])).toEqual([
      [keyOf(['r2', 3]), naive.get(keyOf(['r2', 3]))],
      [keyOf(['r7', 1]), 0],
      [keyOf(['r1', 1]), naive.get(keyOf(['r1', 1]))]
    ])
  })

  it('refuses definitions that do not fit the dataset, with one sentence each', async () => {
    const base = { kind: 'threshold', groupBy: ['room'], count: { kind: 'rows' }, threshold: { kind: 'constant', value: 1 }, groups: [['r1']] }
    const bad: Array<[unknown, RegExp]> = [
      [{ ...base, groupBy: ['nope'] }, /^Dataset "events" has no column "nope" \(used as the group-by column 1\)$/],
      [{ ...base, filter: [{ column: 'room', op: '; DROP', value: 1 }] }, /^Filter condition 1: the operator must be one of/],
      [{ ...base, filter: [{ column: 'floor', op: '=', value: 'abc' }] }, /^Filter condition 1's value must be a number/],
      [{ ...base, period: { column: 'room', from: '2015-01-01', to: '2015-02-01' } }, /^The period column "room" must be a timestamp column/],
      [{ ...base, period: { column: 'at', from: '2015-02-01', to: '2015-01-01' } }, /must be before its "to"/],
      [{ ...base, count: { kind: 'persons', personColumn: 'person', cap: 0 } }, /^The contribution cap must be a whole number from 1/],
      [{ ...base, groups: undefined, threshold: { kind: 'column', datasetId: limits, column: 'limit' } }, /^Dataset "limits" has no column "room"/],
      [
        { ...base, threshold: { kind: 'reference', factor: 0.8, aggregate: 'max', bucket: 'week', from: '2015-01-01', to: '2015-02-01' } },
        /bucket must be "hour" or "day"/
      ],
      [{ ...base, groups: [['r1'], ['r1']] }, /^Group 2 is listed twice/]
    ]
    for (const [definition, message] of bad) {
      await expect(h.handlers['queries/save']({ datasetId: ds, name: 'bad', definition: definition as ThresholdQueryDefinition })).rejects.toThrow(
        message
      )
    }
  })
})
