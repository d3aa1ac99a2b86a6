/**
 * Contract methods of the experiments area: parameter sweeps and Monte Carlo evaluations on the worker pool.
 *
 * Everything here is a SIMULATION: it uses the ground truth, a seeded generator, and is never charged to a ledger.
 * Every stored experiment, every response and every CSV row says so (`simulation: true`, CSV column `kind=simulation`).
 * Types only (the renderer imports this file too).
 */
import type { RequestFromSchema } from './schemas/requests'

/** Which engine a spec runs: MIDE threshold mechanisms, anomaly identification (AIQ), or private noisy binary search. */
export type ExperimentEngine = 'threshold' | 'aiq' | 'search'

/** A parameter value in a spec. Strings are for switches such as `tau: "none"`. */
export type ParamValue = number | string

/** Where a sweep's data comes from. Relative paths are resolved against the working directory of the services/CLI. */
export type WorkloadRef =
  /** threshold: a CSV with columns `predicate,count,threshold` (one row per predicate). */
  | { kind: 'csv'; path: string; label?: string }
  /**
   * threshold: a saved threshold query over an imported dataset, evaluated with the ground truth. Counts with a per-person
   * cap (sensitivity s > 1) are run in units of s: counts, thresholds and alpha are divided by s.
   */
  | { kind: 'saved-query'; queryId: number; label?: string }
  /**
   * search: a labelled series (NAB layout: `timestamp,value`; labels in `combined_windows.json` next to the file, key
   * `realKnownCause/<file name>` unless `key` is given). The anomaly and the paper's thresholds are derived from the truth.
   */
  | { kind: 'series'; path: string; column?: string; windows?: string; key?: string; label?: string }
  /** aiq: a CSV of records; the universe is the set of distinct binned tuples of `columns`; every distinct tuple is queried. */
  | {
      kind: 'records'
      path: string
      columns: Array<{ name: string; kind?: 'numeric' | 'categorical'; binWidth?: number }>
      metric?: 'l1' | 'linf' | 'l2' | 'hamming'
      label?: string
    }

/** One sweep: the mechanisms, fixed parameters, and a grid (cartesian product of the listed values). */
export interface SweepSpec {
  /** Names the sweep in results and charts (e.g. "alpha sweep"). */
  label?: string
  mechanisms: string[]
  params?: Record<string, ParamValue>
  grid?: Record<string, ParamValue[]>
}

/**
 * An experiment: one engine, its workloads, one or more sweeps, trials per cell, and a base seed.
 * The top-level `mechanisms` / `params` / `grid` are a shorthand for a single sweep (use either them or `sweeps`).
 */
export interface ExperimentSpec {
  version?: 1
  name: string
  engine: ExperimentEngine
  workloads: WorkloadRef[]
  mechanisms?: string[]
  params?: Record<string, ParamValue>
  grid?: Record<string, ParamValue[]>
  sweeps?: SweepSpec[]
  /** Monte Carlo trials per cell (paper: 100). */
  trials: number
  /** Base seed; each cell's seed is derived from it and the cell's workload, mechanism and parameters. */
  seed: string | number
  /** Trials per worker message (default: chosen automatically; results do not depend on it). */
  trialsPerBatch?: number
  /** Test hook, honoured only by workers started with QA_DIAGNOSTICS=1: these cells' first batch crashes its worker. */
  diagnostics?: { crashCells?: number[] }
}

/** Mean and 95% confidence interval of one metric over a cell's trials. */
export interface MetricSummary {
  mean: number | null
  /** Sample standard deviation of the per-trial values (n - 1 in the denominator). */
  sd: number | null
  /** Trials where the metric is defined (e.g. FNR needs at least one positive predicate). */
  n: number
  ciLow: number | null
  ciHigh: number | null
  /** `wilson`: Wilson score interval (metrics that are 0/1 per trial, and rates: never of zero width); `normal`: mean +- 1.96 sd / sqrt(n). */
  interval: 'wilson' | 'normal' | 'none'
}

export type CellStatus = 'pending' | 'done' | 'failed'

export interface CellResult {
  index: number
  /** Identity of the computation (workload, mechanism, the parameters this mechanism uses); equal keys share results. */
  key: string
  sweep: string
  workload: string
  mechanism: string
  /** Every parameter of the cell (defaults filled in), including ones this mechanism ignores. */
  params: Record<string, ParamValue>
  seed: string
  trials: number
  status: CellStatus
  error: string | null
  metrics: Record<string, MetricSummary> | null
  /** Exact or closed-form values beside the Monte Carlo ones (e.g. the expected-queries bound, exact error rates). */
  extras: Record<string, number | null> | null
  finishedAt: string | null
}

export type ExperimentStatus = 'running' | 'done' | 'partial' | 'cancelled' | 'failed' | 'interrupted'

export interface WorkloadInfo {
  label: string
  source: string
  /** Content hash of the data the cells ran on (resume refuses a changed workload). */
  hash: string
  /** Workload facts (predicates, positives, individuals, threshold ratio, records...). Ground truth: simulation only. */
  facts: Record<string, number | string>
}

export interface ExperimentSummary {
  id: string
  name: string
  engine: ExperimentEngine
  /** Always true: experiments are simulations (ground truth, seeded, never charged). */
  simulation: true
  seed: string
  status: ExperimentStatus
  cellsTotal: number
  cellsDone: number
  cellsFailed: number
  createdAt: string
  updatedAt: string
  /** The job currently running it, if any. */
  jobId: string | null
}

export interface ExperimentDetail extends ExperimentSummary {
  spec: ExperimentSpec
  workloads: WorkloadInfo[]
  /** Metric names in display order, with their meaning. */
  metrics: Array<{ name: string; description: string; kind: 'rate' | 'value' }>
  cells: CellResult[]
  /** Live figures while a job runs on it (`trialsPerSecond`: the workbench only; in the service a rate would date the call). */
  live: { cellsDone: number; cellsTotal: number; trialsPerSecond?: number; etaSeconds: number | null } | null
}

export interface ExperimentPreset {
  name: string
  title: string
  /** Which figure of which paper it reproduces. */
  figure: string
  description: string
  spec: ExperimentSpec
}

export type ValidationOutcome =
  { ok: true; cells: number; distinctCells: number; trials: number; engine: ExperimentEngine } | { ok: false; errors: string[] }

/** What a finished sweep job returns (JobInfo.result). */
export interface SweepJobResult {
  experimentId: string
  status: ExperimentStatus
  /** Cells computed by this run (after de-duplication: cells with equal keys count once). */
  cellsComputed: number
  /** Cells already stored before this run (resume) and therefore skipped. */
  cellsSkipped: number
  cellsFailed: number
  trialsComputed: number
  seconds: number
}

export interface ExperimentMethods {
  /** The papers' figures as ready-made specs. */
  'experiments/presets': { req: RequestFromSchema<'experiments/presets'>; res: { presets: ExperimentPreset[] } }
  /** Check a spec (and read its workloads); every problem is one sentence. */
  'experiments/validate': { req: RequestFromSchema<'experiments/validate'>; res: ValidationOutcome }
  /** Store the experiment and start computing its cells. Give a spec or a preset name. */
  'experiments/start': { req: RequestFromSchema<'experiments/start'>; res: { jobId: string; experimentId: string } }
  /** Compute only the cells that are not stored yet (pending or failed). */
  'experiments/resume': { req: RequestFromSchema<'experiments/resume'>; res: { jobId: string; experimentId: string } }
  'experiments/list': { req: RequestFromSchema<'experiments/list'>; res: { experiments: ExperimentSummary[] } }
  'experiments/get': { req: RequestFromSchema<'experiments/get'>; res: ExperimentDetail }
  /** The results as CSV (long format: one row per cell and metric; see docs/guide/experiments.md for the header). */
  'experiments/export-csv': { req: RequestFromSchema<'experiments/export-csv'>; res: { fileName: string; csv: string; rows: number } }
  'experiments/delete': { req: RequestFromSchema<'experiments/delete'>; res: { deleted: boolean } }
}

export const experimentsMethodNames: Record<keyof ExperimentMethods, true> = {
  'experiments/presets': true,
  'experiments/validate': true,
  'experiments/start': true,
  'experiments/resume': true,
  'experiments/list': true,
  'experiments/get': true,
  'experiments/export-csv': true,
  'experiments/delete': true
}
