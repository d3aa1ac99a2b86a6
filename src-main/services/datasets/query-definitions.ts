/**
 * Validation of saved query definitions against a dataset's columns. Each validator returns a normalised copy that
 * holds only the known fields (what gets stored), or throws a UserError naming the field and what to do.
 *
 * The definition's shape is also held to its schema (contract/schemas/query-definition.ts, the source of the JSON Schema
 * of query.json, and checked at the doors before this runs): `checkDefinition` refuses what the schema refuses (unknown
 * fields, over-long text), after the checks here, which know the dataset and say more.
 */
import type Database from 'better-sqlite3'
import type {
  AnomalyIdentificationDefinition,
  AnomalySearchDefinition,
  FilterCondition,
  FilterOperator,
  QueryDefinition,
  QueryDefinitionInput,
  ThresholdQueryDefinition,
  ThresholdSpec,
  TimePeriod
} from '../../contract/datasets'
import {
  AIQ_METRICS,
  FILTER_OPERATORS,
  MAX_AIQ_COLUMNS,
  MAX_AIQ_RECORDS,
  MAX_CAP,
  MAX_EXPLICIT_GROUPS,
  MAX_FILTERS,
  MAX_GROUP_BY,
  MAX_IN_LIST,
  MAX_INDIVIDUALS,
  SEARCH_ORACLES,
  queryDefinitionSchema
} from '../../contract/schemas/query-definition'
import { issueSentence } from '../../contract/schemas/sentence'
import { RELEASE_PARAMS, inRange } from '../../contract/release-params'
import { UserError } from '../platform/errors'
import { describeType, groupKey } from '../catalog/column-types'
import { findColumn, storedValueFor } from '../catalog/columns'
import { type CatalogDataset } from '../catalog/catalog'
import { publicSource } from '../catalog/public-datasets'
import { datasetUnit } from '../trust/privacy-unit'
import { TIME_BUCKET_UNITS, type TimeBucketUnit, bucketCellColumn, notABucketStart } from '../../contract/time-buckets'

export {
  FILTER_OPERATORS,
  MAX_CAP,
  MAX_EXPLICIT_GROUPS,
  MAX_FILTERS,
  MAX_GROUP_BY,
  MAX_IN_LIST,
  MAX_INDIVIDUALS
} from '../../contract/schemas/query-definition'

function bad(message: string): never {
  throw new UserError(message, 'bad-query')
}

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x)
}

function finite(x: unknown, what: string): number {
  if (typeof x !== 'number' || !Number.isFinite(x)) bad(`${what} must be a finite number`)
  return x
}

function wholeAtLeast(x: unknown, min: number, what: string, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof x !== 'number' || !Number.isSafeInteger(x) || x < min || x > max)
    bad(`${what} must be a whole number from ${min}${max < Number.MAX_SAFE_INTEGER ? ` to ${max}` : ' up'}`)
  return x
}

function checkFilter(ds: CatalogDataset, raw: unknown): FilterCondition[] | undefined {
  if (raw === undefined) return undefined
  if (!Array.isArray(raw)) bad('The filter must be a list of conditions (all must hold)')
  if (raw.length > MAX_FILTERS) bad(`A filter can have at most ${MAX_FILTERS} conditions`)
  return raw.map((c, i) => {
    const what = `Filter condition ${i + 1}`
    if (!isObject(c)) bad(`${what} must be an object with column, op and value`)
    const col = findColumn(ds, c.column, `column of filter condition ${i + 1}`)
    const op = c.op as FilterOperator
    if (!(FILTER_OPERATORS as readonly string[]).includes(op)) bad(`${what}: the operator must be one of ${FILTER_OPERATORS.join(', ')}`)
    if (op === 'is null' || op === 'is not null') return { column: col.name, op }
    if (op === 'in' || op === 'not in') {
      if (!Array.isArray(c.value) || c.value.length === 0 || c.value.length > MAX_IN_LIST)
        bad(`${what}: "${op}" needs a list of 1 to ${MAX_IN_LIST} values`)
      for (const v of c.value) storedValueFor(col, v, `${what}'s values`)
      return { column: col.name, op, value: c.value.map((v) => v as string | number) }
    }
    if (c.value === undefined || c.value === null || Array.isArray(c.value)) bad(`${what}: "${op}" needs one value`)
    storedValueFor(col, c.value, `${what}'s value`)
    return { column: col.name, op, value: c.value as string | number }
  })
}

export function checkPeriod(ds: CatalogDataset, raw: unknown, what: string): TimePeriod {
  if (!isObject(raw)) bad(`The ${what} needs column, from and to`)
  const col = findColumn(ds, raw.column, `${what} column`)
  if (col.type !== 'timestamp') bad(`The ${what} column "${col.name}" must be a timestamp column (it holds ${describeType(col.type)})`)
  const from = storedValueFor(col, raw.from, `The ${what}'s "from"`) as number
  const to = storedValueFor(col, raw.to, `The ${what}'s "to"`) as number
  if (from === null || to === null || !(from < to)) bad(`The ${what}'s "from" must be before its "to" (the period is [from, to))`)
  return { column: col.name, from: raw.from as string, to: raw.to as string }
}

function checkThreshold(db: Database.Database, ds: CatalogDataset, raw: unknown, groupBy: string[], period: TimePeriod | undefined): ThresholdSpec {
  if (!isObject(raw)) bad('The threshold must be an object with a kind: constant, column or reference')
  switch (raw.kind) {
    case 'constant':
      return { kind: 'constant', value: finite(raw.value, 'The constant threshold') }
    case 'column': {
      if (typeof raw.datasetId !== 'number') bad('A column threshold needs the datasetId of the table holding the thresholds')
      // The thresholds are released with the decisions: they must be public (ALGORITHMS.md section 5).
      const other = publicSource(db, raw.datasetId, ds.info.id, 'threshold table')
      const col = findColumn(other, raw.column, 'threshold column')
      if (col.type !== 'integer' && col.type !== 'real')
        bad(`The threshold column "${col.name}" must hold numbers (it holds ${describeType(col.type)})`)
      const on: Record<string, string> = {}
      if (raw.on !== undefined && !isObject(raw.on)) bad('"on" must map each group-by column to a column of the threshold table')
      const given = (raw.on ?? {}) as Record<string, unknown>
      for (const k of Object.keys(given)) if (!groupBy.includes(k)) bad(`"on" names "${k.slice(0, 80)}", which is not a group-by column`)
      for (const g of groupBy) {
        const target = given[g] ?? g
        const oc = findColumn(other, target, `key column matching "${g}" in the threshold table`)
        on[g] = oc.name
      }
      return { kind: 'column', datasetId: other.info.id, column: col.name, on }
    }
    case 'reference': {
      const factor = finite(raw.factor, 'The reference factor')
      if (!(factor > 0)) bad('The reference factor must be > 0')
      if (raw.aggregate !== 'max' && raw.aggregate !== 'mean') bad('The reference aggregate must be "max" or "mean"')
      if (raw.bucket !== 'hour' && raw.bucket !== 'day') bad('The reference bucket must be "hour" or "day"')
      const column = raw.column ?? period?.column
      if (column === undefined) bad('A reference threshold needs a timestamp column (its own "column" or the query period\'s)')
      const p = checkPeriod(ds, { column, from: raw.from, to: raw.to }, 'reference period')
      return { kind: 'reference', factor, aggregate: raw.aggregate, bucket: raw.bucket, column: p.column, from: p.from, to: p.to }
    }
    default:
      bad('The threshold kind must be constant, column or reference')
  }
}

function checkGroupByTime(
  ds: CatalogDataset,
  raw: unknown,
  groupBy: string[],
  threshold: ThresholdSpec
): NonNullable<ThresholdQueryDefinition['groupByTime']> {
  if (!isObject(raw)) bad('"groupByTime" needs the column and "per": hour, day or week')
  const col = findColumn(ds, raw.column, 'column grouped by time')
  if (col.type !== 'timestamp') bad(`"${col.name}" holds ${describeType(col.type)}: only a timestamp column can be grouped by hour, day or week`)
  if (!groupBy.includes(col.name)) bad(`Group by "${col.name}" to group it by ${String(raw.per)}`)
  const per = raw.per as TimeBucketUnit
  if (!TIME_BUCKET_UNITS.includes(per)) bad(`"groupByTime.per" must be one of ${TIME_BUCKET_UNITS.join(', ')}`)
  if (threshold.kind === 'reference')
    bad(
      `A reference threshold compares each group with its own counts in another period; ${per === 'hour' ? 'an' : 'a'} ${per} of "${col.name}" has none there: use a constant threshold`
    )
  // Ledger cells name the bucketed column "<per> of <column>": a real column of that name would make cells of different regions look alike.
  const cellName = bucketCellColumn(col.name, per)
  if (ds.columns.some((c) => c.name === cellName))
    bad(`Dataset "${ds.info.name}" has a column named "${cellName}": group by time is not offered on it`)
  return { column: col.name, per }
}

export function checkThresholdDefinition(db: Database.Database, ds: CatalogDataset, raw: Record<string, unknown>): ThresholdQueryDefinition {
  if (!Array.isArray(raw.groupBy) || raw.groupBy.length === 0)
    bad('A threshold query needs at least one group-by column (each group is one predicate)')
  if (raw.groupBy.length > MAX_GROUP_BY) bad(`A threshold query can group by at most ${MAX_GROUP_BY} columns`)
  const groupBy = raw.groupBy.map((g, i) => findColumn(ds, g, `group-by column ${i + 1}`).name)
  if (new Set(groupBy).size !== groupBy.length) bad('A group-by column is listed twice')
  const filter = checkFilter(ds, raw.filter)
  const period = raw.period === undefined ? undefined : checkPeriod(ds, raw.period, 'period')
  if (!isObject(raw.count)) bad('The count must be {"kind":"rows"} or {"kind":"persons","personColumn":...,"cap":...}')
  let count: ThresholdQueryDefinition['count']
  if (raw.count.kind === 'rows') count = { kind: 'rows' }
  else if (raw.count.kind === 'persons') {
    const pc = findColumn(ds, raw.count.personColumn, 'person column')
    if (groupBy.includes(pc.name)) bad('The person column cannot also be a group-by column')
    count = { kind: 'persons', personColumn: pc.name, cap: wholeAtLeast(raw.count.cap, 1, 'The contribution cap', MAX_CAP) }
    if (raw.count.maxGroups !== undefined)
      count.maxGroups = wholeAtLeast(raw.count.maxGroups, 1, 'The bound on groups per person (maxGroups)', MAX_EXPLICIT_GROUPS)
  } else bad('The count kind must be "rows" or "persons"')
  // A person-level dataset protects persons, who may have many rows: only a count that bounds each person's rows has a
  // known sensitivity (ALGORITHMS.md section 6).
  const unit = datasetUnit(db, ds.info.id)
  if (unit.kind === 'person' && (count.kind !== 'persons' || count.personColumn !== unit.column)) {
    bad(
      `Dataset "${ds.info.name}" protects persons (person column "${unit.column}"): count persons by "${unit.column}" with a contribution cap, e.g. {"kind":"persons","personColumn":"${unit.column}","cap":1}`
    )
  }
  const threshold = checkThreshold(db, ds, raw.threshold, groupBy, period)
  const out: ThresholdQueryDefinition = { kind: 'threshold', groupBy, count, threshold }
  if (filter) out.filter = filter
  if (period) out.period = period
  if (raw.groupByTime !== undefined) out.groupByTime = checkGroupByTime(ds, raw.groupByTime, groupBy, threshold)
  if (raw.groups !== undefined && raw.groupsFrom !== undefined) bad('Give the groups either in "groups" or by "groupsFrom", not both')
  if (threshold.kind !== 'column' && raw.groups === undefined && raw.groupsFrom === undefined) {
    bad(
      'The groups of a threshold query must be public: list them in "groups", take them from a public dataset ("groupsFrom"), or use a column threshold from a public dataset. ' +
        'Groups read from the counted data would release which keys exist in it'
    )
  }
  if (raw.groupsFrom !== undefined) {
    if (threshold.kind === 'column') bad('"groupsFrom" cannot be given with a column threshold: the threshold table defines the groups')
    if (!isObject(raw.groupsFrom)) bad('"groupsFrom" must be {"datasetId": N} with an optional "on" mapping group-by columns to its columns')
    const src = publicSource(db, raw.groupsFrom.datasetId, ds.info.id, 'group list dataset')
    if (raw.groupsFrom.on !== undefined && !isObject(raw.groupsFrom.on))
      bad('"groupsFrom.on" must map each group-by column to a column of the group list dataset')
    const given = (raw.groupsFrom.on ?? {}) as Record<string, unknown>
    for (const k of Object.keys(given)) if (!groupBy.includes(k)) bad(`"groupsFrom.on" names "${k.slice(0, 80)}", which is not a group-by column`)
    const on: Record<string, string> = {}
    for (const g of groupBy) on[g] = findColumn(src, given[g] ?? g, `key column matching "${g}" in the group list dataset`).name
    out.groupsFrom = { datasetId: src.info.id, on }
  }
  if (raw.groups !== undefined) {
    if (threshold.kind === 'column') bad('"groups" cannot be given with a column threshold: the threshold table defines the groups')
    if (!Array.isArray(raw.groups) || raw.groups.length === 0 || raw.groups.length > MAX_EXPLICIT_GROUPS)
      bad(`"groups" must be a list of 1 to ${MAX_EXPLICIT_GROUPS} key lists`)
    const cols = groupBy.map((g) => ds.columns.find((c) => c.name === g)!)
    const seen = new Set<string>()
    out.groups = raw.groups.map((k, i) => {
      if (!Array.isArray(k) || k.length !== groupBy.length) bad(`Group ${i + 1} must list ${groupBy.length} value(s), one per group-by column`)
      const stored = k.map((v, j) => storedValueFor(cols[j], v, `Group ${i + 1}'s value for "${cols[j].name}"`))
      if (out.groupByTime) {
        const j = groupBy.indexOf(out.groupByTime.column)
        const why = notABucketStart(stored[j], out.groupByTime.per)
        if (why) bad(`Group ${i + 1}'s value for "${out.groupByTime.column}" ${why}`)
      }
      const key = groupKey(
        cols.map((c) => c.type),
        stored
      )
      if (seen.has(key)) bad(`Group ${i + 1} is listed twice in "groups"`)
      seen.add(key)
      return k.map((v) => v as string | number | null)
    })
  }
  return out
}

export function checkAnomalyIdentification(ds: CatalogDataset, raw: Record<string, unknown>): AnomalyIdentificationDefinition {
  if (!Array.isArray(raw.columns) || raw.columns.length === 0 || raw.columns.length > MAX_AIQ_COLUMNS)
    bad(`Anomaly identification needs 1 to ${MAX_AIQ_COLUMNS} columns`)
  const cols = raw.columns.map((c, i) => findColumn(ds, c, `column ${i + 1}`))
  if (new Set(cols.map((c) => c.name)).size !== cols.length) bad('A column is listed twice')
  if (!Array.isArray(raw.binWidths) || raw.binWidths.length !== cols.length)
    bad('binWidths must give one bin width per column (null for text columns)')
  const binWidths = cols.map((c, i) => {
    const w = (raw.binWidths as unknown[])[i]
    if (c.type === 'text') return null
    const x = finite(w, `The bin width of "${c.name}"`)
    if (!(x > 0)) bad(`The bin width of "${c.name}" must be > 0`)
    return x
  })
  if (!AIQ_METRICS.includes(raw.metric as (typeof AIQ_METRICS)[number])) bad(`The metric must be one of ${AIQ_METRICS.join(', ')}`)
  const radius = finite(raw.radius, 'The radius')
  if (radius < 0) bad('The radius must be >= 0')
  if (raw.maxNeighbours !== undefined && raw.beta !== undefined) bad('Give the neighbour limit once: "maxNeighbours" ("beta" is its former name)')
  const out: AnomalyIdentificationDefinition = {
    kind: 'anomaly-identification',
    columns: cols.map((c) => c.name),
    binWidths,
    metric: raw.metric as AnomalyIdentificationDefinition['metric'],
    radius,
    maxNeighbours: wholeAtLeast(raw.maxNeighbours ?? raw.beta, 1, 'maxNeighbours (a record with at most this many neighbours is an anomaly)'),
    k: wholeAtLeast(raw.k, 1, 'k')
  }
  if (raw.rowsPerBin !== undefined && raw.maxRowsPerPerson !== undefined)
    bad('Give the rows per bin once: "rowsPerBin" ("maxRowsPerPerson" is the former bound, read as it)')
  const rowsPerBin = raw.rowsPerBin ?? raw.maxRowsPerPerson
  if (rowsPerBin !== undefined)
    out.rowsPerBin = wholeAtLeast(rowsPerBin, 1, 'rowsPerBin (the most rows one person counts in one bin near a record)', MAX_CAP)
  if (raw.binsPerPerson !== undefined)
    out.binsPerPerson = wholeAtLeast(raw.binsPerPerson, 1, 'binsPerPerson (the most bins one person counts near a record)', MAX_CAP)
  if (raw.records !== undefined) {
    if (!Array.isArray(raw.records) || raw.records.length > MAX_AIQ_RECORDS)
      bad(`records must be a list of at most ${MAX_AIQ_RECORDS.toLocaleString('en-US')} records`)
    out.records = raw.records.map((r, i) => {
      if (!Array.isArray(r) || r.length !== cols.length) bad(`Record ${i + 1} must list ${cols.length} value(s), one per column`)
      return r.map((v, j) => {
        const s = storedValueFor(cols[j], v, `Record ${i + 1}'s value for "${cols[j].name}"`)
        if (s === null) bad(`Record ${i + 1} has no value for "${cols[j].name}"`)
        return v as string | number
      })
    })
  }
  return out
}

export function checkAnomalySearch(db: Database.Database, ds: CatalogDataset, raw: Record<string, unknown>): AnomalySearchDefinition {
  const score = findColumn(ds, raw.scoreColumn, 'score column')
  if (score.type !== 'integer' && score.type !== 'real')
    bad(`The score column "${score.name}" must hold numbers (it holds ${describeType(score.type)})`)
  const tLow = finite(raw.tLow, 'tLow')
  const tHigh = finite(raw.tHigh, 'tHigh')
  const scoreFloor = raw.scoreFloor === undefined ? 0 : finite(raw.scoreFloor, 'The score floor L')
  if (!(tLow > scoreFloor))
    bad(`tLow must be greater than the score floor L = ${scoreFloor} (scores are clipped to [L, inf); the noise scale is (tLow - L) / eps)`)
  if (!(tHigh > tLow)) bad('tHigh must be greater than tLow')
  const eps = finite(raw.epsilonPerQuery, 'epsilonPerQuery')
  if (!(eps > 0)) bad('epsilonPerQuery must be > 0')
  const budget = finite(raw.budget, 'The budget')
  if (!(budget >= eps)) bad('The budget must be at least epsilonPerQuery (it bounds the charge)')
  if (!SEARCH_ORACLES.includes(raw.oracle as (typeof SEARCH_ORACLES)[number]))
    bad(`The oracle must be ${SEARCH_ORACLES.slice(0, -1).join(', ')} or ${SEARCH_ORACLES[SEARCH_ORACLES.length - 1]}`)
  const out: AnomalySearchDefinition = {
    kind: 'anomaly-search',
    scoreColumn: score.name,
    tLow,
    tHigh,
    epsilonPerQuery: eps,
    budget,
    oracle: raw.oracle as AnomalySearchDefinition['oracle']
  }
  if (raw.scoreFloor !== undefined) out.scoreFloor = scoreFloor
  // The individuals searched are public (the paper's model of n+1 known individuals): from the definition or a public
  // dataset, matched on the id column. A list read from the searched data would release who is in it.
  if (raw.idColumn === undefined) bad('An anomaly search needs an id column naming the individuals (idColumn)')
  out.idColumn = findColumn(ds, raw.idColumn, 'id column').name
  // On a person-level dataset the individuals searched are the persons: one individual per person.
  const unit = datasetUnit(db, ds.info.id)
  if (unit.kind === 'person' && out.idColumn !== unit.column) {
    bad(
      `Dataset "${ds.info.name}" protects persons (person column "${unit.column}"): the individuals searched must be its persons (idColumn "${unit.column}")`
    )
  }
  if ((raw.individuals === undefined) === (raw.individualsFrom === undefined)) {
    bad('Name the individuals searched (they are public): list their ids in "individuals", or take them from a public dataset with "individualsFrom"')
  }
  if (raw.individuals !== undefined) {
    if (!Array.isArray(raw.individuals) || raw.individuals.length < 2 || raw.individuals.length > MAX_INDIVIDUALS) {
      bad(`"individuals" must list 2 to ${MAX_INDIVIDUALS} ids (for more, take them from a public dataset with "individualsFrom")`)
    }
    const seen = new Set<string>()
    out.individuals = raw.individuals.map((v, i) => {
      if (typeof v !== 'string' && typeof v !== 'number') bad(`Individual ${i + 1} must be an id (text or a number)`)
      const id = String(v)
      if (seen.has(id)) bad(`Individual ${i + 1} is listed twice`)
      seen.add(id)
      return id
    })
  } else {
    const from = raw.individualsFrom
    if (!isObject(from)) bad('"individualsFrom" must be {"datasetId": N, "column": NAME}')
    const src = publicSource(db, from.datasetId, ds.info.id, 'list of individuals')
    out.individualsFrom = { datasetId: src.info.id, column: findColumn(src, from.column, 'column of the list of individuals').name }
  }
  const S = RELEASE_PARAMS.anomalySearch
  if (raw.tau !== undefined) {
    const tau = finite(raw.tau, 'tau')
    if (!inRange(tau, S.tau.range)) bad(`tau must be between ${S.tau.range.gt} and ${S.tau.range.lt}`)
    out.tau = tau
  }
  if (raw.delta !== undefined) {
    const delta = finite(raw.delta, 'delta')
    if (!inRange(delta, S.delta.range)) bad(`delta must be between ${S.delta.range.gt} and ${S.delta.range.lt}`)
    out.delta = delta
  }
  if (raw.top !== undefined) out.top = wholeAtLeast(raw.top, S.top.range.ge, 'top', S.top.range.le)
  return out
}

/**
 * A stored definition in today's names (saved queries never change, so definitions saved before a field was renamed
 * are read through this): an anomaly identification's `beta` is `maxNeighbours`, its `maxRowsPerPerson` is `rowsPerBin`.
 */
export function currentDefinition(def: QueryDefinitionInput): QueryDefinition {
  if (def.kind !== 'anomaly-identification') return def
  const { beta, maxRowsPerPerson, maxNeighbours, rowsPerBin, ...rest } = def
  const out: AnomalyIdentificationDefinition = { ...rest, maxNeighbours: (maxNeighbours ?? beta) as number }
  const rows = rowsPerBin ?? maxRowsPerPerson
  if (rows !== undefined) out.rowsPerBin = rows
  return out
}

/** Validates any definition against its dataset, then against its schema (what the dataset cannot tell: unknown fields, lengths). */
export function checkDefinition(db: Database.Database, ds: CatalogDataset, raw: unknown): QueryDefinition {
  if (!isObject(raw)) bad('A query definition must be an object with a kind')
  let out: QueryDefinition
  switch (raw.kind) {
    case 'threshold':
      out = checkThresholdDefinition(db, ds, raw)
      break
    case 'anomaly-identification':
      out = checkAnomalyIdentification(ds, raw)
      break
    case 'anomaly-search':
      out = checkAnomalySearch(db, ds, raw)
      break
    default:
      bad('The query kind must be threshold, anomaly-identification or anomaly-search')
  }
  const parsed = queryDefinitionSchema.safeParse(raw, { reportInput: true })
  if (!parsed.success) bad(issueSentence(parsed.error, raw, 'The query definition'))
  return out
}
