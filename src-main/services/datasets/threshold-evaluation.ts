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
import type { ColumnType, ThresholdQueryDefinition } from '../../contract/datasets'
import { UserError } from '../platform/errors'
import { type StoredValue, groupKey, keyPart } from '../catalog/column-types'
import { type CatalogDataset, getDataset } from '../catalog/catalog'
import { type Period, type Truncation, groupCountSql, referenceSql, truncatedCountSql, truncatedReferenceSql, whereOf } from '../sources/dialect'
import { truncationKey } from '../sources/keyed-hash'
import { twoPassTruncation } from '../sources/duckdb-truncation'
import { type Source, sourceFor } from '../sources/source'
import { checkThresholdDefinition } from './query-definitions'
import { findColumn, storedValueFor } from '../catalog/columns'
import { getQuery } from './query-store'
import { type PublicPredicates, thresholdPredicates } from './threshold-predicates'
import { type Rng, seededRng } from '../../../src-worker/engine/random'

export interface ThresholdPredicate {
  /** Stable key of the group: JSON list of its key values (text form) in group-by order. */
  key: string
  /** e.g. `room=B12, day=2015-01-01 00:00:00` */
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
  return thresholdCountsFrom(sourceFor(db, ds), ds, def, predicates, rng)
}

/** `thresholdCounts` read from a given source of the dataset's rows. */
export function thresholdCountsFrom(
  src: Source,
  ds: CatalogDataset,
  def: ThresholdQueryDefinition,
  predicates: PublicPredicates,
  rng?: Rng
): { counts: Float64Array; thresholds: Float64Array } {
  if (def.count.kind === 'persons' && def.count.maxGroups !== undefined && def.count.maxGroups < predicates.keys.length) {
    if (!rng) throw new Error('bounding the groups per person needs a generator')
    return truncatedCounts(src, ds, def, def.count, predicates, rng)
  }
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
 * A predicate's key (JSON list of key parts, see `groupKey`) as the stored values a row must hold to be in it, or null
 * when no stored value has that text (e.g. "5.5" for an integer column): the literal rows the engine joins on.
 */
export function predicateStoredValues(types: readonly ColumnType[], key: string): StoredValue[] | null {
  const parts = JSON.parse(key) as Array<string | null>
  const out: StoredValue[] = []
  for (let j = 0; j < parts.length; j++) {
    const part = parts[j]
    if (part === null) {
      out.push(null)
      continue
    }
    const type = types[j]
    let v: StoredValue = part
    if (type === 'integer' || type === 'real') v = Number(part)
    else if (type === 'timestamp') v = Date.parse(part)
    // Only a value whose key part is this text is in the predicate (as the group-by's keys are compared).
    if (typeof v === 'number' && !(Number.isFinite(v) && keyPart(type, v) === part)) return null
    out.push(v)
  }
  return out
}

/**
 * The counts when persons may add to at most `maxGroups` predicates (L0 bound, ALGORITHMS.md section 6), computed in
 * the engine (dialect.ts `truncatedCountSql`): each person's predicates (in the period or, for a reference threshold,
 * in either period) are ranked by a keyed hash of (person, predicate index) with a key drawn here from `rng` (the
 * secure generator in a release, a seeded one in a simulation); a person keeps the `maxGroups` of smallest rank, a
 * uniformly random subset that depends on the person's own rows and the key only (sound: keyed-hash.ts), and rows in
 * the other predicates are dropped from the count and the reference alike. Then, as without the bound, each person
 * adds min(rows, cap) per predicate (and per time bucket for the reference).
 */
function truncatedCounts(
  src: Source,
  ds: CatalogDataset,
  def: ThresholdQueryDefinition,
  count: { personColumn: string; cap: number; maxGroups?: number },
  predicates: PublicPredicates,
  rng: Rng
): { counts: Float64Array; thresholds: Float64Array } {
  const types = def.groupBy.map((g) => findColumn(ds, g, 'group-by column').type)
  // One literal row per distinct key (the first predicate with it); duplicates get its count.
  const first = new Map<string, number>()
  const values = predicates.keys.map((k, i) => {
    if (first.has(k)) return null
    first.set(k, i)
    return predicateStoredValues(types, k)
  })
  const t: Truncation = {
    person: findColumn(ds, count.personColumn, 'person column'),
    predicates: values,
    key: truncationKey(rng),
    maxGroups: count.maxGroups!,
    cap: count.cap
  }
  const d = src.dialect
  const period = def.period ? periodOf(ds, def.period.column, def.period.from, def.period.to) : null
  const main = whereOf(d, ds, def, period)
  const th = def.threshold
  const ref = th.kind === 'reference' ? periodOf(ds, th.column!, th.from, th.to) : null
  const refWhere = ref ? whereOf(d, ds, def, ref) : null
  const n = predicates.keys.length
  const byFirst = (perIndex: Float64Array) => Float64Array.from(predicates.keys, (k) => perIndex[first.get(k)!])

  const bucketMs = th.kind === 'reference' ? (th.bucket === 'hour' ? HOUR_MS : DAY_MS) : 0
  // A linked file (DuckDB) runs the two-pass form when the definition allows it (duckdb-truncation.ts).
  const numbers = src.numbers?.bind(src)
  const appendNumbers = src.appendNumbers?.bind(src)
  const twoPass =
    d.engine === 'duckdb' && numbers && appendNumbers
      ? twoPassTruncation({ all: (q) => src.all(q), numbers, appendNumbers }, d, ds, def, t, main, refWhere ? { where: refWhere, bucketMs } : null)
      : null
  const counted = new Float64Array(n)
  const countSql = twoPass ? null : truncatedCountSql(d, ds, def, t, main, refWhere)
  const countRows = twoPass ? twoPass.counts : countSql ? src.all(countSql) : []
  for (const [i, c] of countRows) counted[Number(i)] = Number(c ?? 0)
  const counts = byFirst(counted)
  if (th.kind !== 'reference') {
    if (predicates.thresholds === null) throw new Error('public thresholds missing')
    return { counts, thresholds: predicates.thresholds }
  }
  const max = new Float64Array(n)
  const sum = new Float64Array(n)
  const refSql = twoPass ? null : truncatedReferenceSql(d, ds, def, t, main, refWhere!, bucketMs)
  const refRows = twoPass ? twoPass.reference! : refSql ? src.all(refSql) : []
  for (const [i, mx, sm] of refRows) {
    max[Number(i)] = Math.max(0, Number(mx))
    sum[Number(i)] = Number(sm)
  }
  const buckets = Math.floor((ref!.to - 1) / bucketMs) - Math.floor(ref!.from / bucketMs) + 1
  const maxes = byFirst(max)
  const sums = byFirst(sum)
  const thresholds = Float64Array.from(predicates.keys, (_, i) => th.factor * (th.aggregate === 'max' ? maxes[i] : sums[i] / buckets))
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
