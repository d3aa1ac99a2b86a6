/**
 * What a threshold release needs from the datasets area, behind one small interface: the public predicates of a saved
 * threshold query (before the charge) and their true counts and thresholds (after it).
 */
import type Database from 'better-sqlite3'
import type { ThresholdQueryDefinition } from '../../contract/datasets'
import type { Rng } from '../../../src-worker/engine/random'
import { getDataset } from '../catalog/catalog'
import { thresholdCounts } from '../datasets/threshold-evaluation'
import { thresholdPredicates } from '../datasets/threshold-predicates'
import { bucketCellColumn } from '../../contract/time-buckets'

/** A threshold query's predicates and parameters from public inputs only: what a preview and the charge are built from. */
export interface PublicThreshold {
  groupBy: string[]
  /**
   * What each key value is, in groupBy order: the column's name, or for a column grouped by time its bucket's
   * ("hour of at"). Answers show these, and ledger cells are written over them (a bucket is not an exact time).
   */
  keyNames: string[]
  /** Key tuples in groupBy order, one per predicate. */
  keys: Array<Array<string | number | null>>
  /** Public labels of the predicates ("building=A, room=A-101"), in the same order. */
  labels: string[]
  /** Each predicate's key values as the question (or the public table) writes them, in the same order. */
  shown: Array<Array<string | number | null>>
  /** Public thresholds, or null for a reference threshold (computed from the counted data after the charge, never shown). */
  thresholds: Float64Array | null
  /** The most one person (or row) can change one count: the contribution cap, or 1. */
  sensitivity: number
  /** What is counted, in words ("rows", "persons, each counted at most 3 times"). */
  countText: string
  /** What the thresholds are, in words. */
  thresholdText: string
  /**
   * The true counts and thresholds: reads the counted dataset. Call only after the charge (or in a simulation). `rng`
   * draws the groups kept for persons over the `maxGroups` bound.
   */
  evaluate(rng: Rng): { counts: Float64Array; thresholds: Float64Array }
}

export function publicThreshold(db: Database.Database, datasetId: number, def: ThresholdQueryDefinition): PublicThreshold {
  const ds = getDataset(db, datasetId)
  const pred = thresholdPredicates(db, ds, def)
  const countText =
    def.count.kind === 'persons'
      ? def.count.cap === 1
        ? `count of distinct ${def.count.personColumn}`
        : `count of distinct ${def.count.personColumn} (each counted at most ${def.count.cap} times)`
      : 'row count'
  const byTime = def.groupByTime
  return {
    groupBy: def.groupBy,
    keyNames: def.groupBy.map((g) => (byTime && byTime.column === g ? bucketCellColumn(g, byTime.per) : g)),
    keys: pred.keys.map((k) => JSON.parse(k) as Array<string | number | null>),
    labels: pred.labels,
    shown: pred.shown,
    thresholds: pred.thresholds,
    sensitivity: def.count.kind === 'persons' ? def.count.cap : 1,
    countText,
    thresholdText: describeThresholds(db, def, countText),
    evaluate: (rng) => thresholdCounts(db, ds, def, pred, rng)
  }
}

const short = (x: number) => Number(x.toPrecision(6)).toString()

/** The thresholds in words, from the saved definition only (never from the counted data). */
export function describeThresholds(db: Database.Database, def: ThresholdQueryDefinition, countText: string): string {
  const th = def.threshold
  switch (th.kind) {
    case 'constant':
      return `the constant ${short(th.value)}`
    case 'column': {
      const other = db.prepare('SELECT name FROM datasets WHERE id = ?').get(th.datasetId) as { name: string } | undefined
      return `column "${th.column}" of public dataset ${other ? `"${other.name}"` : th.datasetId}`
    }
    case 'reference':
      return `${short(th.factor)} × the ${th.aggregate} per ${th.bucket} of the ${countText} from ${th.from} to ${th.to}`
    default:
      return 'the saved thresholds'
  }
}
