/**
 * Runs a threshold definition on a linked file through one form of the DuckDB `maxGroups` bound: the two-pass form
 * (duckdb-truncation.ts; it runs when the definition allows it) or dialect.ts's single statement (a source without
 * `numbers`), on the same source with the same generator, and says whether the two-pass form ran; and the definitions
 * those tests run (`groupsDefinition`).
 */
import type Database from 'better-sqlite3'
import type { ThresholdQueryDefinition } from '../../../src-main/contract/datasets'
import { getDataset } from '../../../src-main/services/catalog/catalog'
import { thresholdCountsFrom } from '../../../src-main/services/datasets/threshold-evaluation'
import { thresholdPredicates } from '../../../src-main/services/datasets/threshold-predicates'
import type { Sql } from '../../../src-main/services/sources/dialect'
import { type Source, sourceFor } from '../../../src-main/services/sources/source'
import { seededRng } from '../../../src-worker/engine/random'

export interface FormRun {
  counts: number[]
  thresholds: number[]
  /** The two-pass form's first table was made. */
  twoPass: boolean
}

export function runInForm(
  db: Database.Database,
  datasetId: number,
  def: ThresholdQueryDefinition,
  form: 'two-pass' | 'single',
  seed: string
): FormRun {
  const ds = getDataset(db, datasetId)
  const src = sourceFor(db, ds)
  let twoPass = false
  const s: Source = {
    dialect: src.dialect,
    linked: src.linked,
    all: (q: Sql) => {
      if (q.sql.startsWith('CREATE TEMP TABLE qa_truncation_persons')) twoPass = true
      return src.all(q)
    },
    ...(form === 'two-pass'
      ? { numbers: (q: Sql) => src.numbers!(q), appendNumbers: (table: string, values: Float64Array) => src.appendNumbers!(table, values) }
      : {})
  }
  const out = thresholdCountsFrom(s, ds, def, thresholdPredicates(db, ds, def), seededRng(seed))
  return { counts: [...out.counts], thresholds: [...out.thresholds], twoPass }
}

/** n groups of the integer column g (1000, 1001, ...), persons of `personColumn` counted with `count`, threshold 3. */
export function groupsDefinition(
  n: number,
  personColumn: string,
  count: { cap: number; maxGroups?: number },
  more: Partial<ThresholdQueryDefinition> = {}
): ThresholdQueryDefinition {
  return {
    kind: 'threshold',
    groupBy: ['g'],
    groups: Array.from({ length: n }, (_, i) => [1000 + i]),
    count: { kind: 'persons', personColumn, ...count },
    threshold: { kind: 'constant', value: 3 },
    ...more
  }
}
