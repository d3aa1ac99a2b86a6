/**
 * The Queries screen's pure builders (src-renderer/src/screens/queries/*Definition.ts): the groups of a threshold query and
 * the individuals of a search come from public inputs only, and every "not yet" is one sentence.
 */
import { describe, expect, it } from 'vitest'
import type { DatasetInfo } from '../../../src-main/contract'
import type { AnomalyIdentificationDefinition, AnomalySearchDefinition, ThresholdQueryDefinition } from '../../../src-main/contract'
import { aiqFormFromDefinition, buildAiqDefinition } from '../../../src-renderer/src/screens/queries/aiqDefinition'
import {
  buildSearchDefinition,
  parseIndividuals,
  searchFormFromDefinition,
  type SearchForm
} from '../../../src-renderer/src/screens/queries/searchDefinition'
import { initialThresholdForm } from '../../../src-renderer/src/screens/queries/thresholdBuilderState'
import {
  buildThresholdDefinition,
  defaultMapping,
  parseGroupLines,
  publicSources,
  resolveThresholdForm,
  splitValues,
  thresholdFormFromDefinition,
  type ThresholdForm
} from '../../../src-renderer/src/screens/queries/thresholdDefinition'
import { OCCUPANCY_COLUMNS, capacities, datasetInfo, rooms } from './dataset-fixtures'

const occupancy = datasetInfo(1, 'occupancy', OCCUPANCY_COLUMNS, false)
const personHours = datasetInfo(
  4,
  'person-hours',
  [
    ['person_id', 'text'],
    ['hours_on_site', 'real']
  ],
  false
)
const all = [occupancy, capacities, rooms, personHours]

function form(p: Partial<ThresholdForm> = {}): ThresholdForm {
  return {
    groupBy: ['building', 'room'],
    filters: [],
    period: { on: false, column: 'timestamp', from: '', to: '' },
    count: { kind: 'rows', personColumn: '', cap: '1' },
    threshold: {
      kind: 'constant',
      constant: '12',
      datasetId: '',
      column: '',
      on: {},
      reference: { factor: '1', aggregate: 'max', bucket: 'day', column: 'timestamp', from: '', to: '' }
    },
    groups: { source: 'listed', datasetId: '', on: {}, listed: '' },
    ...p
  }
}

describe('threshold definition', () => {
  it('offers only public datasets other than the counted one', () => {
    expect(publicSources(occupancy, all).map((d) => d.name)).toEqual(['capacities', 'room-list'])
    expect(publicSources(capacities, all).map((d) => d.name)).toEqual(['room-list'])
  })

  it('maps each group-by column to the same name by default, keeps a valid choice', () => {
    expect(defaultMapping(['building', 'room'], capacities)).toEqual({ building: 'building', room: 'room' })
    expect(defaultMapping(['building', 'room'], rooms)).toEqual({ building: '', room: '' })
    expect(defaultMapping(['building', 'room'], rooms, { building: 'bldg', room: 'nope' })).toEqual({ building: 'bldg', room: '' })
  })

  it('parses listed groups: commas, quotes, empty values, and says what is wrong with a line', () => {
    expect(splitValues('A, A-101')).toEqual(['A', 'A-101'])
    expect(splitValues('"East, wing", 3')).toEqual(['East, wing', '3'])
    expect(parseGroupLines('A, A-101\n\nB,B-102\n', ['building', 'room'])).toEqual([
      ['A', 'A-101'],
      ['B', 'B-102']
    ])
    expect(parseGroupLines('A,', ['building', 'room'])).toEqual([['A', null]])
    expect(parseGroupLines('A, A-101\nB', ['building', 'room'])).toBe(
      'Line 2 of the groups has 1 value; each group needs 2 (building, room), separated by commas.'
    )
    expect(parseGroupLines('A, A-101\nB,B-1\nA,A-101', ['building', 'room'])).toBe('Line 3 of the groups repeats line 1: list each group once.')
    expect(parseGroupLines('  \n', ['building', 'room'])).toMatch(/^List the groups to ask about/)
  })

  it('a constant threshold needs public groups: listed, or from a public dataset with its column mapping', () => {
    expect(buildThresholdDefinition(form(), occupancy, all)).toMatch(/^List the groups/)
    expect(
      buildThresholdDefinition(form({ groups: { source: 'listed', datasetId: '', on: {}, listed: 'A, A-101\nB, B-102' } }), occupancy, all)
    ).toEqual({
      kind: 'threshold',
      groupBy: ['building', 'room'],
      count: { kind: 'rows' },
      threshold: { kind: 'constant', value: 12 },
      groups: [
        ['A', 'A-101'],
        ['B', 'B-102']
      ]
    })
    // From a public dataset: same names need no mapping; other names are mapped.
    expect(
      buildThresholdDefinition(
        form({ groups: { source: 'dataset', datasetId: '2', on: { building: 'building', room: 'room' }, listed: '' } }),
        occupancy,
        all
      )
    ).toMatchObject({
      groupsFrom: { datasetId: 2 }
    })
    expect(
      buildThresholdDefinition(
        form({ groups: { source: 'dataset', datasetId: '3', on: { building: 'bldg', room: '' }, listed: '' } }),
        occupancy,
        all
      )
    ).toBe('Choose the column of “room-list” that matches “room”.')
    const mapped = buildThresholdDefinition(
      form({ groups: { source: 'dataset', datasetId: '3', on: { building: 'bldg', room: 'room_name' }, listed: '' } }),
      occupancy,
      all
    )
    expect(mapped).toMatchObject({ groupsFrom: { datasetId: 3, on: { building: 'bldg', room: 'room_name' } } })
    expect(mapped).not.toHaveProperty('groups')
    // A private dataset is never a source, even when its id is chosen.
    expect(buildThresholdDefinition(form({ groups: { source: 'dataset', datasetId: '4', on: {}, listed: '' } }), occupancy, all)).toBe(
      'Choose the public dataset whose rows are the groups.'
    )
    expect(
      buildThresholdDefinition(form({ groups: { source: 'dataset', datasetId: '', on: {}, listed: '' } }), occupancy, [occupancy, personHours])
    ).toBe(
      'Groups from a dataset must come from a public dataset other than “occupancy”, and there is none yet (1 private dataset is not offered): the privacy officer declares a dataset public on the Datasets screen. Or list the groups here.'
    )
  })

  it('a column threshold comes from a public table, which defines the groups', () => {
    const col = (datasetId: string, column: string, on: Record<string, string> = {}) =>
      form({
        threshold: { ...form().threshold, kind: 'column', datasetId, column, on },
        groups: { source: 'listed', datasetId: '', on: {}, listed: 'ignored' }
      })
    expect(buildThresholdDefinition(col('2', 'capacity', { building: 'building', room: 'room' }), occupancy, all)).toEqual({
      kind: 'threshold',
      groupBy: ['building', 'room'],
      count: { kind: 'rows' },
      threshold: { kind: 'column', datasetId: 2, column: 'capacity' }
    })
    expect(buildThresholdDefinition(col('4', 'hours_on_site'), occupancy, all)).toBe('Choose the public table that holds the thresholds.')
    expect(buildThresholdDefinition(col('2', ''), occupancy, all)).toBe('Choose the column of “capacities” that holds the thresholds.')
    expect(buildThresholdDefinition(col('', ''), occupancy, [occupancy, personHours])).toMatch(
      /^Thresholds from a table must come from a public dataset other than “occupancy”/
    )
  })

  it('persons: the person column is required and not a group-by column', () => {
    const f = form({
      count: { kind: 'persons', personColumn: 'room', cap: '2' },
      groups: { source: 'listed', datasetId: '', on: {}, listed: 'A,A-101' }
    })
    expect(buildThresholdDefinition(f, occupancy, all)).toBe('The person column “room” cannot also be a group-by column.')
    expect(buildThresholdDefinition({ ...f, count: { kind: 'persons', personColumn: 'person_id', cap: '2' } }, occupancy, all)).toMatchObject({
      count: { kind: 'persons', personColumn: 'person_id', cap: 2 }
    })
    // The bound on groups per person: empty is no bound, else a whole number >= 1.
    expect(
      buildThresholdDefinition({ ...f, count: { kind: 'persons', personColumn: 'person_id', cap: '2', maxGroups: '3' } }, occupancy, all)
    ).toMatchObject({
      count: { kind: 'persons', personColumn: 'person_id', cap: 2, maxGroups: 3 }
    })
    expect(buildThresholdDefinition({ ...f, count: { kind: 'persons', personColumn: 'person_id', cap: '2', maxGroups: '0' } }, occupancy, all)).toBe(
      'The groups per person must be a whole number, 1 or more (or empty: no bound).'
    )
    const noBound = buildThresholdDefinition(
      { ...f, count: { kind: 'persons', personColumn: 'person_id', cap: '2', maxGroups: ' ' } },
      occupancy,
      all
    )
    expect(typeof noBound === 'object' && noBound.count.kind === 'persons' && noBound.count.maxGroups).toBe(undefined)
  })
})

describe('search definition', () => {
  const taxi = datasetInfo(
    5,
    'taxi',
    [
      ['timestamp', 'timestamp'],
      ['value', 'integer']
    ],
    false
  )
  const halfHours = datasetInfo(6, 'half-hours', [['timestamp', 'timestamp']], true)
  const sform = (p: Partial<SearchForm> = {}): SearchForm => ({
    score: 'value',
    idColumn: 'timestamp',
    individuals: { source: 'listed', listed: 'a\nb', datasetId: '', column: '' },
    scoreFloor: '',
    tLow: '30000',
    tHigh: '36000',
    eps: '1',
    budget: '20',
    oracle: 'direct',
    stop: 'tau',
    tau: '0.5',
    delta: '0.05',
    top: '4',
    ...p
  })

  it('lists individuals: one id per line, at least two, no repeats', () => {
    expect(parseIndividuals(' a \n\nb\n')).toEqual(['a', 'b'])
    expect(parseIndividuals('a')).toBe('List at least two individuals to search among, one id per line (1 so far).')
    expect(parseIndividuals('a\nb\na')).toBe('Line 3 of the individuals repeats line 1 (“a”): list each id once.')
  })

  it('needs the id column and public individuals; the score floor is optional and below t-low', () => {
    expect(buildSearchDefinition(sform({ idColumn: '' }), taxi, [taxi, halfHours])).toMatch(/^Choose the column naming the individuals/)
    expect(buildSearchDefinition(sform(), taxi, [taxi])).toEqual({
      kind: 'anomaly-search',
      scoreColumn: 'value',
      idColumn: 'timestamp',
      individuals: ['a', 'b'],
      tLow: 30000,
      tHigh: 36000,
      epsilonPerQuery: 1,
      budget: 20,
      oracle: 'direct',
      top: 4,
      tau: 0.5
    })
    const from = sform({ individuals: { source: 'dataset', listed: '', datasetId: '6', column: 'timestamp' }, scoreFloor: '-5' })
    expect(buildSearchDefinition(from, taxi, [taxi, halfHours])).toMatchObject({
      individualsFrom: { datasetId: 6, column: 'timestamp' },
      scoreFloor: -5
    })
    expect(buildSearchDefinition({ ...from, scoreFloor: '30000' }, taxi, [taxi, halfHours])).toBe(
      'Give t-low, above the score floor L = 30000: every individual scoring at or below it is protected.'
    )
    // The searched dataset itself is never the list, even when public.
    const pubTaxi = { ...taxi, public: true }
    expect(
      buildSearchDefinition(sform({ individuals: { source: 'dataset', listed: '', datasetId: '5', column: 'timestamp' } }), pubTaxi, [pubTaxi])
    ).toMatch(/^A list of individuals from a dataset must come from a public dataset other than “taxi”/)
  })
})

/**
 * Editing a saved query starts its builder from the saved definition: each form read back from a definition builds
 * the same definition again, whatever the kind and its options (listed values with commas and quotes, empty values,
 * filters, periods, per-person counts, thresholds from a table or a reference period, the stopping rule).
 */
describe('a saved definition back in its form (editing a query)', () => {
  const blank = (dataset: DatasetInfo) => initialThresholdForm({ dataset, datasets: all })
  const thresholds: ThresholdQueryDefinition[] = [
    {
      kind: 'threshold',
      groupBy: ['building', 'room'],
      count: { kind: 'rows' },
      threshold: { kind: 'constant', value: 12 },
      groups: [
        ['A', 'A-101'],
        ['East, "new" wing', null],
        ['B', 'B-2']
      ]
    },
    {
      kind: 'threshold',
      groupBy: ['room'],
      filter: [
        { column: 'building', op: 'in', value: ['A', 'B'] },
        { column: 'minutes', op: '>=', value: 30 },
        { column: 'person_id', op: 'is not null' }
      ],
      period: { column: 'timestamp', from: '2024-03-04', to: '2024-03-16' },
      count: { kind: 'persons', personColumn: 'person_id', cap: 2, maxGroups: 3 },
      threshold: { kind: 'column', datasetId: 2, column: 'capacity' }
    },
    {
      kind: 'threshold',
      groupBy: ['building', 'room'],
      count: { kind: 'persons', personColumn: 'person_id', cap: 1 },
      threshold: { kind: 'column', datasetId: 3, column: 'room_name', on: { building: 'bldg', room: 'room_name' } }
    },
    {
      kind: 'threshold',
      groupBy: ['building', 'room'],
      count: { kind: 'rows' },
      threshold: { kind: 'reference', factor: 0.8, aggregate: 'mean', bucket: 'hour', column: 'timestamp', from: '2024-01-01', to: '2024-03-01' },
      groupsFrom: { datasetId: 3, on: { building: 'bldg', room: 'room_name' } }
    }
  ]
  it.each(thresholds.map((d, i) => [i, d] as const))('threshold %i', (_i, def) => {
    const f = thresholdFormFromDefinition(def, blank(occupancy))
    // What the builder hands up: the form with its defaults resolved (column mappings by name).
    expect(resolveThresholdForm(f, occupancy, all).definition).toEqual(def)
    // Unsaid parts keep the blank form's defaults.
    if (!def.period) expect(f.period).toEqual(blank(occupancy).period)
  })

  it('anomaly identification, with text and numeric columns and values holding commas', () => {
    const def: AnomalyIdentificationDefinition = {
      kind: 'anomaly-identification',
      columns: ['room', 'minutes'],
      binWidths: [null, 5],
      metric: 'linf',
      radius: 2,
      maxNeighbours: 3,
      k: 4,
      records: [
        ['A-101', 30],
        ['East, wing', 5]
      ]
    }
    expect(buildAiqDefinition(aiqFormFromDefinition(def), occupancy)).toEqual(def)
    expect(buildAiqDefinition({ ...aiqFormFromDefinition(def), chosen: ['nope'] }, occupancy)).toBe(
      '“nope” is not a column of “occupancy”: choose the columns again.'
    )
    expect(buildAiqDefinition({ ...aiqFormFromDefinition(def), maxNeighbours: '2.5' }, occupancy)).toMatch(
      /^Give the neighbour limit \(a whole number\)/
    )
  })

  it('anomaly identification on person-level data: the person bound round-trips; a definition without it gets the defaults 1 and 1', () => {
    const byPerson = datasetInfo(1, 'occupancy', OCCUPANCY_COLUMNS, false, { unit: { kind: 'person', column: 'person_id' } })
    const def: AnomalyIdentificationDefinition = {
      kind: 'anomaly-identification',
      columns: ['room'],
      binWidths: [null],
      metric: 'hamming',
      radius: 0,
      maxNeighbours: 5,
      k: 2,
      records: [['A-101']],
      rowsPerBin: 2,
      binsPerPerson: 3
    }
    expect(buildAiqDefinition(aiqFormFromDefinition(def), byPerson)).toEqual(def)
    const { rowsPerBin: _r, binsPerPerson: _b, ...plain } = def
    expect(buildAiqDefinition(aiqFormFromDefinition(plain), byPerson)).toEqual({ ...plain, rowsPerBin: 1, binsPerPerson: 1 })
    expect(buildAiqDefinition({ ...aiqFormFromDefinition(def), rowsPerBin: '0' }, byPerson)).toMatch(/^Rows per bin is a whole number, 1 or more/)
  })

  it('anomaly search: listed or from a public dataset, tau or delta, with a score floor', () => {
    const base: SearchForm = {
      score: 'minutes',
      idColumn: 'person_id',
      individuals: { source: 'dataset', listed: '', datasetId: '2', column: '' },
      scoreFloor: '',
      tLow: '',
      tHigh: '',
      eps: '1',
      budget: '20',
      oracle: 'direct',
      stop: 'tau',
      tau: '0.5',
      delta: '0.05',
      top: '4'
    }
    const defs: AnomalySearchDefinition[] = [
      {
        kind: 'anomaly-search',
        scoreColumn: 'minutes',
        idColumn: 'person_id',
        individuals: ['P1', 'P2', 'P 3'],
        tLow: 10,
        tHigh: 50,
        epsilonPerQuery: 0.5,
        budget: 8,
        oracle: 'rr',
        top: 3,
        tau: 0.6
      },
      {
        kind: 'anomaly-search',
        scoreColumn: 'minutes',
        idColumn: 'person_id',
        individualsFrom: { datasetId: 3, column: 'room_name' },
        scoreFloor: -5,
        tLow: 10,
        tHigh: 50,
        epsilonPerQuery: 1,
        budget: 20,
        oracle: 'binary',
        top: 4,
        delta: 0.01
      }
    ]
    for (const def of defs) expect(buildSearchDefinition(searchFormFromDefinition(def, base), occupancy, all)).toEqual(def)
  })
})
