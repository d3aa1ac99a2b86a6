/**
 * `search`: Monte Carlo evaluation of the private noisy binary search for one anomaly (or several, with --subsets), with
 * ground truth. Simulation only (seeded generator); the release path is `releaseAnomalySearch` in the engine.
 *
 *   search --data FILE.csv --column C --t-low TL --t-high TH --epsilon E --oracle rr|binary|direct [--budget B]
 *          [--halt 0.5|none] [--delta D] [--top 4] [--trials 100] [--seed S] [--max-queries N] [--subsets K]
 *   search --nab-preset SERIES.csv [--threshold-margin 0.1] --epsilon E --oracle ...   (scores and thresholds derived)
 */
import { readFileSync } from 'node:fs'
import { basename, dirname, resolve } from 'node:path'
import { type CliCommand, type CliValues, UsageError, choice, fmt, optNumber, optString, reqNumber, reqString } from '../command'
import { columnIndex, numericColumn, readCsvFile } from '../csv-file'
import { resolveDataPath } from '../../services/local'
import {
  ORACLE_KINDS,
  type OracleKind,
  type SearchEvaluation,
  type SearchParams,
  type SearchPreset,
  aggregateSearchTrials,
  labelledSeriesPreset,
  runSearchTrials,
  searchQueriesBound
} from '../../../src-worker/engine/search'

export interface NabPresetOptions {
  margin?: number
  dropConflicts?: boolean
  /** directory of combined_labels.json and combined_windows.json (default: the series' directory) */
  labelsDir?: string
}

function readJson(path: string, what: string): Record<string, unknown> {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch {
    throw new UsageError(`cannot read ${what} ${path}`)
  }
  try {
    const v = JSON.parse(text) as unknown
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('not an object')
    return v as Record<string, unknown>
  } catch {
    throw new UsageError(`${what} ${path} is not a JSON object`)
  }
}

/** Read a NAB series and its labels (I/O), and derive the evaluation preset (engine). */
export function loadNabPreset(file: string, cwd: string, opts: NabPresetOptions = {}): SearchPreset & { key: string } {
  const table = readCsvFile(file, cwd, 'series')
  const values = numericColumn(table, 'value', 'series')
  const tsCol = columnIndex(table, 'timestamp', 'series')
  const ts = table.rows.map((r) => r[tsCol].trim().slice(0, 19))
  const dir = opts.labelsDir !== undefined ? resolveDataPath(opts.labelsDir, cwd) : dirname(resolveDataPath(file, cwd))
  const labels = readJson(resolve(dir, 'combined_labels.json'), 'labels file')
  const windows = readJson(resolve(dir, 'combined_windows.json'), 'windows file')
  const name = basename(file)
  const key = Object.keys(windows).find((k) => k === name || k.endsWith('/' + name))
  if (key === undefined) throw new UsageError(`the windows file has no entry for ${name}`)
  const win = windows[key]
  const lab = labels[key] ?? []
  if (!Array.isArray(win) || !Array.isArray(lab)) throw new UsageError(`the label files' entries for ${name} are not lists`)
  const windowRows: Array<[number, number]> = []
  for (const w of win) {
    if (!Array.isArray(w) || w.length !== 2 || typeof w[0] !== 'string' || typeof w[1] !== 'string') {
      throw new UsageError(`a window of ${name} is not a [start, end] pair of timestamps`)
    }
    const start = w[0].slice(0, 19),
      end = w[1].slice(0, 19)
    let a = 0
    while (a < ts.length && ts[a] < start) a++
    let b = ts.length - 1
    while (b >= 0 && ts[b] > end) b--
    if (a <= b) windowRows.push([a, b])
  }
  const labelRows = lab
    .filter((t): t is string => typeof t === 'string')
    .map((t) => ts.indexOf(t.slice(0, 19)))
    .filter((i) => i >= 0)
  if (windowRows.length === 0 && labelRows.length === 0) throw new UsageError(`${name} has no labelled point inside the series`)
  try {
    return { ...labelledSeriesPreset({ values, windows: windowRows, labelRows }, { margin: opts.margin, dropConflicts: opts.dropConflicts }), key }
  } catch (e) {
    throw new UsageError(`${name}: ${(e as Error).message}`)
  }
}

function parseTau(values: CliValues): number | undefined {
  const raw = optString(values, 'halt')
  if (raw === undefined) return 0.5
  if (raw === 'none' || raw === 'off') return undefined
  const x = Number(raw.trim())
  if (raw.trim() === '' || !(x > 0 && x < 1)) throw new UsageError(`--halt must be a number in (0, 1) or "none" (got "${raw}")`)
  return x
}

export const searchCommand: CliCommand = {
  name: 'search',
  required: (values) => ['epsilon', 'oracle', ...(values['nab-preset'] === undefined ? ['data', 'column', 't-low', 't-high'] : [])],
  summary: 'Private noisy binary search for one anomaly, Monte Carlo evaluation',
  usage:
    'search --data FILE.csv --column C --t-low TL --t-high TH --epsilon E --oracle rr|binary|direct [--budget B] [--halt 0.5] ' +
    '[--delta D] [--top 4] [--trials 100] [--seed S]   |   search --nab-preset SERIES.csv --epsilon E --oracle ...',
  options: {
    data: { type: 'string', description: 'CSV file with one row per individual' },
    column: { type: 'string', description: 'column holding the anomaly scores' },
    't-low': { type: 'string', description: 'threshold t_l: every normal score is at most this (the sensitivity)' },
    't-high': { type: 'string', description: 'threshold t_h: the anomaly scores above this' },
    epsilon: { type: 'string', description: 'privacy risk per query (> 0)' },
    oracle: { type: 'string', description: 'rr (randomized response), binary (binarised noisy max), direct (noisy max likelihood)' },
    budget: { type: 'string', description: 'total privacy budget b: stop when (T+1) eps > b' },
    halt: { type: 'string', description: 'stop when the largest posterior exceeds this; "none" to disable', defaultText: '0.5' },
    delta: { type: 'string', description: 'log-odds rule: stop when max log(f/(1-f)) > log(1/delta)' },
    top: { type: 'string', description: '|S|: indices output (success = the anomaly is among them)', defaultText: '4' },
    trials: { type: 'string', description: 'Monte Carlo runs', defaultText: '100' },
    seed: { type: 'string', description: 'seed of the simulation', defaultText: '1' },
    'max-queries': { type: 'string', description: 'hard cap on the queries of one search', defaultText: '100000' },
    subsets: { type: 'string', description: 'several anomalies: split into this many random disjoint subsets, search each' },
    'nab-preset': { type: 'string', description: 'labelled NAB series: scores |x - median|, one anomaly, thresholds of the paper (6.1)' },
    'nab-labels': { type: 'string', description: 'directory of combined_labels.json / combined_windows.json', defaultText: "the series' directory" },
    'threshold-margin': { type: 'string', description: 'with --nab-preset: margin m in t_h = x* - m d, t_l = x_j + m d', defaultText: '0.1' },
    'keep-conflicts': { type: 'boolean', description: 'with --nab-preset: keep normal rows scoring at least as high as the anomaly' }
  },
  async run(values, _positionals, ctx) {
    const epsilon = reqNumber(values, 'epsilon', { gt: 0 })
    const oracle: OracleKind = choice('oracle', reqString(values, 'oracle'), ORACLE_KINDS)
    const top = optNumber(values, 'top', 4, { integer: true, ge: 1 })
    const trials = optNumber(values, 'trials', 100, { integer: true, ge: 1 })
    const seed = optString(values, 'seed') ?? '1'
    const tau = parseTau(values)
    const deltaRaw = optString(values, 'delta')
    const delta = deltaRaw === undefined ? undefined : optNumber(values, 'delta', 0, { gt: 0, lt: 1 })
    const budgetRaw = optString(values, 'budget')
    const budget = budgetRaw === undefined ? undefined : optNumber(values, 'budget', 0, { gt: 0 })
    if (budget !== undefined && budget < epsilon) throw new UsageError('--budget is below the risk of a single query (--epsilon)')
    const maxQueriesRaw = optString(values, 'max-queries')
    const maxQueries = maxQueriesRaw === undefined ? undefined : optNumber(values, 'max-queries', 0, { integer: true, ge: 1 })
    if (tau === undefined && delta === undefined && budget === undefined && maxQueries === undefined) {
      throw new UsageError('with --halt none, give --delta, --budget or --max-queries so that the search stops')
    }
    const subsetsRaw = optString(values, 'subsets')
    const subsets = subsetsRaw === undefined ? 1 : optNumber(values, 'subsets', 1, { integer: true, ge: 1 })

    let scores: Float64Array
    let tLow: number
    let tHigh: number
    let anomalies: number[]
    let presetInfo: Record<string, unknown> | undefined
    const presetFile = optString(values, 'nab-preset')
    if (presetFile !== undefined) {
      if (values.data !== undefined || values.column !== undefined)
        throw new UsageError('--nab-preset replaces --data and --column; give one or the other')
      if (values['t-low'] !== undefined || values['t-high'] !== undefined)
        throw new UsageError('--nab-preset derives the thresholds; use --threshold-margin instead of --t-low/--t-high')
      const margin = optNumber(values, 'threshold-margin', 0.1, { gt: 0, lt: 0.5 })
      const p = loadNabPreset(presetFile, ctx.cwd, {
        margin,
        dropConflicts: values['keep-conflicts'] !== true,
        labelsDir: optString(values, 'nab-labels')
      })
      scores = p.scores
      tLow = p.tLow
      tHigh = p.tHigh
      anomalies = [p.anomaly]
      presetInfo = {
        series: p.key,
        anomalyRow: p.anomalyRow,
        droppedWindowRows: p.droppedWindowRows,
        droppedConflicts: p.droppedConflicts,
        margin
      }
    } else {
      const file = reqString(values, 'data')
      const column = reqString(values, 'column')
      tLow = reqNumber(values, 't-low', { gt: 0 })
      tHigh = reqNumber(values, 't-high')
      if (!(tLow < tHigh)) throw new UsageError('--t-low must be below --t-high')
      scores = numericColumn(readCsvFile(file, ctx.cwd, 'data file'), column, 'data file')
      anomalies = []
      for (let i = 0; i < scores.length; i++) if (scores[i] > tHigh) anomalies.push(i)
      if (anomalies.length === 0) throw new UsageError(`no row of "${column}" is above --t-high, so there is no anomaly to search for`)
      if (anomalies.length > 1 && subsets === 1) {
        throw new UsageError(`${anomalies.length} rows of "${column}" are above --t-high; the search expects one (use --subsets K for several)`)
      }
    }
    const n = scores.length
    if (n < 2 * subsets)
      throw new UsageError(`the data has too few rows for ${subsets === 1 ? 'a search (at least 2)' : `${subsets} subsets of at least 2`}`)
    if (top > n) throw new UsageError(`--top must not exceed the number of rows`)

    const params: SearchParams = { epsilon, tLow, tHigh, oracle, top, halting: { tau, delta, budget, maxQueries } }
    const ev: SearchEvaluation = { scores, anomalies, params, subsets }
    const metrics = []
    const batch = 10
    for (let first = 0; first < trials; first += batch) {
      metrics.push(...runSearchTrials(ev, seed, first, Math.min(batch, trials - first)))
      ctx.progress(`search: ${Math.min(first + batch, trials)}/${trials} runs`)
    }
    const agg = aggregateSearchTrials(metrics)
    const bound = searchQueriesBound(n, params, subsets)
    const json: Record<string, unknown> = {
      errorRate: agg.errorRate,
      meanPrivacyRisk: agg.meanPrivacyRisk,
      meanQueries: agg.meanQueries,
      expectedQueriesBound: bound,
      trials,
      seed,
      oracle,
      epsilon,
      tLow,
      tHigh,
      thresholdRatio: (tHigh - tLow) / tLow,
      individuals: n,
      anomalies: anomalies.length,
      top,
      halting: { tau: tau ?? null, delta: delta ?? null, budget: budget ?? null, maxQueries: maxQueries ?? null },
      cappedRuns: agg.cappedTrials
    }
    if (subsets > 1) {
      json.subsets = subsets
      json.missRate = agg.missRate
      json.privacyRiskComposition = 'parallel (max over subsets)'
    }
    if (presetInfo) json.preset = presetInfo
    const text = [
      `search (${oracle}, eps ${fmt(epsilon)}, ${n} individuals, t_l ${fmt(tLow)}, t_h ${fmt(tHigh)}, ${trials} runs, seed ${seed})`,
      `  error rate (anomaly not in top ${top}): ${fmt(agg.errorRate)}`,
      `  mean total privacy risk: ${fmt(agg.meanPrivacyRisk)}`,
      `  mean queries: ${fmt(agg.meanQueries)}   (Prop. 3 bound: ${bound === null ? 'none' : fmt(bound)})`,
      ...(agg.cappedTrials > 0 ? [`  ${agg.cappedTrials} runs stopped at the query cap`] : [])
    ].join('\n')
    return { json, text }
  }
}
