/**
 * CSV export of an experiment (long format: one row per cell and metric, so the header is the same for every
 * experiment of an engine). Every row starts with `kind=simulation`: these are simulations with ground truth.
 *
 * Header: kind, experiment_id, experiment, engine, base_seed, cell, sweep, workload, mechanism,
 *         <one column per engine parameter, in the engine's order>, cell_seed, trials, status, error,
 *         metric, n, mean, sd, ci_low, ci_high, interval
 * `interval` is `wilson` (0/1 per trial), `normal` (mean +- 1.96 sd/sqrt(n)), `none`, or `closed-form` for exact values
 * computed beside the Monte Carlo ones (their value is in `mean`). Pending or failed cells have one row with an empty metric.
 * Written by the services' one CSV writer (`../csv.ts`): CRLF, quoting, and text that a spreadsheet would run as a
 * formula (a workload label or dataset name "=HYPERLINK(...)") neutralised with a leading apostrophe.
 */
import type { CellResult } from '../../contract/experiments'
import type { EngineAdapter } from './engines/types'
import type { ExperimentRow } from './repository'
import { type CsvValue, toCsv } from '../platform/csv'
import { formatParam } from './spec'

export function csvHeader(adapter: EngineAdapter): string[] {
  return [
    'kind',
    'experiment_id',
    'experiment',
    'engine',
    'base_seed',
    'cell',
    'sweep',
    'workload',
    'mechanism',
    ...adapter.params.map((p) => p.name),
    'cell_seed',
    'trials',
    'status',
    'error',
    'metric',
    'n',
    'mean',
    'sd',
    'ci_low',
    'ci_high',
    'interval'
  ]
}

export function experimentCsv(row: ExperimentRow, adapter: EngineAdapter, cells: CellResult[]): { csv: string; rows: number } {
  const rows: CsvValue[][] = []
  for (const c of cells) {
    const prefix: CsvValue[] = [
      'simulation',
      row.id,
      row.name,
      row.engine,
      row.seed,
      c.index,
      c.sweep,
      c.workload,
      c.mechanism,
      ...adapter.params.map((p) => (c.params[p.name] === undefined ? '' : formatParam(c.params[p.name]))),
      c.seed,
      c.trials,
      c.status,
      c.error
    ]
    if (c.status !== 'done' || !c.metrics) {
      rows.push([...prefix, null, null, null, null, null, null, null])
      continue
    }
    for (const def of adapter.metrics) {
      const m = c.metrics[def.name]
      if (!m) continue
      rows.push([...prefix, def.name, m.n, m.mean, m.sd, m.ciLow, m.ciHigh, m.interval])
    }
    for (const [name, v] of Object.entries(c.extras ?? {})) {
      rows.push([...prefix, name, null, v, null, null, null, 'closed-form'])
    }
  }
  return { csv: toCsv(csvHeader(adapter), rows), rows: rows.length }
}
