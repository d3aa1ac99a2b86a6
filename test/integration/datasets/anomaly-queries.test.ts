/** Anomaly identification and anomaly search definitions: validation against the columns, and their loaders. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { ImportResult } from '../../../src-main/contract/datasets'
import { loadAnomalyIdentificationData, loadAnomalySearchData } from '../../../src-main/services/datasets'
import { type Harness, harness } from './harness'
import { officerAct } from '../officer-fixture'

let h: Harness
let ds: number
beforeAll(async () => {
  h = harness()
  writeFileSync(
    join(h.dir, 'people.csv'),
    'name,age,income,city,at\nann,34,51000.5,Oslo,2015-01-01 10:00:00\nbob,,42000,Rome,2015-01-02 10:00:00\ncid,71,99000,"x""; DROP TABLE datasets; --",2015-01-03 10:00:00\n'
  )
  const job = await h.importAndWait({ path: join(h.dir, 'people.csv'), name: 'people' })
  ds = (job.result as ImportResult).dataset.id
})
afterAll(() => h.cleanup())

describe('anomaly query definitions', () => {
  it('saves an anomaly identification query and loads its columns (rows with empty values left out)', async () => {
    const q = await h.handlers['queries/save']({
      datasetId: ds,
      name: 'unusual people',
      definition: {
        kind: 'anomaly-identification',
        columns: ['age', 'city', 'at'],
        binWidths: [10, null, 86_400_000],
        metric: 'linf',
        radius: 1,
        beta: 2,
        k: 1,
        records: [[34, 'Oslo', '2015-01-01']]
      }
    })
    expect(q.definition).toMatchObject({ binWidths: [10, null, 86_400_000] })
    const data = loadAnomalyIdentificationData(h.store, q.id)
    expect(data.rowCount).toBe(2)
    expect(data.skippedRows).toBe(1)
    expect(data.columns.map((c) => [c.name, c.kind])).toEqual([
      ['age', 'numeric'],
      ['city', 'categorical'],
      ['at', 'numeric']
    ])
    expect(Array.from(data.columns[0].values as Float64Array)).toEqual([34, 71])
    expect(data.columns[1].values).toEqual(['Oslo', 'x"; DROP TABLE datasets; --'])
    expect(Array.from(data.columns[2].values as Float64Array)).toEqual([Date.UTC(2015, 0, 1, 10), Date.UTC(2015, 0, 3, 10)])
    expect(data.records).toEqual([[34, 'Oslo', Date.UTC(2015, 0, 1)]])
  })

  it('an anomaly search takes its individuals from the definition or a public dataset, never from the searched data', async () => {
    const base = {
      kind: 'anomaly-search',
      scoreColumn: 'income',
      tLow: 60000,
      tHigh: 90000,
      epsilonPerQuery: 0.5,
      budget: 5,
      oracle: 'direct'
    } as const
    const q = await h.handlers['queries/save']({
      datasetId: ds,
      name: 'top earner',
      definition: { ...base, idColumn: 'name', individuals: ['cid', 'zed', 'ann', 'bob'], tau: 0.5, top: 2 }
    })
    const data = loadAnomalySearchData(h.store, q.id)
    // In the definition's order; "zed" has no row: the floor L = 0.
    expect(data.ids).toEqual(['cid', 'zed', 'ann', 'bob'])
    expect(Array.from(data.scores)).toEqual([99000, 0, 51000.5, 42000])
    // Scores below L are clipped to L; an individual with several rows counts with the largest.
    writeFileSync(join(h.dir, 'scores.csv'), 'who,score\nx,-1000\ny,10\ny,12\nz,3\n')
    const sc = ((await h.importAndWait({ path: join(h.dir, 'scores.csv'), name: 'scores' })).result as ImportResult).dataset.id
    const clipped = await h.handlers['queries/save']({
      datasetId: sc,
      name: 'clipped',
      definition: {
        kind: 'anomaly-search',
        scoreColumn: 'score',
        idColumn: 'who',
        individuals: ['x', 'y', 'z'],
        scoreFloor: 5,
        tLow: 8,
        tHigh: 11,
        epsilonPerQuery: 0.5,
        budget: 5,
        oracle: 'direct'
      }
    })
    expect(Array.from(loadAnomalySearchData(h.store, clipped.id).scores)).toEqual([5, 12, 5])
    // Ids are matched in the catalog's form: a timestamp as "YYYY-MM-DD HH:MM:SS", whichever way it was written.
    const byTime = await h.handlers['queries/save']({
      datasetId: ds,
      name: 'by time',
      definition: { ...base, idColumn: 'at', individuals: ['2015-01-03 10:00:00', '2015-01-01T10:00:00Z'] }
    })
    const t = loadAnomalySearchData(h.store, byTime.id)
    expect(t.ids).toEqual(['2015-01-03 10:00:00', '2015-01-01 10:00:00'])
    expect(Array.from(t.scores)).toEqual([99000, 51000.5])
    // From a public dataset's column: refused while it is private, accepted once the officer declared it public.
    writeFileSync(join(h.dir, 'staff.csv'), 'badge\nbob\nann\nbob\n')
    const staff = ((await h.importAndWait({ path: join(h.dir, 'staff.csv'), name: 'staff' })).result as ImportResult).dataset.id
    const fromStaff = { ...base, idColumn: 'name', individualsFrom: { datasetId: staff, column: 'badge' } }
    await expect(h.handlers['queries/save']({ datasetId: ds, name: 'from staff', definition: fromStaff })).rejects.toThrow(
      'The list of individuals "staff" is not public: its values would reach the release.'
    )
    await h.handlers['datasets/declare-public']({ datasetId: staff, reason: 'the staff badge list is posted', ...officerAct(h.store.db, 'officer') })
    const fs = await h.handlers['queries/save']({ datasetId: ds, name: 'from staff', definition: fromStaff })
    expect(loadAnomalySearchData(h.store, fs.id).ids).toEqual(['bob', 'ann'])
    // The searched dataset can never supply its own list, even when public.
    await expect(
      h.handlers['queries/save']({
        datasetId: ds,
        name: 'self',
        definition: { ...base, idColumn: 'name', individualsFrom: { datasetId: ds, column: 'name' } }
      })
    ).rejects.toThrow('The list of individuals cannot be the counted dataset "people" itself')
    for (const x of [byTime, fs]) await h.handlers['queries/delete']({ queryId: x.id })
    expect((await h.handlers['queries/list']({ datasetId: ds })).map((x) => x.name)).toEqual(['unusual people', 'top earner'])
    await h.handlers['queries/delete']({ queryId: q.id })
    expect(() => loadAnomalySearchData(h.store, q.id)).toThrow(`There is no saved query ${q.id}`)
  })

  it('refuses definitions that do not fit, with one sentence each', async () => {
    const aiq = { kind: 'anomaly-identification', columns: ['age'], binWidths: [1], metric: 'l1', radius: 1, beta: 1, k: 1 }
    const search = {
      kind: 'anomaly-search',
      scoreColumn: 'income',
      idColumn: 'name',
      individuals: ['ann', 'bob'],
      tLow: 1,
      tHigh: 2,
      epsilonPerQuery: 0.1,
      budget: 1,
      oracle: 'rr'
    }
    const bad: Array<[unknown, string]> = [
      [{ ...aiq, columns: ['nope'] }, 'Dataset "people" has no column "nope" (used as the column 1)'],
      [{ ...aiq, binWidths: [0] }, 'The bin width of "age" must be > 0'],
      [{ ...aiq, binWidths: [] }, 'binWidths must give one bin width per column (null for text columns)'],
      [{ ...aiq, metric: 'cosine' }, 'The metric must be one of l1, linf, l2, hamming'],
      [{ ...aiq, beta: 1.5 }, 'maxNeighbours (a record with at most this many neighbours is an anomaly) must be a whole number from 1 up'],
      [{ ...aiq, records: [['old']] }, 'Record 1\'s value for "age" must be a number (column "age" holds a whole number)'],
      [{ ...search, tHigh: 0.5 }, 'tHigh must be greater than tLow'],
      [{ ...search, scoreColumn: 'city' }, 'The score column "city" must hold numbers (it holds text)'],
      [{ ...search, budget: 0.01 }, 'The budget must be at least epsilonPerQuery (it bounds the charge)'],
      [{ ...search, oracle: 'magic' }, 'The oracle must be rr, binary or direct'],
      [{ ...search, scoreFloor: 1 }, 'tLow must be greater than the score floor L = 1'],
      [{ ...search, idColumn: undefined }, 'An anomaly search needs an id column naming the individuals (idColumn)'],
      [{ ...search, individuals: undefined }, 'Name the individuals searched (they are public)'],
      [{ ...search, individuals: ['ann', 'ann'] }, 'Individual 2 is listed twice'],
      [{ kind: 'sql', text: 'DROP TABLE datasets' }, 'The query kind must be threshold, anomaly-identification or anomaly-search']
    ]
    for (const [definition, message] of bad) {
      await expect(h.handlers['queries/save']({ datasetId: ds, name: 'bad', definition: definition as never })).rejects.toThrow(message)
    }
    // Saved queries are immutable at the SQL level too.
    expect(() => h.store.db.prepare("UPDATE queries SET definition = '{}'").run()).toThrow(/immutable/)
  })
})
