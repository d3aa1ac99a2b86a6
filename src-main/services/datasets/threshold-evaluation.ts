/**
 * Evaluation of a saved threshold query: the predicates (one per group), each with its TRUE count and its threshold,
 * and the sensitivity of the counts. For the release service and for sweeps only: true counts are internal and must
 * never reach the analyst through the contract, logs or error messages.
 *
 * The predicate set is public (threshold-predicates.ts: explicit `groups`, a public dataset's keys, or a public threshold
 * table); a key with no row in the filter and period is a predicate with count 0. A key list read from the counted data
 * is refused (ALGORITHMS.md section 5).
 * Counts: rows matching the filter and the period [from, to); with a person column, sum over persons of
 * min(rows of that person in the group, cap) (rows without a person are left out); sensitivity = cap (1 for rows).
 * Comparisons never match empty (NULL) values, except `is null`.
 * Reference threshold: factor x (max or mean) over the time buckets (UTC hours/days, aligned to the epoch) that
 * intersect the reference period, of the group's count in the bucket (same filter and count); empty buckets count 0.
 */
import type Database from 'better-sqlite3'
import type { ThresholdQueryDefinition } from '../../contract/datasets'
import { UserError } from '../errors'
import { groupKey } from './column-types'
import { type CatalogDataset, getDataset } from './catalog'
import { type Period, type Where, groupCountSql, personTuplesSql, referenceSql, whereOf } from '../sources/dialect'
import { type Source, sourceFor } from '../sources/source'
import { checkThresholdDefinition, findColumn, storedValueFor } from './query-definitions'
import { getQuery } from './query-store'
import { type PublicPredicates, thresholdPredicates } from './threshold-predicates'
import { type Rng, keepRandomSubset, seededRng } from '../../../src-worker/engine/random'

export interface ThresholdPredicate {
  /** Stable key of the group: JSON list of its key values (text form) in group-by order. */
  key: string
  /** e.g. `room=B12, day=2015-01-01T00:00:00.000Z` */
  label: string
  /** TRUE count: internal only. */
  count: number
  threshold: number
}

export interface ThresholdEvaluation {
  predicates: ThresholdPredicate[]
  /** How much one person (or row) can change one predicate's count. */
  sensitivity: number
  datasetId: number
  groupBy: string[]
}

const HOUR_MS = 3_600_000
const DAY_MS = 86_400_000

function periodOf(ds: CatalogDataset, column: string, from: string, to: string): Period {
  const col = findColumn(ds, column, 'period column')
  return { column: col, from: storedValueFor(col, from, 'from') as number, to: storedValueFor(col, to, 'to') as number }
}

/**
 * The TRUE counts (and reference thresholds) of public predicates, read from the counted dataset: internal, for the
 * release's execution after its charge and for simulations on public datasets. In `predicates.keys` order.
 */
export function thresholdCounts(
  db: Database.Database,
  ds: CatalogDataset,
  def: ThresholdQueryDefinition,
  predicates: PublicPredicates,
  rng?: Rng
): { counts: Float64Array; thresholds: Float64Array } {
  if (def.count.kind === 'persons' && def.count.maxGroups !== undefined && def.count.maxGroups < predicates.keys.length) {
    if (!rng) throw new Error('bounding the groups per person needs a generator')
    return truncatedCounts(sourceFor(db, ds), ds, def, def.count, predicates, rng)
  }
  const src = sourceFor(db, ds)
  const d = src.dialect
  const keyCols = def.groupBy.map((g) => findColumn(ds, g, 'group-by column'))
  const types = keyCols.map((c) => c.type)
  const G = keyCols.length
  const period = def.period ? periodOf(ds, def.period.column, def.period.from, def.period.to) : null
  const byKey = new Map<string, number>()
  const main = groupCountSql(d, ds, def, whereOf(d, ds, def, period), null)
  for (const r of src.all(main)) byKey.set(groupKey(types, r.slice(0, G)), Number(r[G] ?? 0))
  const counts = Float64Array.from(predicates.keys, (k) => byKey.get(k) ?? 0)

  const th = def.threshold
  if (th.kind !== 'reference') {
    if (predicates.thresholds === null) throw new Error('public thresholds missing')
    return { counts, thresholds: predicates.thresholds }
  }
  const ref = periodOf(ds, th.column!, th.from, th.to)
  const bucketMs = th.bucket === 'hour' ? HOUR_MS : DAY_MS
  const agg = referenceSql(def, groupCountSql(d, ds, def, whereOf(d, ds, def, ref), bucketMs))
  const buckets = Math.floor((ref.to - 1) / bucketMs) - Math.floor(ref.from / bucketMs) + 1
  const refValue = new Map<string, number>()
  for (const r of src.all(agg)) {
    const mx = Number(r[G])
    const sum = Number(r[G + 1])
    refValue.set(groupKey(types, r.slice(0, G)), th.aggregate === 'max' ? Math.max(0, mx) : sum / buckets)
  }
  const thresholds = Float64Array.from(predicates.keys, (k) => th.factor * (refValue.get(k) ?? 0))
  return { counts, thresholds }
}

/**
 * The counts when persons may add to at most `maxGroups` predicates (L0 bound, ALGORITHMS.md section 6): each person's
 * predicates (in the period or, for a reference threshold, in the reference period) are found per person; a person in
 * more than `maxGroups` keeps a uniformly random subset of that many (drawn with `rng`: the secure generator in a release,
 * a seeded one in a simulation), and rows in the other groups are dropped from the count and the reference alike. Then,
 * as without the bound, each person adds min(rows, cap) per group (and per time bucket for the reference).
 */
function truncatedCounts(
  src: Source,
  ds: CatalogDataset,
  def: ThresholdQueryDefinition,
  count: { personColumn: string; cap: number; maxGroups?: number },
  predicates: PublicPredicates,
  rng: Rng
): { counts: Float64Array; thresholds: Float64Array } {
  const keyCols = def.groupBy.map((g) => findColumn(ds, g, 'group-by column'))
  const types = keyCols.map((c) => c.type)
  const G = keyCols.length
  const index = new Map(predicates.keys.map((k, i) => [k, i]))
  const d = src.dialect
  // (person, predicate[, bucket], rows) for the rows of one period, in the dialect's common order.
  const read = (where: Where, bucketMs: number | null): Array<{ person: unknown; i: number; b: number; n: number }> => {
    const out: Array<{ person: unknown; i: number; b: number; n: number }> = []
    for (const r of src.all(personTuplesSql(d, ds, def, count.personColumn, where, bucketMs))) {
      const i = index.get(groupKey(types, r.slice(1, 1 + G)))
      if (i === undefined) continue
      out.push({ person: r[0], i, b: bucketMs === null ? 0 : Number(r[1 + G]), n: Number(r[r.length - 1]) })
    }
    return out
  }
  const period = def.period ? periodOf(ds, def.period.column, def.period.from, def.period.to) : null
  const main = read(whereOf(d, ds, def, period), null)
  const th = def.threshold
  const ref = th.kind === 'reference' ? periodOf(ds, th.column!, th.from, th.to) : null
  const bucketMs = th.kind === 'reference' ? (th.bucket === 'hour' ? HOUR_MS : DAY_MS) : null
  const refRows = ref ? read(whereOf(d, ds, def, ref), bucketMs) : []

  // Each person's predicates, in a fixed order (persons by first appearance in the sorted reads, predicates ascending).
  const groupsOf = new Map<unknown, Set<number>>()
  for (const r of [...main, ...refRows]) {
    let s = groupsOf.get(r.person)
    if (!s) groupsOf.set(r.person, (s = new Set()))
    s.add(r.i)
  }
  const m = count.maxGroups!
  const kept = new Map<unknown, Set<number>>()
  for (const [person, set] of groupsOf) {
    kept.set(person, new Set(keepRandomSubset(rng, [...set].sort((a, b) => a - b), m)))
  }
  const counts = new Float64Array(predicates.keys.length)
  for (const r of main) if (kept.get(r.person)!.has(r.i)) counts[r.i] += Math.min(r.n, count.cap)
  if (th.kind !== 'reference') {
    if (predicates.thresholds === null) throw new Error('public thresholds missing')
    return { counts, thresholds: predicates.thresholds }
  }
  const perBucket = new Map<string, number>()
  for (const r of refRows) {
    if (!kept.get(r.person)!.has(r.i)) continue
    const key = `${r.i}|${r.b}`
    perBucket.set(key, (perBucket.get(key) ?? 0) + Math.min(r.n, count.cap))
  }
  const max = new Float64Array(predicates.keys.length)
  const sum = new Float64Array(predicates.keys.length)
  for (const [key, n] of perBucket) {
    const i = Number(key.slice(0, key.indexOf('|')))
    if (n > max[i]) max[i] = n
    sum[i] += n
  }
  const buckets = Math.floor((ref!.to - 1) / bucketMs!) - Math.floor(ref!.from / bucketMs!) + 1
  const thresholds = Float64Array.from(predicates.keys, (_, i) => th.factor * (th.aggregate === 'max' ? max[i] : sum[i] / buckets))
  return { counts, thresholds }
}

/**
 * Evaluates a definition (validated again here) on a dataset: public predicates, then their true counts. A simulation:
 * a bound on groups per person truncates with the seeded generator `rng` (default: seeded by the dataset id).
 */
export function evaluateThresholdDefinition(db: Database.Database, datasetId: number, raw: ThresholdQueryDefinition, rng?: Rng): ThresholdEvaluation {
  const ds = getDataset(db, datasetId)
  const def = checkThresholdDefinition(db, ds, raw as unknown as Record<string, unknown>)
  const predicates = thresholdPredicates(db, ds, def)
  const { counts, thresholds } = thresholdCounts(db, ds, def, predicates, rng ?? seededRng(`truncation:${datasetId}`))
  return {
    predicates: predicates.keys.map((key, i) => ({ key, label: predicates.labels[i], count: counts[i], threshold: thresholds[i] })),
    sensitivity: def.count.kind === 'persons' ? def.count.cap : 1,
    datasetId: ds.info.id,
    groupBy: def.groupBy
  }
}

/** Evaluates a saved threshold query (see the file comment for the predicate set). */
export function evaluateThresholdQuery(store: { db: Database.Database }, queryId: number): ThresholdEvaluation {
  const q = getQuery(store.db, queryId)
  if (q.definition.kind !== 'threshold') throw new UserError(`Saved query ${q.id} is not a threshold query (it is ${q.definition.kind})`, 'bad-query')
  return evaluateThresholdDefinition(store.db, q.datasetId, q.definition)
}
