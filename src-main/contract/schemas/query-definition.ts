/**
 * The saved query definitions (threshold query, anomaly identification, anomaly search): one schema each, which gives
 * the contract's type (`z.infer`), the check at the doors and in `queries/save`, and the JSON Schema of `query.json`
 * (resources/schemas/query.schema.json). What needs the dataset (does the column exist, does it hold numbers, is the
 * other dataset public, cross-field rules) stays in services/datasets/query-definitions.ts.
 */
import { z } from 'zod'
import { AIQ_PERSON_BOUND_DEFAULT, RELEASE_PARAMS } from '../release-params'
import { TIME_BUCKET_UNITS } from '../time-buckets'
import { LIMITS, finiteNumber, rangedNumber, storedId, text } from './common'

export const FILTER_OPERATORS = ['=', '!=', '<', '<=', '>', '>=', 'in', 'not in', 'is null', 'is not null'] as const
export const MAX_GROUP_BY = 8
export const MAX_IN_LIST = 1000
export const MAX_FILTERS = 32
export const MAX_EXPLICIT_GROUPS = 100_000
export const MAX_CAP = 1_000_000
export const MAX_INDIVIDUALS = 100_000
export const MAX_AIQ_COLUMNS = 16
export const MAX_AIQ_RECORDS = 10_000
export const AIQ_METRICS = ['l1', 'linf', 'l2', 'hamming'] as const
export const SEARCH_ORACLES = ['rr', 'binary', 'direct'] as const

const column = () => text(LIMITS.column, { nonEmpty: true })
const scalar = () => z.union([text(LIMITS.value), finiteNumber()], { error: 'must be text or a number' })
/** Maps each group-by column to a column of the other dataset (keys are column names: data, not parameters). */
const columnMap = () => z.record(column(), column()).describe("Maps each group-by column to the other dataset's column (default: the same name).")

export const filterConditionSchema = z
  .strictObject({
    column: column(),
    op: z.enum(FILTER_OPERATORS),
    value: z
      .union([text(LIMITS.value), finiteNumber(), z.array(scalar()).min(1).max(MAX_IN_LIST)], {
        error: `must be text, a number, or a list of 1 to ${MAX_IN_LIST} of them`
      })
      .optional()
      .describe("A single value, a list for 'in' / 'not in', absent for 'is null' / 'is not null'.")
  })
  .describe('One condition; a filter is the AND of its conditions. Timestamps as ISO 8601 text.')

export const timePeriodSchema = z
  .strictObject({ column: column(), from: text(LIMITS.date, { nonEmpty: true }), to: text(LIMITS.date, { nonEmpty: true }) })
  .describe('A period [from, to) on a timestamp column (ISO 8601 or "YYYY-MM-DD HH:MM:SS", naive = UTC).')

export const thresholdCountSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('rows') }).describe('Each row counts 1 (row-level datasets only).'),
  z
    .strictObject({
      kind: z.literal('persons'),
      personColumn: column(),
      cap: rangedNumber({ integer: true, ge: 1, le: MAX_CAP }),
      maxGroups: rangedNumber({ integer: true, ge: 1, le: MAX_EXPLICIT_GROUPS }).optional()
    })
    .describe(
      'Each person counts at most `cap` rows per group; `maxGroups` bounds the groups one person may add to in one release (default: every predicate).'
    )
])

export const thresholdSpecSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('constant'), value: finiteNumber() }),
  z
    .strictObject({ kind: z.literal('column'), datasetId: storedId(), column: column(), on: columnMap().optional() })
    .describe("The threshold of a group is `column` of a public dataset, on the row whose key columns equal the group's keys."),
  z
    .strictObject({
      kind: z.literal('reference'),
      factor: rangedNumber({ gt: 0 }),
      aggregate: z.enum(['max', 'mean']),
      bucket: z.enum(['hour', 'day']),
      column: column().optional(),
      from: text(LIMITS.date, { nonEmpty: true }),
      to: text(LIMITS.date, { nonEmpty: true })
    })
    .describe("factor x the max (or mean) of the group's count per hour or day bucket over a reference period of the same dataset.")
])

export const thresholdQueryDefinitionSchema = z
  .strictObject({
    kind: z.literal('threshold'),
    filter: z.array(filterConditionSchema).max(MAX_FILTERS).optional(),
    period: timePeriodSchema.optional(),
    groupBy: z.array(column()).min(1).max(MAX_GROUP_BY).describe('Each distinct combination of their values is one predicate.'),
    groupByTime: z
      .strictObject({ column: column(), per: z.enum(TIME_BUCKET_UNITS) })
      .optional()
      .describe(
        'Groups by the hour, day or week (from Monday) of a group-by timestamp column instead of its exact value (UTC wall clock: the file\'s own for times without a zone). The groups name each bucket by its start ("2014-07-01 00:00:00"); listed groups or a constant threshold.'
      ),
    count: thresholdCountSchema,
    threshold: thresholdSpecSchema,
    groups: z
      .array(
        z
          .array(z.union([text(LIMITS.value), finiteNumber(), z.null()], { error: 'must be text, a number or null' }))
          .min(1)
          .max(MAX_GROUP_BY)
      )
      .min(1)
      .max(MAX_EXPLICIT_GROUPS)
      .optional()
      .describe('The predicates, listed: key tuples in groupBy order (public).'),
    groupsFrom: z
      .strictObject({ datasetId: storedId(), on: columnMap().optional() })
      .optional()
      .describe('The predicates from a public dataset: its distinct key tuples.')
  })
  .describe('Which groups exceed their threshold? Exactly one of `groups`, `groupsFrom` or a column threshold gives the (public) predicates.')

export const anomalyIdentificationDefinitionSchema = z
  .strictObject({
    kind: z.literal('anomaly-identification'),
    columns: z.array(column()).min(1).max(MAX_AIQ_COLUMNS),
    binWidths: z
      .array(z.union([rangedNumber({ gt: 0 }), z.null()], { error: 'must be a number greater than 0, or null for a text column' }))
      .min(1)
      .max(MAX_AIQ_COLUMNS)
      .describe('One per column: the bin width of a numeric column, null for a text column (categorical).'),
    metric: z.enum(AIQ_METRICS),
    radius: rangedNumber({ ge: 0 }),
    maxNeighbours: rangedNumber({ integer: true, ge: 1 })
      .optional()
      .describe(
        'A record is an anomaly when at most this many records (its own copies included; on a person-level dataset, rows within the person bound) lie within the radius. Required (or its former name "beta").'
      ),
    beta: rangedNumber({ integer: true, ge: 1 }).optional().describe('Former name of maxNeighbours, still read; give one of the two.'),
    k: rangedNumber({ integer: true, ge: 1 }),
    records: z
      .array(z.array(scalar()).min(1).max(MAX_AIQ_COLUMNS))
      .max(MAX_AIQ_RECORDS)
      .optional()
      .describe('The records to ask about (public: they are in the query), values in `columns` order.'),
    rowsPerBin: rangedNumber({ integer: true, ge: 1, le: MAX_CAP })
      .optional()
      .describe(
        `Person-level datasets: near each record asked, the most rows one person counts in one bin (default ${AIQ_PERSON_BOUND_DEFAULT.rowsPerBin}).`
      ),
    binsPerPerson: rangedNumber({ integer: true, ge: 1, le: MAX_CAP })
      .optional()
      .describe(
        `Person-level datasets: the most bins one person counts within the radius of one record asked, its own bin first (default ${AIQ_PERSON_BOUND_DEFAULT.binsPerPerson}). The charge is records x epsilon x rowsPerBin x binsPerPerson.`
      ),
    maxRowsPerPerson: rangedNumber({ integer: true, ge: 1, le: MAX_CAP })
      .optional()
      .describe('Former bound, still read: as rowsPerBin (with binsPerPerson 1).')
  })
  .describe('Anomaly identification under (eps,k)-sensitive privacy: is each record an anomaly?')

const S = RELEASE_PARAMS.anomalySearch

export const anomalySearchDefinitionSchema = z
  .strictObject({
    kind: z.literal('anomaly-search'),
    scoreColumn: column(),
    idColumn: column().optional().describe('The column naming the individuals (on a person-level dataset: its person column); a release needs it.'),
    individuals: z
      .array(z.union([text(LIMITS.value), finiteNumber()], { error: 'must be an id (text or a number)' }).transform((v) => String(v)))
      .min(2)
      .max(MAX_INDIVIDUALS)
      .optional()
      .describe('The individuals searched (public), as the catalog shows them in idColumn.'),
    individualsFrom: z
      .strictObject({ datasetId: storedId(), column: column() })
      .optional()
      .describe("The individuals from a public dataset's column (its distinct values), instead of `individuals`."),
    scoreFloor: finiteNumber().optional().describe('L: scores are clipped to [L, inf); the noise scale is (tLow - L) / eps (default 0).'),
    tLow: finiteNumber(),
    tHigh: finiteNumber(),
    epsilonPerQuery: rangedNumber(S.epsilonPerQuery.range),
    budget: rangedNumber(S.budget.range).describe('Bounds the charge; at least epsilonPerQuery.'),
    oracle: z.enum(SEARCH_ORACLES),
    tau: rangedNumber(S.tau.range).optional().describe(`Stop when the largest posterior exceeds tau (default ${S.tau.default}).`),
    delta: rangedNumber(S.delta.range).optional().describe('Or stop when the max log-odds exceed log(1/delta).'),
    top: rangedNumber(S.top.range).optional().describe(`|S|, the individuals reported (default ${S.top.default}).`)
  })
  .describe('Anomaly search by private noisy binary search: who is the anomaly among the individuals?')

export const queryDefinitionSchema = z.discriminatedUnion('kind', [
  thresholdQueryDefinitionSchema,
  anomalyIdentificationDefinitionSchema,
  anomalySearchDefinitionSchema
])

/**
 * A `query.json` file (`quiet-alarm query save --spec FILE.json`): the query's dataset (id or name), its name and its
 * definition; or just a definition (dataset and name then come from --dataset and --name).
 */
export const queryFileSchema = z.union([
  z.strictObject({
    $schema: z.string().optional(),
    dataset: z
      .union([text(LIMITS.name, { nonEmpty: true }), storedId()])
      .optional()
      .describe('The dataset, by id or name.'),
    name: text(LIMITS.name, { nonEmpty: true }).optional(),
    definition: queryDefinitionSchema
  }),
  queryDefinitionSchema
])
