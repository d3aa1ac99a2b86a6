/**
 * Exhaustive brute force on small universes (ALGORITHMS.md section 6): the ledger's spend per unit is never
 * below the true worst-case loss of any person.
 *
 * Universe: rows have two columns, A (one value per person: a per-person column) and B (a person may have rows with
 * several values). A person is any choice of one A value and a non-empty set of B values (each of those rows exists);
 * a row-level unit is one row. A release is a set of cells over one column set, a notion and a per-person charge (taken
 * as given: what one person touching the release can lose). The true loss of a person is the sum of the charges of the
 * releases whose (original) cells that person's rows touch. The ledger sees the cells the release path keeps
 * (`soundCells`: real cells only over per-person columns, else the whole dataset), accounts each notion with
 * `cellSpend` and sums the notions.
 *
 * Both unsound alternatives are checked to fail on the same universes (so the checks can fail): keeping cells over B,
 * and taking the largest notion instead of the sum.
 */
import { describe, expect, it } from 'vitest'
import { type CellKey, WHOLE_DATASET, cellKey, cellSpend, parseCellKey } from '../../src-main/services/ledger/cells'
import { soundCells } from '../../src-main/services/ledger/unit-groups'
import type { PrivacyUnit } from '../../src-main/contract/datasets'

type Row = { A: number; B: number }
type Notion = 'n1' | 'n2'
interface Release {
  cells: CellKey[]
  charge: number
  notion: Notion
}

const A_VALUES = [0, 1]
const B_VALUES = [0, 1, 2]
const PER_PERSON = (c: string) => c === 'A'

/** Cell templates: each a release's cells over one column set (as a group-by and filter make them). */
const TEMPLATES: Array<Array<Record<string, number>>> = [
  [{}],
  [{ A: 0 }],
  [{ A: 0 }, { A: 1 }],
  [{ B: 0 }],
  [{ B: 1 }, { B: 2 }],
  [
    { A: 0, B: 0 },
    { A: 1, B: 1 }
  ],
  [{ A: 1, B: 2 }]
]
/** Distinct charges per template (nano units), so that sums and maxima cannot coincide by accident. */
const CHARGES = [3, 5, 7, 11, 13, 17, 19]

/** Every possible row set of one person: one A value, any non-empty set of B values. */
function personRowSets(): Row[][] {
  const out: Row[][] = []
  for (const a of A_VALUES) {
    for (let mask = 1; mask < 1 << B_VALUES.length; mask++) out.push(B_VALUES.filter((_, i) => mask & (1 << i)).map((b) => ({ A: a, B: b })))
  }
  return out
}
/** Row-level: a unit is one row. */
function rowSets(): Row[][] {
  return A_VALUES.flatMap((a) => B_VALUES.map((b) => [{ A: a, B: b }]))
}

function inCell(row: Row, cell: CellKey): boolean {
  const conj = parseCellKey(cell)
  return Object.entries(conj).every(([k, v]) => row[k as keyof Row] === v)
}

/** The worst-case true loss of one unit over all its possible row sets. */
function trueWorstLoss(releases: Release[], sets: Row[][]): number {
  let worst = 0
  for (const rows of sets) {
    let loss = 0
    for (const r of releases) if (rows.some((row) => r.cells.some((c) => inCell(row, c)))) loss += r.charge
    if (loss > worst) worst = loss
  }
  return worst
}

/** The ledger's figure: each notion's cell accounting (max over records of the sum of their cells), summed over notions. */
function ledgerPerUnit(releases: Release[], unit: PrivacyUnit, opts: { keepAllCells?: boolean; maxOverNotions?: boolean } = {}): number {
  const perNotion = new Map<Notion, Array<{ cell: CellKey; nano: number }>>()
  for (const r of releases) {
    const cells = opts.keepAllCells ? r.cells : soundCells(unit, PER_PERSON, r.cells)
    const list = perNotion.get(r.notion) ?? []
    for (const c of new Set(cells)) list.push({ cell: c, nano: r.charge })
    perNotion.set(r.notion, list)
  }
  const spends = [...perNotion.values()].map((charges) => cellSpend(charges).maxNano)
  return opts.maxOverNotions ? Math.max(0, ...spends) : spends.reduce((a, b) => a + b, 0)
}

/** All sequences of `len` releases drawn from the templates, each under one of `notions`. */
function* sequences(len: number, notions: Notion[]): Generator<Release[]> {
  const choices = TEMPLATES.length * notions.length
  const total = choices ** len
  for (let code = 0; code < total; code++) {
    const seq: Release[] = []
    let x = code
    for (let i = 0; i < len; i++) {
      const c = x % choices
      x = Math.floor(x / choices)
      const t = c % TEMPLATES.length
      seq.push({ cells: TEMPLATES[t].map((conj) => cellKey(conj)), charge: CHARGES[t], notion: notions[Math.floor(c / TEMPLATES.length)] })
    }
    yield seq
  }
}

interface Tally {
  sequences: number
  violations: number
  tight: number
  firstViolation: string | null
}

function check(len: number, notions: Notion[], unit: PrivacyUnit, ledger: (rs: Release[]) => number): Tally {
  const sets = unit.kind === 'person' ? personRowSets() : rowSets()
  const t: Tally = { sequences: 0, violations: 0, tight: 0, firstViolation: null }
  for (const seq of sequences(len, notions)) {
    t.sequences++
    const truth = trueWorstLoss(seq, sets)
    const figure = ledger(seq)
    if (figure < truth) {
      t.violations++
      t.firstViolation ??= `${JSON.stringify(seq)}: ledger ${figure} < true loss ${truth}`
    }
    if (figure === truth) t.tight++
  }
  return t
}

const PERSON: PrivacyUnit = { kind: 'person', column: 'person' }
const ROW: PrivacyUnit = { kind: 'row' }

describe('brute force: spend per unit is never below the true worst-case loss', () => {
  it('the universe is what it says: 14 row sets per person, 6 rows, 7 templates', () => {
    expect(personRowSets()).toHaveLength(A_VALUES.length * (2 ** B_VALUES.length - 1))
    expect(rowSets()).toHaveLength(A_VALUES.length * B_VALUES.length)
    // Templates over B are collapsed to the whole dataset for persons, kept for rows; over A alone they are kept.
    expect(soundCells(PERSON, PER_PERSON, [cellKey({ B: 0 })])).toEqual([WHOLE_DATASET])
    expect(soundCells(PERSON, PER_PERSON, [cellKey({ A: 0 }), cellKey({ A: 1 })])).toEqual([cellKey({ A: 0 }), cellKey({ A: 1 })])
    expect(soundCells(ROW, PER_PERSON, [cellKey({ B: 0 })])).toEqual([cellKey({ B: 0 })])
  })

  for (const len of [2, 3, 4]) {
    it(`person-level, one notion, every sequence of ${len} releases`, () => {
      const t = check(len, ['n1'], PERSON, (rs) => ledgerPerUnit(rs, PERSON))
      expect(t.sequences).toBe(TEMPLATES.length ** len)
      expect(t.firstViolation).toBeNull()
      console.log(`person-level, 1 notion, length ${len}: ${t.sequences} sequences, ledger = true worst case on ${t.tight}, above it on the rest`)
      // Not vacuous: the figure is exact on many sequences (it is not simply "charge everything to everyone").
      expect(t.tight).toBeGreaterThan(t.sequences / 4)
    })
  }

  for (const len of [2, 3]) {
    it(`person-level, two notions summed, every sequence of ${len} releases`, () => {
      const t = check(len, ['n1', 'n2'], PERSON, (rs) => ledgerPerUnit(rs, PERSON))
      expect(t.sequences).toBe((2 * TEMPLATES.length) ** len)
      expect(t.firstViolation).toBeNull()
    })
    it(`row-level, two notions summed, every sequence of ${len} releases: exact cell accounting`, () => {
      const t = check(len, ['n1', 'n2'], ROW, (rs) => ledgerPerUnit(rs, ROW))
      expect(t.firstViolation).toBeNull()
      // With one notion the row-level cell accounting is exactly the worst case (MIDE Theorem 5).
      const one = check(len, ['n1'], ROW, (rs) => ledgerPerUnit(rs, ROW))
      expect(one.tight).toBe(one.sequences)
    })
  }

  it('person-level, two notions, sequences of 4 (every one)', () => {
    const t = check(4, ['n1', 'n2'], PERSON, (rs) => ledgerPerUnit(rs, PERSON))
    expect(t.sequences).toBe((2 * TEMPLATES.length) ** 4)
    expect(t.firstViolation).toBeNull()
    console.log(`person-level, 2 notions, length 4: ${t.sequences} sequences, ledger = true worst case on ${t.tight}`)
  })
})

describe('brute force: the unsound alternatives are caught', () => {
  it('keeping cells over a column with several values per person under-counts a person', () => {
    const t = check(2, ['n1'], PERSON, (rs) => ledgerPerUnit(rs, PERSON, { keepAllCells: true }))
    expect(t.violations).toBeGreaterThan(0)
    console.log(`control, cells kept over B: ${t.violations} of ${t.sequences} sequences of 2 under-count a person`)
    // e.g. B = 0 then B = 1 or 2: the ledger's max is below the person with rows in both.
    const rs: Release[] = [
      { cells: [cellKey({ B: 0 })], charge: 5, notion: 'n1' },
      { cells: [cellKey({ B: 1 }), cellKey({ B: 2 })], charge: 7, notion: 'n1' }
    ]
    expect(ledgerPerUnit(rs, PERSON, { keepAllCells: true })).toBe(7)
    expect(trueWorstLoss(rs, personRowSets())).toBe(12)
    expect(ledgerPerUnit(rs, PERSON)).toBe(12)
  })

  it('the largest notion instead of the sum under-counts a normal person', () => {
    const t = check(2, ['n1', 'n2'], PERSON, (rs) => ledgerPerUnit(rs, PERSON, { maxOverNotions: true }))
    expect(t.violations).toBeGreaterThan(0)
    console.log(`control, largest notion instead of the sum: ${t.violations} of ${t.sequences} sequences of 2 under-count a person`)
    const rs: Release[] = [
      { cells: [WHOLE_DATASET], charge: 3, notion: 'n1' },
      { cells: [WHOLE_DATASET], charge: 5, notion: 'n2' }
    ]
    expect(ledgerPerUnit(rs, PERSON, { maxOverNotions: true })).toBe(5)
    expect(ledgerPerUnit(rs, PERSON)).toBe(8)
    expect(trueWorstLoss(rs, personRowSets())).toBe(8)
  })

  it('the six-room case: rooms then hours on a person-level log', () => {
    // One release over 6 rooms (a person in all of them) and one over hours; each charged per person (6 x 0.576 and
    // 3 x 0.576, nano). Room and hour are not per-person columns, so both are charged on the whole dataset.
    const per = 576_000_000
    const rooms = [0, 1, 2, 3, 4, 5].map((r) => cellKey({ room: r }))
    const hours = [8, 9, 10].map((h) => cellKey({ hour: h }))
    const rs = [
      { cells: soundCells(PERSON, () => false, rooms), charge: 6 * per },
      { cells: soundCells(PERSON, () => false, hours), charge: 3 * per }
    ]
    expect(rs.every((r) => r.cells.length === 1 && r.cells[0] === WHOLE_DATASET)).toBe(true)
    const spent = cellSpend(rs.flatMap((r) => r.cells.map((cell) => ({ cell, nano: r.charge })))).maxNano
    expect(spent).toBe(9 * per) // 5.184 > 5: a budget of 5 denies the second release
  })
})
