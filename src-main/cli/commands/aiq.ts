/**
 * `aiq`: one anomaly identification query over a CSV file (is the record within --radius of at most --max-neighbours
 * records?), answered by the optimal eps-DP mechanism or the (eps, k)-sensitively private one (Construction 1). A
 * simulation tool over the user's own file: it shows the ground truth (count, ball count, true answer) and the exact flip
 * probability, and with --trials a Monte Carlo error rate. It is not a release (no ledger, seeded generator). With
 * --person-column it counts as a person-level release does (engine/sensitive/person-bound.ts), so that its counts and
 * flip probability are those of a release on the same data.
 */
import {
  type CliCommand,
  type CliValues,
  UsageError,
  choice,
  fmt,
  optNumber,
  optString,
  parseNumber,
  parseNumberList,
  reqNumber,
  reqString
} from '../command'
import { columnIndex, numericColumn, readCsvFile } from '../csv-file'
import { countBalls } from '../../../src-worker/engine/sensitive/ball-count'
import { type AiqParams, aiqTable } from '../../../src-worker/engine/sensitive/mechanism'
import { METRICS, type ColumnKind, type Metric } from '../../../src-worker/engine/sensitive/metric'
import { buildUniverse, countOf, encodeRecord, type ColumnValues } from '../../../src-worker/engine/sensitive/records'
import { type PersonBound, boundedBallCounts } from '../../../src-worker/engine/sensitive/person-bound'
import { seededRng } from '../../../src-worker/engine/random'
import { AIQ_PERSON_BOUND_DEFAULT } from '../../contract/release-params'
import { aggregateAiqTrials, runAiqTrials } from '../../../src-worker/engine/sensitive/simulate'

function nameList(name: string, raw: string): string[] {
  const parts = raw.split(',').map((s) => s.trim())
  if (parts.some((p) => p === '')) throw new UsageError(`--${name} must be a comma-separated list of column names (got "${raw}")`)
  return parts
}

/** Engine range errors (bins out of range, too wide a span) become one-line usage errors. */
function engine<T>(f: () => T): T {
  try {
    return f()
  } catch (e) {
    if (e instanceof RangeError) throw new UsageError(e.message)
    throw e
  }
}

interface Parsed {
  data: string
  columns: string[]
  categorical: Set<string>
  binWidths: number[]
  radius: number
  metric: Metric
  params: AiqParams
  mechanism: 'dp' | 'sp'
  record: string[]
  trials: number | undefined
  seed: string
  /** Person-level counting: the person column and the bound. */
  persons: { column: string; bound: PersonBound } | null
}

function parse(values: CliValues): Parsed {
  const data = reqString(values, 'data')
  const columns = nameList('columns', reqString(values, 'columns'))
  if (new Set(columns).size !== columns.length) throw new UsageError('--columns names a column twice')
  const catRaw = optString(values, 'categorical')
  const categorical = new Set(catRaw === undefined ? [] : nameList('categorical', catRaw))
  for (const c of categorical) if (!columns.includes(c)) throw new UsageError(`--categorical names "${c}", which is not in --columns`)
  const bwRaw = optString(values, 'bin-width')
  const bw = bwRaw === undefined ? [1] : parseNumberList('bin-width', bwRaw, { gt: 0 })
  if (bw.length !== 1 && bw.length !== columns.length) {
    throw new UsageError(`--bin-width needs one value or one per column in --columns (${columns.length}), got ${bw.length}`)
  }
  const binWidths = columns.map((_, k) => (bw.length === 1 ? bw[0] : bw[k]))
  const radius = reqNumber(values, 'radius', { ge: 0 })
  if (values['max-neighbours'] !== undefined && values.beta !== undefined)
    throw new UsageError('Give --max-neighbours once (--beta is its former name)')
  const beta = reqNumber(values, values.beta !== undefined ? 'beta' : 'max-neighbours', { ge: 1, integer: true })
  const personColumn = optString(values, 'person-column')
  if (personColumn === undefined && (values['rows-per-bin'] !== undefined || values['bins-per-person'] !== undefined))
    throw new UsageError('--rows-per-bin and --bins-per-person bound what one person counts: give the --person-column too')
  const persons =
    personColumn === undefined
      ? null
      : {
          column: personColumn,
          bound: {
            rowsPerBin: optNumber(values, 'rows-per-bin', AIQ_PERSON_BOUND_DEFAULT.rowsPerBin, { ge: 1, integer: true }),
            binsPerPerson: optNumber(values, 'bins-per-person', AIQ_PERSON_BOUND_DEFAULT.binsPerPerson, { ge: 1, integer: true })
          }
        }
  const metric = choice('metric', optString(values, 'metric') ?? 'l1', METRICS)
  const k = optNumber(values, 'k', 1, { ge: 1, integer: true })
  const epsilon = optNumber(values, 'epsilon', 1, { gt: 0 })
  const mechanism = choice('mechanism', optString(values, 'mechanism') ?? 'sp', ['dp', 'sp'] as const)
  const record = reqString(values, 'record-value').split(',')
  if (record.length !== columns.length) {
    throw new UsageError(`--record-value needs ${columns.length} value(s), one per column in --columns (got ${record.length})`)
  }
  const trialsRaw = optString(values, 'trials')
  const trials = trialsRaw === undefined ? undefined : parseNumber('trials', trialsRaw, { ge: 1, le: 10_000_000, integer: true })
  const seed = optString(values, 'seed') ?? '1'
  return { data, columns, categorical, binWidths, radius, metric, params: { beta, k, epsilon }, mechanism, record, trials, seed, persons }
}

export const aiqCommand: CliCommand = {
  name: 'aiq',
  required: (values) => ['data', 'columns', 'radius', values.beta === undefined ? 'max-neighbours' : 'beta', 'record-value'],
  summary:
    'Anomaly identification query under sensitive privacy or optimal DP. A simulation over your own file: shows the ground truth and exact flip probability (not a release)',
  usage:
    'aiq --data FILE.csv --columns c1[,c2..] --radius R --max-neighbours N [--metric l1|linf|l2|hamming] [--k K] --record-value V1[,V2..] [--epsilon E] [--mechanism dp|sp] [--bin-width W1[,W2..]] [--categorical c..] [--person-column C [--rows-per-bin R] [--bins-per-person B]] [--trials N] [--seed S]',
  options: {
    data: { type: 'string', description: 'CSV file with a header row (your own data; read locally)' },
    columns: { type: 'string', description: 'comma-separated columns forming a record' },
    categorical: { type: 'string', description: 'columns (among --columns) compared as categories; the others must be numeric', defaultText: 'none' },
    'bin-width': {
      type: 'string',
      description: 'bin width of the numeric columns, one value or one per column: bin = floor(value / width)',
      defaultText: '1'
    },
    radius: { type: 'string', description: 'ball radius r >= 0, in bins' },
    'max-neighbours': {
      type: 'string',
      description: 'neighbour limit, a whole number >= 1: the record is an anomaly iff present and at most this many records lie within --radius'
    },
    beta: { type: 'string', description: 'former name of --max-neighbours (still read)' },
    'person-column': {
      type: 'string',
      description:
        'count as a person-level release does: near the record, each person counts at most --rows-per-bin rows in a bin and in at most --bins-per-person bins'
    },
    'rows-per-bin': { type: 'string', description: 'with --person-column: the most rows one person counts in one bin', defaultText: '1' },
    'bins-per-person': {
      type: 'string',
      description: "with --person-column: the most bins one person counts within the radius (the record's own bin first)",
      defaultText: '1'
    },
    metric: { type: 'string', description: 'l1, linf or l2 on bins (categories count 0/1 per column), or hamming', defaultText: 'l1' },
    k: { type: 'string', description: 'sensitivity parameter of the SP mechanism, a whole number >= 1', defaultText: '1' },
    'record-value': { type: 'string', description: 'the queried record: raw values, one per column, binned like the data' },
    epsilon: { type: 'string', description: 'privacy parameter eps > 0', defaultText: '1' },
    mechanism: {
      type: 'string',
      description: 'dp (optimal eps-DP, lambda = mdd) or sp ((eps,k)-sensitive privacy, lambda = lambda_k)',
      defaultText: 'sp'
    },
    trials: { type: 'string', description: 'Monte Carlo trials for a sampled error rate (simulation; seeded generator)' },
    seed: { type: 'string', description: 'seed of the simulation', defaultText: '1' }
  },
  async run(values, _positionals, ctx) {
    const p = parse(values)
    const table = readCsvFile(p.data, ctx.cwd, 'data file')
    const kinds: ColumnKind[] = p.columns.map((c) => (p.categorical.has(c) ? 'categorical' : 'numeric'))
    const cols: ColumnValues[] = p.columns.map((c, k) => {
      if (kinds[k] === 'numeric') return numericColumn(table, c, 'data file')
      const i = columnIndex(table, c, 'data file')
      return table.rows.map((row) => row[i].trim())
    })
    const raw = p.record.map((v, k) => {
      if (kinds[k] === 'categorical') return v.trim()
      const x = v.trim() === '' ? NaN : Number(v)
      if (!Number.isFinite(x))
        throw new UsageError(`--record-value: value ${k + 1} ("${v}") must be a number, since column "${p.columns[k]}" is numeric`)
      return x
    })
    const specs = kinds.map((kind, k) => ({ kind, binWidth: p.binWidths[k] }))
    let universe = engine(() => buildUniverse(cols, specs))
    let tuple = engine(() => encodeRecord(universe, raw))
    let ballCount: number
    let count: number
    if (p.persons) {
      // As a release counts: the record appended (its copy counts for nobody), each person bounded near it.
      const who = columnIndex(table, p.persons.column, 'data file')
      const codes = new Map<string, number>()
      const rowPerson = Int32Array.from([...table.rows, null], (row) => {
        if (row === null) return -1
        const id = row[who].trim()
        if (id === '') return -1
        let c = codes.get(id)
        if (c === undefined) codes.set(id, (c = codes.size))
        return c
      })
      universe = engine(() =>
        buildUniverse(
          cols.map((c, k) => [...Array.from(c as ArrayLike<number | string>), raw[k]] as ColumnValues),
          specs
        )
      )
      tuple = engine(() => encodeRecord(universe, raw))
      const bounded = engine(() =>
        boundedBallCounts(
          { points: universe.points, kinds: universe.kinds, rowPoint: universe.recordPoint, rowPerson },
          Int32Array.of(universe.recordPoint[table.rows.length]),
          p.metric,
          p.radius,
          p.persons!.bound,
          seededRng(`${p.seed}\0persons`)
        )
      )
      count = bounded.own[0]
      ballCount = bounded.ball[0]
    } else {
      ballCount = engine(() => countBalls(universe.points, universe.counts, universe.kinds, p.metric, p.radius, tuple))[0]
      count = countOf(universe, tuple)
    }
    const t = aiqTable([count], [ballCount], p.params)
    const lambda = p.mechanism === 'dp' ? t.mdd[0] : t.lambdaK[0]
    const flipProbability = p.mechanism === 'dp' ? t.flipDp[0] : t.flipSp[0]
    const json: Record<string, unknown> = {
      ballCount,
      count,
      isAnomaly: t.isAnomaly[0] === 1,
      mdd: t.mdd[0],
      lambda,
      flipProbability,
      lambdaK: t.lambdaK[0],
      sensitive: t.sensitive[0] === 1,
      mechanism: p.mechanism,
      epsilon: p.params.epsilon,
      k: p.params.k,
      maxNeighbours: p.params.beta,
      beta: p.params.beta,
      ...(p.persons ? { personColumn: p.persons.column, rowsPerBin: p.persons.bound.rowsPerBin, binsPerPerson: p.persons.bound.binsPerPerson } : {}),
      radius: p.radius,
      metric: p.metric,
      binnedRecord: Array.from(tuple, (v, k) => (kinds[k] === 'categorical' ? (universe.categories[k][v] ?? null) : v)),
      records: universe.total - (p.persons ? 1 : 0),
      distinctRecords: universe.size
    }
    if (p.trials !== undefined) {
      ctx.progress(`aiq: ${p.trials} trials ...`)
      const agg = aggregateAiqTrials(runAiqTrials(t, p.seed, 0, p.trials))
      json.errorRate = agg[p.mechanism].errorRate
      json.trials = p.trials
      json.seed = p.seed
    }
    const lines = [
      `record ${JSON.stringify(raw)} -> bins ${JSON.stringify(json.binnedRecord)} (simulation over your own data; ground truth shown)`,
      `count x_i = ${count}, ball count B(i, ${p.radius}) = ${ballCount} (${p.metric}${p.persons ? `; each person at most ${p.persons.bound.rowsPerBin} row(s) per bin in ${p.persons.bound.binsPerPerson} bin(s) near the record` : ''}): ${json.isAnomaly ? 'an anomaly' : 'not an anomaly'} (at most ${p.params.beta} neighbours within radius ${p.radius}); ${json.sensitive ? '' : 'not '}${p.params.k}-sensitive`,
      `mdd = ${t.mdd[0]}, lambda_k = ${t.lambdaK[0]}; mechanism ${p.mechanism} (eps = ${p.params.epsilon}${p.mechanism === 'sp' ? `, k = ${p.params.k}` : ''}): lambda = ${lambda}, flip probability ${fmt(flipProbability)}`
    ]
    if (p.trials !== undefined) lines.push(`sampled error rate ${fmt(json.errorRate as number)} over ${p.trials} trials (seed ${p.seed})`)
    return { json, text: lines.join('\n') }
  }
}
