/**
 * One period of a dataset that grows, as an alarm reads it (ALGORITHMS.md section 7): the rows whose time column lies
 * in [from, to), counted for a threshold definition's public predicates, wherever the rows are: the workspace's table
 * (imported, growing by `import --append`), a linked file (DuckDB reads it as it is now), a linked PostgreSQL relation or
 * a linked ClickHouse table (read where they live).
 *
 * The range goes to each engine as two bound parameters (stored form: UTC ms) against the time column's stored-form
 * expression (dialect.ts `whereOf`), and every identifier is the dialect's quoted one from the catalog or the signed
 * link: nothing of the range or of a column's name is ever spliced into SQL as text.
 *
 * The counts are TRUE counts: internal, for the alarm's evaluation after its charge only (never in a message, a log
 * or an event). Every check here (the column exists and holds timestamps, the range is whole ms with from < to) is
 * about public inputs, so it may fail before a charge with a sentence; nothing fails here on a value of the rows.
 */
import type Database from 'better-sqlite3'
import type { ThresholdQueryDefinition } from '../../contract/datasets'
import { UserError } from '../platform/errors'
import type { CatalogDataset } from '../catalog/catalog'
import { findColumn } from '../catalog/columns'
import { describeType } from '../catalog/column-types'
import { thresholdCountsFrom } from './threshold-evaluation'
import type { PublicPredicates } from './threshold-predicates'
import { type Source, checkLinkedSource, sourceFor } from '../sources/source'
import type { Rng } from '../../../src-worker/engine/random'

/** A period's half-open range [from, to) in UTC milliseconds. */
export interface PeriodRange {
  from: number
  to: number
}

/** The alarm's time column on the dataset: it must be a column holding timestamps (one sentence otherwise). */
export function checkTimeColumn(ds: CatalogDataset, name: string): void {
  const col = findColumn(ds, name, 'time column')
  if (col.type !== 'timestamp')
    throw new UserError(
      `The time column "${col.name}" of dataset "${ds.info.name}" must hold timestamps (it holds ${describeType(col.type)}); an alarm's periods are ranges of time`,
      'bad-query'
    )
}

function checkRange(range: PeriodRange): void {
  const { from, to } = range
  if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to) || !(from < to))
    throw new RangeError("a period's range must be whole milliseconds with from < to")
  // Inside JavaScript's dates (the stored form of timestamps in every engine).
  if (Number.isNaN(new Date(from).getTime()) || Number.isNaN(new Date(to).getTime()))
    throw new RangeError("a period's range is outside JavaScript's dates")
}

/**
 * The definition restricted to one period: its `period` is the alarm's range on the time column (a definition's own
 * period, if any, is replaced: an alarm's periods are its only time window). Thresholds, filter, groups and counting
 * are the definition's.
 */
export function periodDefinition(def: ThresholdQueryDefinition, timeColumn: string, range: PeriodRange): ThresholdQueryDefinition {
  checkRange(range)
  return { ...def, period: { column: timeColumn, from: new Date(range.from).toISOString(), to: new Date(range.to).toISOString() } }
}

/**
 * Before the period's charge: a linked source must be there with the schema it was linked with (public metadata; one
 * sentence ending "Nothing was charged." otherwise). Returns its fingerprint now (null for an imported dataset), to be
 * recorded (sealed) with the period's release as any release on a linked source records it.
 */
export function checkPeriodSource(db: Database.Database, ds: CatalogDataset): object | null {
  return checkLinkedSource(db, ds.info.id)
}

/**
 * The TRUE counts (and thresholds) of one period, in `predicates.keys` order, read from `source` (default: the
 * dataset's own: sourceFor). `rng` draws the key of a maxGroups bound (the secure generator in a release).
 */
export function countsForPeriod(
  db: Database.Database,
  ds: CatalogDataset,
  def: ThresholdQueryDefinition,
  timeColumn: string,
  range: PeriodRange,
  predicates: PublicPredicates,
  rng?: Rng,
  source?: Source
): { counts: Float64Array; thresholds: Float64Array } {
  checkTimeColumn(ds, timeColumn)
  return thresholdCountsFrom(source ?? sourceFor(db, ds), ds, periodDefinition(def, timeColumn, range), predicates, rng)
}
