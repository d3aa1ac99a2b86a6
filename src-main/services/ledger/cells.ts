/**
 * Partition cells and predicate-wise accounting.
 *
 * A cell is the region of the dataset a predicate selects, written as a conjunction of equalities on columns, stored as
 * canonical JSON: {"building":"B","room":"B-104"}. The empty conjunction {} is the whole dataset: a whole-dataset charge
 * (eps-DP, sensitive privacy, anomaly search) is a charge on {} and so applies to every cell.
 *
 * Two cells may hold a common record unless they give different values to a column they both constrain. A record has
 * spent the sum of the charges on the cells it lies in; the dataset's spend under a notion is the maximum over records
 * (parallel composition over disjoint cells, sequential composition within a cell): two releases over disjoint predicates
 * cost the max, overlapping ones the sum on the shared cells. Only the filter's equality conditions are part of a cell;
 * other conditions only shrink a region, so leaving them out can only over-count.
 */
import { canonicalJson } from '../chain/canonical'
import { shownKeyPart } from '../../contract/shown-values'

export type CellValue = string | number | null
export type CellKey = string
export const WHOLE_DATASET: CellKey = '{}'

/** The canonical key of the conjunction `column = value` over the given columns. */
export function cellKey(conj: Record<string, CellValue>): CellKey {
  for (const v of Object.values(conj)) {
    if (!(v === null || typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v))))
      throw new RangeError('cell values must be strings, finite numbers or null')
  }
  return canonicalJson(conj)
}

export function parseCellKey(key: CellKey): Record<string, CellValue> {
  const obj = JSON.parse(key) as unknown
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) throw new RangeError(`not a cell key: ${key.slice(0, 40)}`)
  return obj as Record<string, CellValue>
}

/**
 * A readable label: "building = B, room = B-104", or "whole dataset". Timestamps read as the file writes them
 * ("at = 2014-07-01 00:00:00"); the key itself keeps its canonical text.
 */
export function cellLabel(key: CellKey): string {
  const obj = parseCellKey(key)
  const cols = Object.keys(obj)
  if (cols.length === 0) return 'whole dataset'
  return cols.map((c) => `${c} = ${obj[c] === null ? '(empty)' : shownKeyPart(obj[c])}`).join(', ')
}

export interface CellTotal {
  cell: CellKey
  /** Charges made on this very cell. */
  ownNano: number
  /** The most any record of this cell has spent: its own charges plus those of every cell that can hold the same record. */
  totalNano: number
}

interface Cell {
  key: CellKey
  conj: Record<string, CellValue>
  own: number
}
interface Group {
  cols: string[]
  cells: Cell[]
  /** cells by the canonical text of their values (in `cols` order) */
  byValues: Map<string, Cell>
  maxOwn: number
}

const NODE_BUDGET = 200_000

/**
 * Per-cell spend and the dataset's spend (the maximum over records), from the charges per cell key.
 *
 * A record lies in at most one cell of each column set (cells over the same columns with different values are
 * disjoint), so the spend of the records of cell c is the best choice of at most one cell per column set, all consistent
 * with c and with each other. That is found exactly by a small branch-and-bound search over the column sets (there are
 * few: one per distinct group-by, plus the whole dataset). Should the search ever exceed its node budget, it falls back
 * to the sum over column sets of the largest compatible charge: an upper bound, so the ledger can only over-count.
 */
export function cellSpend(charges: Iterable<{ cell: CellKey; nano: number }>): { cells: CellTotal[]; maxNano: number } {
  const own = new Map<CellKey, number>()
  for (const c of charges) own.set(c.cell, (own.get(c.cell) ?? 0) + c.nano)
  const groupMap = new Map<string, Group>()
  for (const [key, nano] of own) {
    const conj = parseCellKey(key)
    const cols = Object.keys(conj).sort()
    const sig = JSON.stringify(cols)
    let g = groupMap.get(sig)
    if (!g) groupMap.set(sig, (g = { cols, cells: [], byValues: new Map(), maxOwn: 0 }))
    const cell = { key, conj, own: nano }
    g.cells.push(cell)
    g.byValues.set(canonicalJson(cols.map((c) => conj[c])), cell)
    if (nano > g.maxOwn) g.maxOwn = nano
  }
  const groups = [...groupMap.values()].sort((a, b) => b.maxOwn - a.maxOwn)
  const compatible = (assign: Map<string, string>, conj: Record<string, CellValue>) => {
    for (const [col, v] of Object.entries(conj)) {
      const a = assign.get(col)
      if (a !== undefined && a !== canonicalJson(v)) return false
    }
    return true
  }
  const candidates = (g: Group, assign: Map<string, string>): Cell[] => {
    if (g.cols.every((c) => assign.has(c))) {
      const hit = g.byValues.get(`[${g.cols.map((c) => assign.get(c)).join(',')}]`)
      return hit ? [hit] : []
    }
    return g.cells.filter((d) => compatible(assign, d.conj))
  }
  const upperBound = (fixed: Cell, fixedGroup: Group) => {
    const assign = new Map(Object.entries(fixed.conj).map(([k, v]) => [k, canonicalJson(v)]))
    let total = fixed.own
    for (const g of groups) {
      if (g === fixedGroup) continue
      let m = 0
      for (const d of candidates(g, assign)) if (d.own > m) m = d.own
      total += m
    }
    return total
  }
  const totalOf = (fixed: Cell, fixedGroup: Group): number => {
    const rest = groups.filter((g) => g !== fixedGroup)
    const suffix = new Array<number>(rest.length + 1).fill(0)
    for (let i = rest.length - 1; i >= 0; i--) suffix[i] = suffix[i + 1] + rest[i].maxOwn
    let best = 0
    let nodes = 0
    let exhausted = false
    const assign = new Map(Object.entries(fixed.conj).map(([k, v]) => [k, canonicalJson(v)]))
    const dfs = (i: number, acc: number) => {
      if (exhausted) return
      if (++nodes > NODE_BUDGET) {
        exhausted = true
        return
      }
      if (acc > best) best = acc
      if (i === rest.length || acc + suffix[i] <= best) return
      for (const d of candidates(rest[i], assign)) {
        const added: string[] = []
        for (const [col, v] of Object.entries(d.conj)) {
          if (!assign.has(col)) {
            assign.set(col, canonicalJson(v))
            added.push(col)
          }
        }
        dfs(i + 1, acc + d.own)
        for (const col of added) assign.delete(col)
      }
      dfs(i + 1, acc)
    }
    dfs(0, fixed.own)
    return exhausted ? upperBound(fixed, fixedGroup) : best
  }
  const cells: CellTotal[] = []
  let maxNano = 0
  for (const g of groups) {
    for (const c of g.cells) {
      const total = totalOf(c, g)
      cells.push({ cell: c.key, ownNano: c.own, totalNano: total })
      if (total > maxNano) maxNano = total
    }
  }
  cells.sort((a, b) => b.totalNano - a.totalNano || (a.cell < b.cell ? -1 : 1))
  return { cells, maxNano }
}
