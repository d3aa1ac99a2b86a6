/**
 * Search engine adapter: private noisy binary search on a labelled series (ALGORITHMS.md section 3).
 * Mechanisms are the oracles (rr, binary, direct). The anomaly and the thresholds t_l, t_h come from the labels
 * (paper section 6.1, margin 0.1): this uses the truth, so it is for simulations only.
 */
import { existsSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { ORACLE_KINDS, type OracleKind, labelledSeriesPreset } from '../../../../src-worker/engine/search'
import { expectedRounds } from '../../../../src-worker/engine/search/expected-rounds'
import type { SearchTrialBatch } from '../../../../src-worker/tasks/search-tasks'
import type { ParamValue, WorkloadRef } from '../../../contract/experiments'
import { resolveDataPath } from '../../platform/bundled-files'
import { UserError } from '../../platform/errors'
import { contentHash, defaultLabel, numbers, readCsv, readText, column } from '../workload-files'
import { type EngineAdapter, type ParamDef, num, openUnit, optNum, positive, wholeAtLeast } from './types'

export interface SearchWorkload {
  scores: Float64Array
  anomaly: number
  tLow: number
  tHigh: number
  /** The highest score other than the anomaly's (for the cost estimate only). */
  nearest: number
}

/** Work of one trial in the same units for every search cell: estimated rounds (plus one for the setup) times individuals. */
export function searchTrialCost(mechanism: string, params: Record<string, ParamValue>, w: SearchWorkload): number {
  const n = w.scores.length
  const rounds = expectedRounds(
    n,
    {
      epsilon: num(params, 'eps'),
      tLow: w.tLow,
      tHigh: w.tHigh,
      oracle: mechanism as OracleKind,
      top: 4,
      halting: { tau: optNum(params, 'tau'), delta: optNum(params, 'delta'), budget: optNum(params, 'b'), maxQueries: optNum(params, 'max_queries') }
    },
    w.scores[w.anomaly],
    w.nearest
  )
  return (rounds + 1) * n
}

const orNone = (def: ParamDef): ParamDef => ({
  ...def,
  describe: `${def.describe} or "none"`,
  valid: (v) => v === 'none' || def.valid(v)
})

function parseTime(s: string): number {
  const t = Date.parse(
    s
      .trim()
      .replace(' ', 'T')
      .replace(/(\.\d{3})\d*$/, '$1') + 'Z'
  )
  return t
}

function readJson(path: string, what: string): Record<string, unknown> {
  const { text } = readText(path, '/', what)
  try {
    return JSON.parse(text) as Record<string, unknown>
  } catch {
    throw new UserError(`The ${what} ${path} is not valid JSON; fix the file.`)
  }
}

function highestOther(scores: Float64Array, anomaly: number): number {
  let m = -Infinity
  for (let i = 0; i < scores.length; i++) if (i !== anomaly && scores[i] > m) m = scores[i]
  return m
}

export const searchAdapter: EngineAdapter<SearchWorkload> = {
  engine: 'search',
  title: 'anomaly search (private noisy binary search)',
  mechanisms: ORACLE_KINDS,
  params: [
    positive('eps', 1),
    openUnit('tau', 0.5, true),
    openUnit('delta', 'none', true),
    orNone(positive('b')),
    wholeAtLeast('top', 1, 4),
    orNone(wholeAtLeast('max_queries', 1))
  ].map((p) => (p.name === 'b' || p.name === 'max_queries' ? { ...p, default: 'none' } : p)),
  metrics: [
    {
      name: 'errorRate',
      description:
        'share of runs where the anomaly is not among the top |S| when the run stops (a run stopped by the round cap is checked as it stands)',
      kind: 'rate',
      binary: true
    },
    { name: 'privacyRisk', description: 'total privacy risk T eps', kind: 'value', binary: false },
    { name: 'queries', description: 'number of queries T', kind: 'value', binary: false },
    {
      name: 'capped',
      description: 'share of runs stopped by the round cap max_queries before any halting rule fired (not halted)',
      kind: 'rate',
      binary: true
    },
    {
      name: 'failureRate',
      description:
        "share of runs that failed in the paper's sense (section 6.2): stopped by the round cap, or halted without the anomaly among the top |S|",
      kind: 'rate',
      binary: true
    }
  ],
  workloadKinds: ['series'],
  taskKind: 'experiments/search',
  relevantParams: () => ['eps', 'tau', 'delta', 'b', 'top', 'max_queries'],
  checkCell(_m, p) {
    if (p.tau === 'none' && p.delta === 'none' && p.b === 'none' && p.max_queries === 'none') {
      return 'A search cell needs a halting rule: set tau, delta, b or max_queries.'
    }
    return null
  },
  async loadWorkload(ref: WorkloadRef, ctx) {
    if (ref.kind !== 'series') throw new UserError(`The search engine takes "series" workloads (got "${ref.kind}").`)
    const what = 'series file'
    const table = readCsv(ref.path, ctx.cwd, what)
    const values = numbers(table, ref.column ?? 'value', what)
    const ti = column(table, 'timestamp', what)
    const times = table.rows.map((r) => parseTime(r[ti]))
    const abs = resolveDataPath(ref.path, ctx.cwd)
    const windowsPath = ref.windows ? resolveDataPath(ref.windows, ctx.cwd) : join(dirname(abs), 'combined_windows.json')
    if (!existsSync(windowsPath)) {
      throw new UserError(
        `The series ${ref.path} needs its labelled windows (${windowsPath} not found); give "windows" with the path of combined_windows.json.`
      )
    }
    const key = ref.key ?? `realKnownCause/${basename(ref.path)}`
    const allWindows = readJson(windowsPath, 'windows file')
    const wins = allWindows[key]
    if (!Array.isArray(wins) || wins.length === 0) {
      throw new UserError(`The windows file has no labelled window for "${key}"; give the series' key with "key".`)
    }
    const windows: Array<[number, number]> = []
    for (const w of wins as Array<[string, string]>) {
      const a = parseTime(w[0])
      const b = parseTime(w[1])
      let first = -1
      let last = -1
      for (let i = 0; i < times.length; i++) {
        if (times[i] >= a && times[i] <= b) {
          if (first < 0) first = i
          last = i
        }
      }
      if (first >= 0) windows.push([first, last])
    }
    const labelsPath = join(dirname(windowsPath), 'combined_labels.json')
    const labelRows: number[] = []
    if (existsSync(labelsPath)) {
      const labels = readJson(labelsPath, 'labels file')[key]
      if (Array.isArray(labels)) {
        for (const l of labels as string[]) {
          const t = parseTime(l)
          const i = times.indexOf(t)
          if (i >= 0) labelRows.push(i)
        }
      }
    }
    let preset
    try {
      preset = labelledSeriesPreset({ values, windows, labelRows })
    } catch (e) {
      throw new UserError(`The series ${ref.path} cannot be used for a search simulation: ${(e as Error).message}.`)
    }
    return {
      info: {
        label: ref.label ?? defaultLabel(ref.path),
        source: ref.path,
        hash: contentHash(values, JSON.stringify(windows), JSON.stringify(labelRows)),
        facts: {
          individuals: preset.scores.length,
          anomalyRow: preset.anomalyRow,
          tLow: preset.tLow,
          tHigh: preset.tHigh,
          thresholdRatio: preset.thresholdRatio,
          droppedWindowRows: preset.droppedWindowRows,
          droppedConflicts: preset.droppedConflicts
        }
      },
      data: {
        scores: preset.scores,
        anomaly: preset.anomaly,
        tLow: preset.tLow,
        tHigh: preset.tHigh,
        nearest: highestOther(preset.scores, preset.anomaly)
      }
    }
  },
  trialCost: (cell, w) => searchTrialCost(cell.mechanism, cell.params, w.data),
  batchPayload(cell, w, firstTrial, count, crash): SearchTrialBatch {
    const p = cell.params
    return {
      cellSeed: cell.seed,
      firstTrial,
      count,
      scores: w.data.scores,
      anomaly: w.data.anomaly,
      tLow: w.data.tLow,
      tHigh: w.data.tHigh,
      oracle: cell.mechanism as SearchTrialBatch['oracle'],
      epsilon: num(p, 'eps'),
      top: num(p, 'top'),
      tau: optNum(p, 'tau'),
      delta: optNum(p, 'delta'),
      budget: optNum(p, 'b'),
      maxQueries: optNum(p, 'max_queries'),
      crash
    }
  }
}
