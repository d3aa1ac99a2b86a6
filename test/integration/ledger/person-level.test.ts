/**
 * Privacy units and one figure per person: the import option (service and CLI), the per-person column check,
 * spend per unit summed over notions with one budget per unit, the JSON contract of `ledger` and `budget`, and a brute
 * force over real ledgers that the spend per unit is never below a person's true worst-case loss.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { planImport, runImport } from '../../../src-main/services/datasets/import-dataset'
import { getDataset, listDatasets } from '../../../src-main/services/catalog/catalog'
import { datasetUnit, isPerPersonColumn } from '../../../src-main/services/trust/privacy-unit'
import { cellsForUnit } from '../../../src-main/services/ledger/unit-groups'
import { recordPrivacyUnit, unitWord } from '../../../src-main/services/catalog/unit-record'
import { appendEntry } from '../../../src-main/services/chain/ledger-chain'
import { admission } from '../../../src-main/services/ledger/admission'
import { type CellKey, WHOLE_DATASET, cellKey, parseCellKey } from '../../../src-main/services/ledger/cells'
import { datasetLedger, ledgerSummary } from '../../../src-main/services/ledger/ledger-views'
import { setBudget } from '../../../src-main/services/ledger/budgets'
import { verifyLedger } from '../../../src-main/services/ledger/verify'
import type { PrivacyNotion } from '../../../src-main/contract/ledger'
import type { Store } from '../../../src-main/services/store/store'
import type { tempWorkspace } from '../helpers'
import { closeLedgerWorkspace, craftDataset, openLedgerWorkspace } from './fixtures'
import { harness } from '../datasets/harness'
import { officerAct, testPassphrase } from '../officer-fixture'
import { runCli } from '../cli-runner'

let ws: ReturnType<typeof tempWorkspace>
let store: Store

beforeEach(() => {
  ;({ ws, store } = openLedgerWorkspace('qa-person-'))
})
afterEach(() => closeLedgerWorkspace(store, ws))

const cli = (...args: string[]) => runCli(args, { cwd: ws.dir })

/** A visits log: person p1 in two rooms (same building), p2 in one room with an empty building on one row, p3 once. */
function writeVisits(name = 'visits.csv'): string {
  const path = join(ws.dir, name)
  writeFileSync(
    path,
    ['person,room,building,age,hour', 'p1,R1,A,40,8', 'p1,R2,A,40,9', 'p2,R3,B,31,8', 'p2,R3,,31,10', 'p3,R1,A,,8', 'p4,R4,C,50,11'].join('\n') + '\n'
  )
  return path
}

function charge(datasetId: number, notion: PrivacyNotion, cells: CellKey[], nano: number) {
  return store.db.transaction(() =>
    appendEntry(store.db, {
      kind: 'charge',
      datasetId,
      datasetName: 'd',
      notion,
      amountNano: nano,
      cells,
      releaseId: null,
      actor: 't',
      description: 'test charge',
      detail: {}
    })
  )()
}

describe('privacy unit at import', () => {
  it('service: a person column is recorded; columns declared one value per person are checked (an empty value counts), others count as several', async () => {
    // Declaring a column some person has two values in fails the import, nothing stored (the importer holds the file).
    await expect(
      runImport(store.db, planImport(store.db, { path: writeVisits(), name: 'visits', personColumn: 'person', perPersonColumns: ['age', 'room'] }))
    ).rejects.toThrow(
      'The column "room" was declared to hold one value per person, but the file has a person with several values in it; import without declaring it'
    )
    await expect(
      runImport(store.db, planImport(store.db, { path: writeVisits(), name: 'visits', personColumn: 'person', perPersonColumns: ['building'] }))
    ).rejects.toThrow(/^The column "building" was declared to hold one value per person/)
    expect(listDatasets(store.db)).toHaveLength(0)
    const r = await runImport(
      store.db,
      planImport(store.db, { path: writeVisits(), name: 'visits', personColumn: 'person', perPersonColumns: ['age'] })
    )
    const id = r.dataset.id
    expect(r.dataset.unit).toEqual({ kind: 'person', column: 'person' })
    expect(datasetUnit(store.db, id)).toEqual({ kind: 'person', column: 'person' })
    expect(unitWord(datasetUnit(store.db, id))).toBe('person')
    const flags = Object.fromEntries(r.dataset.columns.map((c) => [c.name, c.perPerson]))
    // age: declared, and one value each (p3's single empty); the others are not declared (room: p1 has R1 and R2;
    // building: p2 has B and empty; hour: p1 has 8 and 9).
    expect(flags).toEqual({ person: true, room: false, building: false, age: true, hour: false })
    for (const [col, flag] of Object.entries(flags)) expect(isPerPersonColumn(store.db, id, col)).toBe(flag)
    expect(isPerPersonColumn(store.db, id, 'no such column')).toBe(false)
    // Cells over per-person columns are kept; any other column makes the release a whole-dataset charge.
    const byAge = [cellKey({ age: 40 }), cellKey({ age: 31 })]
    expect(cellsForUnit(store.db, id, byAge)).toEqual(byAge)
    expect(cellsForUnit(store.db, id, [cellKey({ age: 40, room: 'R1' })])).toEqual([WHOLE_DATASET])
    // The catalog shows the unit.
    expect(listDatasets(store.db).find((d) => d.id === id)!.unit).toEqual({ kind: 'person', column: 'person' })
  })

  it('service: without a person column the dataset is row-level and every column is per unit', async () => {
    const r = await runImport(store.db, planImport(store.db, { path: writeVisits(), name: 'rows' }))
    expect(r.dataset.unit).toEqual({ kind: 'row' })
    expect(r.dataset.columns.every((c) => c.perPerson === undefined)).toBe(true)
    expect(isPerPersonColumn(store.db, r.dataset.id, 'room')).toBe(true)
    expect(cellsForUnit(store.db, r.dataset.id, [cellKey({ room: 'R1' })])).toEqual([cellKey({ room: 'R1' })])
    expect(unitWord(datasetUnit(store.db, r.dataset.id))).toBe('row')
  })

  it('service: an unknown or empty person column is refused with one sentence and nothing is stored', async () => {
    const path = writeVisits()
    await expect(runImport(store.db, planImport(store.db, { path, name: 'x', personColumn: 'nobody' }))).rejects.toThrow(
      /^The person column "nobody" is not in the header row; name a column of the file, or import row-level$/
    )
    expect(() => planImport(store.db, { path, name: 'x', personColumn: ' ' })).toThrow(/The person column must be the name of a column/)
    expect(listDatasets(store.db)).toHaveLength(0)
    const tables = (
      store.db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND (name LIKE 'ds_%' OR name LIKE 'import_staging%')`).all() as unknown[]
    ).length
    expect(tables).toBe(0)
    expect((store.db.prepare('SELECT count(*) AS n FROM dataset_units').get() as { n: number }).n).toBe(0)
  })

  it('contract: datasets/import takes personColumn; the job fails with the sentence on an unknown column; datasets/get shows the unit', async () => {
    const hx = harness()
    try {
      const path = writeVisits('contract.csv')
      const ok = await hx.importAndWait({ path, name: 'visits', personColumn: 'person', perPersonColumns: ['age'] })
      expect(ok.state, ok.error ?? '').toBe('done')
      const list = await hx.handlers['datasets/list']({})
      expect(list.map((d) => [d.name, d.unit])).toEqual([['visits', { kind: 'person', column: 'person' }]])
      const got = await hx.handlers['datasets/get']({ datasetId: list[0].id })
      expect(got.columns.find((c) => c.name === 'age')!.perPerson).toBe(true)
      const bad = await hx.importAndWait({ path, name: 'bad', personColumn: 'nobody' })
      expect(bad.state).toBe('failed')
      expect(bad.error).toMatch(/^The person column "nobody" is not in the header row/)
      const rows = await hx.importAndWait({ path, name: 'rows' })
      expect(rows.state).toBe('done')
      expect((await hx.handlers['datasets/list']({})).map((d) => d.unit.kind)).toEqual(['person', 'row'])
    } finally {
      hx.cleanup()
    }
  })

  it('the unit is fixed: dataset_units rows cannot change or go, and stay after the dataset is deleted', async () => {
    const r = await runImport(store.db, planImport(store.db, { path: writeVisits(), name: 'visits', personColumn: 'person' }))
    expect(() => store.db.prepare('UPDATE dataset_units SET person_column = NULL').run()).toThrow(/fixed at import/)
    expect(() => store.db.prepare('DELETE FROM dataset_units').run()).toThrow(/kept/)
    const { deleteDataset } = await import('../../../src-main/services/catalog/catalog')
    deleteDataset(store.db, r.dataset.id)
    expect(datasetUnit(store.db, r.dataset.id)).toEqual({ kind: 'person', column: 'person' })
    expect(ledgerSummary(store.db, { datasetId: r.dataset.id }).datasets[0].unit).toBe('person')
  })

  it('CLI: --person-column, --row-level, the default, and bad input (exit 2, nothing written)', async () => {
    writeVisits()
    const p = await cli('import', '--db', ws.db, '--file', 'visits.csv', '--name', 'by-person', '--person-column', 'person', '--json')
    expect(p.code, p.err).toBe(0)
    const pj = JSON.parse(p.out)
    expect(pj).toMatchObject({ name: 'by-person', unit: 'person', unitKind: 'person' })
    expect(pj.columns.find((c: { name: string }) => c.name === 'room').perPerson).toBe(false)
    expect(p.out).not.toMatch(/"perPerson":true[^}]*"name":"room"/)
    const text = await cli(
      'import',
      '--db',
      ws.db,
      '--file',
      'visits.csv',
      '--name',
      'by-person-2',
      '--person-column',
      'person',
      '--per-person-columns',
      'age'
    )
    expect(text.out).toMatch(/Privacy unit: person-level \(person column "person"\)/)
    expect(text.out).toMatch(/Declared one value per person \(checked; cells over them are accounted in parallel\): age/)
    const rl = await cli('import', '--db', ws.db, '--file', 'visits.csv', '--name', 'by-row', '--row-level', '--json')
    expect(rl.code, rl.err).toBe(0)
    expect(JSON.parse(rl.out)).toMatchObject({ unit: 'row', unitKind: 'row' })
    const dflt = await cli('import', '--db', ws.db, '--file', 'visits.csv', '--name', 'default')
    expect(dflt.out).toMatch(
      /Privacy unit: row-level \(each row is a different person\) \(the default; --person-column NAME declares a person column\)/
    )
    const shown = await cli('datasets', 'show', '--db', ws.db, '--dataset', 'by-person')
    expect(shown.out).toMatch(/Privacy unit: person-level \(person column "person"\)/)
    const before = listDatasets(store.db).length
    const cases: Array<[string[], RegExp]> = [
      [['--person-column', 'person', '--row-level'], /^quiet-alarm: Give either --person-column NAME \(person-level\) or --row-level, not both\n$/],
      [
        ['--person-column', 'nobody'],
        /^quiet-alarm: The person column "nobody" is not in the header row; name a column of the file, or import row-level\n$/
      ],
      [['--person-column', ''], /^quiet-alarm: --person-column/]
    ]
    for (const [extra, message] of cases) {
      const r = await cli('import', '--db', ws.db, '--file', 'visits.csv', '--name', 'bad', ...extra)
      expect(r.code, r.err).toBe(2)
      expect(r.err).toMatch(message)
      expect(r.out).toBe('')
    }
    expect(listDatasets(store.db)).toHaveLength(before)
    expect(readdirSync(ws.dir).filter((f) => f.endsWith('.csv'))).toEqual(['visits.csv'])
  })
})

describe('one figure per person: spend summed over notions, one budget per unit', () => {
  it('admission denies when the sum over notions would exceed the budget per unit, though each notion alone fits', () => {
    const id = craftDataset(store.db, 'd', [{ name: 'x', type: 'integer' }], [[1]])
    setBudget(store.db, { datasetId: id, epsilon: '10', reason: 'budget per person', ...officerAct(store.db, 'olga') })
    const a1 = admission(store.db, id, 'd', 'eps-dp', [WHOLE_DATASET], 6e9)
    expect(a1.allowed).toBe(true)
    charge(id, 'eps-dp', [WHOLE_DATASET], 6e9)
    const a2 = admission(store.db, id, 'd', 'anomaly-restricted-dp', [WHOLE_DATASET], 5e9)
    expect(a2.allowed).toBe(false)
    expect(a2.spentBeforeNano).toBe(6e9)
    expect(a2.spentAfterNano).toBe(11e9)
    expect(a2.overNano).toBe(1e9)
    expect(a2.denial).toMatch(
      /only 4 of the 10 budget per row \(summed over notions\) of dataset "d" remains; the difference is 1\. Nothing was spent/
    )
    expect(admission(store.db, id, 'd', 'anomaly-restricted-dp', [WHOLE_DATASET], 4e9).allowed).toBe(true)
    charge(id, 'anomaly-restricted-dp', [WHOLE_DATASET], 4e9)
    const d = datasetLedger(store.db, id)
    expect(d.spentPerUnit).toBe(10)
    expect(d.budgetPerUnit).toBe(10)
    expect(d.remainingPerUnitExact).toBe('0')
    expect(d.accounts.map((a) => a.spentExact)).toEqual(['6', '0', '0', '4'])
    // Every notion's remaining is what the budget per unit leaves.
    expect(d.accounts.every((a) => a.remainingExact === '0')).toBe(true)
    expect(admission(store.db, id, 'd', 'predicate-wise-dp', [cellKey({ x: 1 })], 1).allowed).toBe(false)
  })

  it('a notion budget is an extra cap beneath the budget per unit; cells still compose in parallel within a notion', () => {
    const id = craftDataset(store.db, 'd', [{ name: 'x', type: 'integer' }], [[1]])
    setBudget(store.db, { datasetId: id, epsilon: '10', reason: 'budget per person', ...officerAct(store.db, 'olga') })
    setBudget(store.db, {
      datasetId: id,
      epsilon: '3',
      notion: 'predicate-wise-dp',
      reason: 'threshold queries at most 3',
      ...officerAct(store.db, 'olga')
    })
    charge(id, 'predicate-wise-dp', [cellKey({ x: 1 })], 3e9)
    // A disjoint cell: the notion's account stays at 3 (parallel composition), so it fits the cap.
    expect(admission(store.db, id, 'd', 'predicate-wise-dp', [cellKey({ x: 2 })], 3e9).allowed).toBe(true)
    const same = admission(store.db, id, 'd', 'predicate-wise-dp', [cellKey({ x: 1 })], 1e9)
    expect(same.allowed).toBe(false)
    expect(same.denial).toMatch(/of the 3 predicate-wise DP budget/)
    // Other notions are held by the budget per unit only: 10 - 3.
    expect(admission(store.db, id, 'd', 'eps-dp', [WHOLE_DATASET], 7e9).allowed).toBe(true)
    expect(admission(store.db, id, 'd', 'eps-dp', [WHOLE_DATASET], 7e9 + 1).allowed).toBe(false)
  })

  it('without a budget per unit only notions with their own budget may spend, and a person is held to their sum', () => {
    const id = craftDataset(store.db, 'd', [{ name: 'x', type: 'integer' }], [[1]])
    expect(admission(store.db, id, 'd', 'eps-dp', [WHOLE_DATASET], 1).denial).toMatch(/has no budget per row and no eps-DP budget/)
    setBudget(store.db, { datasetId: id, epsilon: '2', notion: 'eps-dp', reason: 'eps-dp only', ...officerAct(store.db, 'olga') })
    setBudget(store.db, { datasetId: id, epsilon: '1.5', notion: 'eps-k-sensitive', reason: 'sp only', ...officerAct(store.db, 'olga') })
    expect(admission(store.db, id, 'd', 'eps-dp', [WHOLE_DATASET], 2e9).allowed).toBe(true)
    expect(admission(store.db, id, 'd', 'anomaly-restricted-dp', [WHOLE_DATASET], 1).allowed).toBe(false)
    const d = datasetLedger(store.db, id)
    expect(d).toMatchObject({ budgetPerUnit: 3.5, budgetPerUnitSource: 'notion-budgets' })
    expect(d.accounts.find((a) => a.notion === 'anomaly-restricted-dp')!.remaining).toBeNull()
  })

  it('CLI: `ledger --json` has unit, spentPerUnit and budgetPerUnit per dataset; `budget` without --notion sets budgetPerUnit', async () => {
    writeVisits()
    expect((await cli('import', '--db', ws.db, '--file', 'visits.csv', '--name', 'visits', '--person-column', 'person')).code).toBe(0)
    expect((await cli('import', '--db', ws.db, '--file', 'visits.csv', '--name', 'rows', '--row-level')).code).toBe(0)
    officerAct(store.db, 'olga')
    writeFileSync(join(ws.dir, 'olga.pass'), testPassphrase('olga'))
    const set = await cli(
      'budget',
      '--db',
      ws.db,
      '--dataset',
      'visits',
      '--epsilon',
      '4.5',
      '--reason',
      'per person',
      '--officer',
      'olga',
      '--passphrase-file',
      'olga.pass'
    )
    expect(set.code, set.err).toBe(0)
    expect(set.out).toMatch(/Budget of "visits" for each person, summed over notions, set to 4\.5/)
    const capped = await cli(
      'budget',
      '--db',
      ws.db,
      '--dataset',
      'visits',
      '--epsilon',
      '1',
      '--notion',
      'eps-dp',
      '--reason',
      'cap',
      '--officer',
      'olga',
      '--passphrase-file',
      'olga.pass',
      '--json'
    )
    expect(capped.code, capped.err).toBe(0)
    expect(JSON.parse(capped.out).account).toMatchObject({ unit: 'person', budgetPerUnit: 4.5 })
    const id = getDataset(store.db, 1).info.id
    charge(id, 'eps-dp', [WHOLE_DATASET], 1e9)
    charge(id, 'eps-k-sensitive', [WHOLE_DATASET], 1.25e9)
    const r = await cli('ledger', '--db', ws.db, '--json')
    expect(r.code, r.err).toBe(0)
    const j = JSON.parse(r.out) as { summary: { datasets: Array<Record<string, unknown>> } }
    const visits = j.summary.datasets.find((d) => d.datasetName === 'visits')!
    const rows = j.summary.datasets.find((d) => d.datasetName === 'rows')!
    expect(visits).toMatchObject({ unit: 'person', unitKind: 'person', spentPerUnit: 2.25, budgetPerUnit: 4.5, remainingPerUnit: 2.25 })
    expect(rows).toMatchObject({ unit: 'row', unitKind: 'row', spentPerUnit: 0, budgetPerUnit: 0, budgetPerUnitSource: 'none' })
    expect(typeof visits.spentPerUnit).toBe('number')
    expect(typeof rows.budgetPerUnit).toBe('number')
    const text = await cli('ledger', '--db', ws.db, '--dataset', 'visits')
    expect(text.out).toMatch(/Dataset "visits" \(id 1\), unit: person-level \(person column "person"\)/)
    expect(text.out).toMatch(/Spent per person, summed over notions: 2\.25; budget 4\.5, remaining 2\.25/)
    expect(text.out).toMatch(/eps-DP +1 +1 +0 +1/)
  })
})

// ---------------------------------------------------------------------------------------------------------------
// Brute force over real ledgers: crafted person-level datasets, per-person flags from the import's SQL check, cells
// decided by cellsForUnit, charges appended to the ledger, spentPerUnit read from the summary.

/** Deterministic generator (tests must be reproducible). */
function lcg(seed: number) {
  let s = seed >>> 0
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    return s / 2 ** 32
  }
}

describe('brute force on real ledgers: spentPerUnit >= the true worst-case loss of any person', () => {
  it('random sequences of 2 to 4 charges over 80 small person-level datasets', () => {
    const rnd = lcg(14)
    const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)]
    // Two notions, so that many sequences put several releases in one notion's cell accounting.
    const notions: PrivacyNotion[] = ['predicate-wise-dp', 'eps-dp']
    let tight = 0
    let checked = 0
    let wholeDataset = 0
    let kept = 0
    for (let n = 0; n < 80; n++) {
      // 3 persons, 1-3 rows each; `team` is one value per person, `room` and `hour` vary within a person.
      const rows: Array<[string, string, string, number]> = []
      for (const p of ['p1', 'p2', 'p3']) {
        const team = pick(['red', 'blue'])
        const k = 1 + Math.floor(rnd() * 3)
        for (let i = 0; i < k; i++) rows.push([p, team, pick(['R1', 'R2', 'R3']), pick([8, 9])])
      }
      const id = craftDataset(
        store.db,
        `bf${n}`,
        [
          { name: 'person', type: 'text' },
          { name: 'team', type: 'text' },
          { name: 'room', type: 'text' },
          { name: 'hour', type: 'integer' }
        ],
        rows
      )
      // The importer declares the columns that do hold one value per person (team always; room or hour when the
      // generated rows happen to give each person one); declaring one that does not is refused.
      const onePerPerson = (col: number) => ['p1', 'p2', 'p3'].every((p) => new Set(rows.filter((r) => r[0] === p).map((r) => r[col])).size <= 1)
      const declared = ['team', ...(onePerPerson(2) ? ['room'] : []), ...(onePerPerson(3) ? ['hour'] : [])]
      if (!onePerPerson(2))
        expect(() => store.db.transaction(() => recordPrivacyUnit(store.db, id, 'person', ['room']))()).toThrow(
          /declared to hold one value per person/
        )
      store.db.transaction(() => recordPrivacyUnit(store.db, id, 'person', declared))()
      const perPerson = (c: string) => isPerPersonColumn(store.db, id, c)
      expect(perPerson('team')).toBe(true)
      // Releases: a group-by over one column set, one cell per value asked, a notion and a per-person charge.
      const shapes: Array<() => Array<Record<string, string | number>>> = [
        () => [{}],
        () => [{ team: 'red' }, { team: 'blue' }].slice(0, 1 + Math.floor(rnd() * 2)),
        () => [{ room: pick(['R1', 'R2', 'R3']) }],
        () => [{ room: 'R1' }, { room: 'R2' }, { room: 'R3' }],
        () => [{ hour: pick([8, 9]) }],
        () => [{ team: pick(['red', 'blue']), room: pick(['R1', 'R2']) }]
      ]
      const len = 2 + Math.floor(rnd() * 3)
      const releases: Array<{ cells: CellKey[]; nano: number; notion: PrivacyNotion }> = []
      for (let i = 0; i < len; i++) {
        const cells = [...new Set(pick(shapes)().map((c) => cellKey(c)))]
        const nano = (1 + Math.floor(rnd() * 9)) * 1e8
        const notion = pick(notions)
        const charged = cellsForUnit(store.db, id, cells)
        if (charged.length === 1 && charged[0] === WHOLE_DATASET) wholeDataset++
        else kept++
        charge(id, notion, charged, nano)
        releases.push({ cells, nano, notion })
      }
      const ledger = ledgerSummary(store.db, { datasetId: id }).datasets[0]
      const spent = Math.round(ledger.spentPerUnit * 1e9)
      // True worst case over every row set a person could have: any non-empty set of (team, room, hour) rows that
      // holds one value in each column the import found per-person (team always; room or hour when the data happen to
      // give each person one). The releases' own cells (not the charged ones) say what a person's rows touch.
      const tuples: Array<{ team: string; room: string; hour: number }> = []
      for (const team of ['red', 'blue']) for (const room of ['R1', 'R2', 'R3']) for (const hour of [8, 9]) tuples.push({ team, room, hour })
      const fixed = (['team', 'room', 'hour'] as const).filter((c) => perPerson(c))
      let worst = 0
      for (let mask = 1; mask < 1 << tuples.length; mask++) {
        const mine = tuples.filter((_, i) => mask & (1 << i))
        if (fixed.some((c) => new Set(mine.map((row) => row[c])).size > 1)) continue
        let loss = 0
        for (const r of releases) {
          const touches = mine.some((row) => r.cells.some((c) => Object.entries(parseCellKey(c)).every(([k, v]) => row[k as keyof typeof row] === v)))
          if (touches) loss += r.nano
        }
        worst = Math.max(worst, loss)
      }
      checked++
      expect(spent, `dataset bf${n}: ${JSON.stringify(releases)}`).toBeGreaterThanOrEqual(worst)
      if (spent === worst) tight++
      // The flags are the checked declaration.
      expect(perPerson('room')).toBe(onePerPerson(2))
      expect(perPerson('hour')).toBe(onePerPerson(3))
    }
    expect(checked).toBe(80)
    // Both kinds of charge occurred, and the bound is often exact (not vacuous).
    expect(wholeDataset).toBeGreaterThan(10)
    expect(kept).toBeGreaterThan(10)
    expect(tight).toBeGreaterThan(20)
    expect(verifyLedger(store.db).ok).toBe(true)
  })
})
