/**
 * What the experiment framework needs from each engine: its mechanisms, parameters (names as in specs, defaults,
 * checks), metrics, how to load a workload, and how to build a worker batch for a cell.
 */
import type { ExperimentEngine, ParamValue, WorkloadInfo, WorkloadRef } from '../../../contract/experiments'
import type { Store } from '../../store/store'
import type { ExperimentTaskKind, TaskPayload } from '../../../../src-worker/tasks'

export interface ParamDef {
  name: string
  /** undefined: the parameter must be given (params or grid). */
  default?: ParamValue
  /** What a valid value is, as a phrase completing "alpha must be ..." */
  describe: string
  valid(v: ParamValue): boolean
}

export interface MetricDef {
  name: string
  description: string
  kind: 'rate' | 'value'
  /** 0/1 per trial: summarised with a Wilson interval. */
  binary: boolean
}

export interface LoadedWorkload<D = unknown> {
  info: WorkloadInfo
  data: D
}

export interface WorkloadContext {
  /** Folder relative paths are resolved against. */
  cwd: string
  store: Store
}

export interface EngineAdapter<D = unknown, K extends ExperimentTaskKind = ExperimentTaskKind> {
  engine: ExperimentEngine
  title: string
  mechanisms: readonly string[]
  params: readonly ParamDef[]
  metrics: readonly MetricDef[]
  workloadKinds: ReadonlyArray<WorkloadRef['kind']>
  /** Worker task kind (src-worker/tasks/index.ts, `TaskMap`). */
  taskKind: K
  /** The parameters this mechanism uses (the cell's identity); the others are kept for display only. */
  relevantParams(mechanism: string): readonly string[]
  /** A check across parameters for one cell (one sentence) or null. Only called once every value is individually valid. */
  checkCell(mechanism: string, params: Record<string, ParamValue>, workload: LoadedWorkload<D>): string | null
  /** Read a workload; throws UserError (one sentence) when it cannot be used. */
  loadWorkload(ref: WorkloadRef, ctx: WorkloadContext): Promise<LoadedWorkload<D>>
  /**
   * Estimated work of one trial of this cell, in units comparable across the engine's cells (search: rounds times
   * individuals). For time left only; without it every trial counts 1.
   */
  trialCost?(cell: BatchCell, workload: LoadedWorkload<D>): number
  /**
   * Extra work, in trialCost units, of a worker's first batch of a mechanism (the engine code it compiles on first use):
   * counted once per worker and mechanism (the pool's `warmUp`), for time left only.
   */
  warmUpCost?(mechanism: string): number
  /**
   * Trials per batch when the spec does not say (default: about a quarter of a cell, at most 25). Results do not depend
   * on it; an engine whose worker keeps per-cell state between trials (the threshold engine's remembered DPPWLM scores)
   * does less work with whole cells per batch.
   */
  trialsPerBatch?: number
  /** The structured-cloneable payload of one batch of a cell (the task kind's payload type). */
  batchPayload(cell: BatchCell, workload: LoadedWorkload<D>, firstTrial: number, count: number, crash: boolean): TaskPayload<K>
}

export interface BatchCell {
  mechanism: string
  params: Record<string, ParamValue>
  seed: string
}

// Helpers for parameter definitions --------------------------------------------------------------------------------

export const positive = (name: string, def?: number): ParamDef => ({
  name,
  default: def,
  describe: 'a finite number > 0',
  valid: (v) => typeof v === 'number' && Number.isFinite(v) && v > 0
})

export const wholeAtLeast = (name: string, min: number, def?: number): ParamDef => ({
  name,
  default: def,
  describe: `a whole number >= ${min}`,
  valid: (v) => typeof v === 'number' && Number.isInteger(v) && v >= min
})

export const openUnit = (name: string, def?: ParamValue, orNone = false): ParamDef => ({
  name,
  default: def,
  describe: orNone ? 'a number in (0, 1) or "none"' : 'a number in (0, 1)',
  valid: (v) => (orNone && v === 'none') || (typeof v === 'number' && v > 0 && v < 1)
})

export function num(params: Record<string, ParamValue>, name: string): number {
  const v = params[name]
  if (typeof v !== 'number') throw new Error(`parameter ${name} is not a number`)
  return v
}

export function optNum(params: Record<string, ParamValue>, name: string): number | undefined {
  const v = params[name]
  return typeof v === 'number' ? v : undefined
}
