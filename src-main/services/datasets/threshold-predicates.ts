/**
 * The predicates of a threshold query, from public inputs only (ALGORITHMS.md section 5): the definition's explicit
 * `groups`, a public dataset's key tuples (`groupsFrom`), or the rows of a public threshold table (column thresholds).
 * Nothing here reads the counted dataset's rows, so a preview, a price, a guarantee sentence and every message built
 * from this are data-independent. The checks of a public table (two rows for one group, a missing threshold) read that
 * public table only, so their messages may name its rows.
 */
import type Database from 'better-sqlite3'
import type { ColumnType, ThresholdQueryDefinition } from '../../contract/datasets'
import { UserError } from '../platform/errors'
import { type CatalogColumn, type CatalogDataset, ident } from '../catalog/catalog'
import { groupKey, toDisplay } from '../catalog/column-types'
import { publicKeys, publicSource } from '../catalog/public-datasets'
import { findColumn, storedValueFor } from '../catalog/columns'
import { notABucketStart } from '../../contract/time-buckets'

export interface PublicPredicates {
  groupBy: string[]
  /** Stable key of each predicate's group: JSON list of its key values (text form) in group-by order. */
  keys: string[]
  /** e.g. `room=B12, day=2015-01-01 00:00:00`: the values as the question or the public table writes them. */
  labels: string[]
  /** Each predicate's key values as shown: listed groups exactly as the query lists them, others as the catalog shows them. */
  shown: Array<Array<string | number | null>>
  /** Public thresholds (constant or from a public table); null for a reference threshold (computed from private data after the charge). */
  thresholds: Float64Array | null
}

export const PRIVATE_GROUPS_REFUSED =
  'The groups of a threshold query must be public: list them in "groups", take them from a public dataset ("groupsFrom"), or use a column threshold from a public dataset. ' +
  'Groups read from the counted data would release which keys exist in it'

function shownValues(cols: readonly CatalogColumn[]) {
  const types: ColumnType[] = cols.map((c) => c.type)
  return (stored: readonly unknown[]) => stored.map((v, i) => (v === null || v === undefined ? null : toDisplay(types[i], v)))
}

function labelOf(names: readonly string[], shown: ReadonlyArray<string | number | null>): string {
  return names.map((n, i) => `${n}=${shown[i] === null ? '(empty)' : String(shown[i])}`).join(', ')
}

/** Refuses keys that name no bucket of a column grouped by time (they would count 0 whatever the data). */
function checkBucketStarts(def: ThresholdQueryDefinition, stored: readonly unknown[], where: string): void {
  const t = def.groupByTime
  if (!t) return
  const why = notABucketStart(stored[def.groupBy.indexOf(t.column)], t.per)
  if (why) throw new UserError(`${where}: its value for "${t.column}" ${why}`, 'bad-query')
}

/** The predicates of `def` on the counted dataset `ds`, from the definition and public tables only. */
export function thresholdPredicates(db: Database.Database, ds: CatalogDataset, def: ThresholdQueryDefinition): PublicPredicates {
  const keyCols = def.groupBy.map((g) => findColumn(ds, g, 'group-by column'))
  const keys: string[] = []
  const shown: Array<Array<string | number | null>> = []
  const th = def.threshold
  if (th.kind === 'column') {
    const other = publicSource(db, th.datasetId, ds.info.id, 'threshold table')
    const onCols = def.groupBy.map((g) => findColumn(other, th.on?.[g] ?? g, 'threshold key column'))
    const thrCol = findColumn(other, th.column, 'threshold column')
    const rows = db
      .prepare(`SELECT ${[...onCols, thrCol].map((c) => ident(c.sqlName)).join(', ')} FROM ${ident(other.tableName)} ORDER BY rowid`)
      .raw()
      .all() as unknown[][]
    const seen = new Set<string>()
    const thresholds = new Float64Array(rows.length)
    const show = shownValues(onCols)
    rows.forEach((r, idx) => {
      const keyVals = r.slice(0, onCols.length)
      const key = groupKey(
        onCols.map((c) => c.type),
        keyVals
      )
      // The threshold table is public: its row numbers may be named.
      if (seen.has(key))
        throw new UserError(
          `The public threshold table "${other.info.name}" has two rows for the same group (row ${idx + 1}); keep one row per group`,
          'bad-query'
        )
      seen.add(key)
      const t = r[onCols.length]
      if (typeof t !== 'number')
        throw new UserError(
          `The public threshold table "${other.info.name}" has no threshold on row ${idx + 1}; fill it in or remove the row`,
          'bad-query'
        )
      checkBucketStarts(def, keyVals, `Row ${idx + 1} of the public threshold table "${other.info.name}"`)
      thresholds[idx] = t
      keys.push(key)
      shown.push(show(keyVals))
    })
    return { groupBy: def.groupBy, keys, labels: shown.map((v) => labelOf(def.groupBy, v)), shown, thresholds }
  }
  if (def.groupsFrom) {
    const src = publicSource(db, def.groupsFrom.datasetId, ds.info.id, 'group list dataset')
    const onCols = def.groupBy.map((g) => findColumn(src, def.groupsFrom!.on?.[g] ?? g, 'key column of the group list dataset'))
    const show = shownValues(onCols)
    for (const k of publicKeys(db, src, onCols)) {
      checkBucketStarts(def, k.values, `A row of the public group list "${src.info.name}"`)
      keys.push(k.key)
      shown.push(show(k.values))
    }
  } else if (def.groups) {
    const types = keyCols.map((c) => c.type)
    def.groups.forEach((g, i) => {
      const stored = g.map((v, j) => storedValueFor(keyCols[j], v, 'A group value'))
      checkBucketStarts(def, stored, `Group ${i + 1}`)
      keys.push(groupKey(types, stored))
      // The group as the question writes it ("2014-07-01 00:00:00" stays that text).
      shown.push([...g])
    })
  } else {
    throw new UserError(PRIVATE_GROUPS_REFUSED, 'not-public')
  }
  const thresholds = th.kind === 'constant' ? new Float64Array(keys.length).fill(th.value) : null
  return { groupBy: def.groupBy, keys, labels: shown.map((v) => labelOf(def.groupBy, v)), shown, thresholds }
}
