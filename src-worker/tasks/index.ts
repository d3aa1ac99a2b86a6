/**
 * The task kinds a worker runs, each with its payload and result types (`TaskMap`). Each area adds its kinds here
 * (engine functions wrapped for batches); the pool (`src-main/services/platform/worker-pool.ts`) takes only batches whose
 * payload fits their kind and types each outcome by it.
 */
import { threadId } from 'node:worker_threads'
import { type SelfCheckBatch, type SelfCheckBatchResult, selfCheckBatch } from './self-check'
import type { TaskContext } from './types'
import { type ThresholdTrialBatch, thresholdTrialBatch } from './mide-tasks'
import { type AiqTrialBatch, aiqTrialBatch } from './sensitive-tasks'
import { type SearchTrialBatch, type TrialBatchResult, searchTrialBatch } from './search-tasks'
import type { DiagnosticTaskMap } from './diagnostics'
import { runReleaseTask } from './release-task'
import { RELEASE_COMPUTE, type ReleaseTaskMap } from './release-compute'
import type { Rng } from '../engine/random'
import { type SearchAccuracyBatch, searchAccuracyBatch } from './accuracy-tasks'
import type { AccuracyCounts } from '../engine/search'

/** Releases (`release:<kind>`, from release-compute.ts): the computation after the charge, with the worker's own secure generator (never in the payload). */
export interface TaskMap extends ReleaseTaskMap {
  'self-check/laplace': { payload: SelfCheckBatch; result: SelfCheckBatchResult }
  // Experiments: Monte Carlo batches of one sweep cell each.
  'experiments/threshold': { payload: ThresholdTrialBatch; result: TrialBatchResult }
  'experiments/aiq': { payload: AiqTrialBatch; result: TrialBatchResult }
  'experiments/search': { payload: SearchTrialBatch; result: TrialBatchResult }
  // Accuracy previews: seeded runs on public parameters only (no data).
  'accuracy/search': { payload: SearchAccuracyBatch; result: AccuracyCounts }
}

/** What the pool may send: the tasks, and the diagnostic kinds a worker runs only with QA_DIAGNOSTICS=1 (crash tests). */
export type PoolTaskMap = TaskMap & DiagnosticTaskMap
export type TaskKind = keyof PoolTaskMap
export type TaskPayload<K extends TaskKind> = PoolTaskMap[K]['payload']
export type TaskResult<K extends TaskKind> = PoolTaskMap[K]['result']
/** The kinds a sweep's engine adapter names (src-main/services/experiments/engines). */
export type ExperimentTaskKind = Extract<keyof TaskMap, `experiments/${string}`>
/** The release kinds' tasks (`release:<kind>`). */
export type ReleaseTaskKind = Extract<keyof TaskMap, `release:${string}`>

export type TaskFns = { [K in keyof TaskMap]: (payload: TaskPayload<K>, ctx: TaskContext) => TaskResult<K> }

export const tasks: TaskFns = {
  'self-check/laplace': (p, ctx) => selfCheckBatch(p, ctx, String(threadId)),
  'experiments/threshold': (p, ctx) => thresholdTrialBatch(p, ctx),
  'experiments/aiq': (p, ctx) => aiqTrialBatch(p, ctx),
  'experiments/search': (p, ctx) => searchTrialBatch(p, ctx),
  ...releaseTasks(),
  'accuracy/search': (p) => searchAccuracyBatch(p)
}

/** A worker entry per release computation: the payload checked for a generator, then run with a fresh secure one. */
function releaseTasks(): { [K in ReleaseTaskKind]: (payload: TaskPayload<K>) => TaskResult<K> } {
  const out: Record<string, (payload: unknown) => unknown> = {}
  for (const [kind, compute] of Object.entries(RELEASE_COMPUTE))
    out[kind] = (payload) => runReleaseTask(payload, compute as (p: unknown, rng: Rng) => unknown)
  return out as { [K in ReleaseTaskKind]: (payload: TaskPayload<K>) => TaskResult<K> }
}

export function isTaskKind(kind: string): kind is keyof TaskMap {
  return Object.prototype.hasOwnProperty.call(tasks, kind)
}
