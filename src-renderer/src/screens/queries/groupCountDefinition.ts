/**
 * How many groups (predicates) a threshold query definition asks about, shown before it is saved. From
 * PUBLIC information only: the definition's listed groups, the rows of a public threshold table (one predicate per row),
 * or the distinct key tuples of a public group-list dataset (read through `datasets/rows`, which pages public datasets
 * only). Never a count from the counted dataset: which groups occur in private data is itself data, and showing it
 * before a charge would be an uncharged release. Pure (unit-tested in test/unit/renderer/group-count.test.ts).
 */
import type { CellValue, DatasetInfo, ThresholdQueryDefinition } from '../../../../src-main/contract'

/** Rows of a public group list read to count its distinct groups; above this the sentence gives the row count as a bound. */
export const GROUP_LIST_ROWS_READ = 20_000

export type GroupCount =
  /** Known from the definition or the public table's row count. */
  | { kind: 'known'; groups: number; from: string }
  /** The distinct key tuples of a public dataset's columns: its rows must be read (`columns` in group-by order). */
  | { kind: 'distinct'; dataset: DatasetInfo; columns: string[]; from: string }
  /** Not shown, and why (one sentence). */
  | { kind: 'not-shown'; why: string }

const plural = (n: number, one: string, many: string) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`

/** Where the count of `def`'s groups comes from, or why there is none; `datasets` as the catalog lists them. */
export function groupCountOf(def: ThresholdQueryDefinition, datasets: readonly DatasetInfo[]): GroupCount {
  const publicDs = (id: number) => datasets.find((d) => d.id === id && d.public) ?? null
  const th = def.threshold
  if (th.kind === 'column') {
    const t = publicDs(th.datasetId)
    if (!t) return { kind: 'not-shown', why: 'The threshold table is not a public dataset, so its rows cannot be counted here.' }
    // A linked PostgreSQL table's row count is the planner's estimate (and a count may be absent): count its keys instead.
    if (t.source === 'linked-postgres' || t.rowCount === undefined)
      return {
        kind: 'distinct',
        dataset: t,
        columns: def.groupBy.map((g) => th.on?.[g] ?? g),
        from: `one per row of the public threshold table “${t.name}”`
      }
    return { kind: 'known', groups: t.rowCount, from: `one per row of the public threshold table “${t.name}”` }
  }
  if (def.groups) return { kind: 'known', groups: def.groups.length, from: 'listed in the definition' }
  if (def.groupsFrom) {
    const src = publicDs(def.groupsFrom.datasetId)
    if (!src) return { kind: 'not-shown', why: 'The group list dataset is not public, so its groups cannot be counted here.' }
    return {
      kind: 'distinct',
      dataset: src,
      columns: def.groupBy.map((g) => def.groupsFrom?.on?.[g] ?? g),
      from: `the distinct ${def.groupBy.join(' × ')} values of the public dataset “${src.name}”`
    }
  }
  return {
    kind: 'not-shown',
    why: 'The groups would come from the counted data itself: how many there are is not shown, because that number would tell what the data holds without a charge (and such a query cannot be saved).'
  }
}

/** Distinct tuples of the given column positions over some rows (the public list's rows as `datasets/rows` shows them). */
export function distinctTuples(rows: readonly CellValue[][], positions: readonly number[], seen: Set<string> = new Set()): Set<string> {
  for (const r of rows) seen.add(JSON.stringify(positions.map((i) => r[i] ?? null)))
  return seen
}

/** The sentence shown under the groups: "This question asks about 12 groups (predicates), listed in the definition." */
export function groupCountSentence(c: GroupCount, counted?: { groups: number; complete: boolean } | null): string {
  if (c.kind === 'not-shown') return c.why
  if (c.kind === 'known') return `This question asks about ${plural(c.groups, 'group', 'groups')} (predicates), ${c.from}. Each is one yes/no answer.`
  if (!counted) return `Counting the groups: ${c.from}…`
  if (!counted.complete && (c.dataset.source === 'linked-postgres' || c.dataset.rowCount === undefined)) {
    return `This question asks about at least ${plural(counted.groups, 'group', 'groups')} (predicates): ${c.from}; only its first ${GROUP_LIST_ROWS_READ.toLocaleString('en-US')} rows were read here.`
  }
  if (!counted.complete) {
    return `This question asks about at most ${plural(c.dataset.rowCount ?? 0, 'group', 'groups')} (predicates): ${c.from}, which has that many rows (the first ${GROUP_LIST_ROWS_READ.toLocaleString('en-US')} hold ${plural(counted.groups, 'distinct group', 'distinct groups')}).`
  }
  return `This question asks about ${plural(counted.groups, 'group', 'groups')} (predicates): ${c.from}. Each is one yes/no answer.`
}
