/**
 * The task kinds a worker runs. Each area adds its kinds here (engine functions wrapped for batches).
 */
import { selfCheckBatch } from './self-check'
import type { TaskFn } from './types'
import { thresholdTrialBatch } from './mide-tasks'
import { aiqTrialBatch } from './sensitive-tasks'
import { searchTrialBatch } from './search-tasks'

export const tasks: Record<string, TaskFn> = {
  'self-check/laplace': (p, ctx) => selfCheckBatch(p, ctx),
  // Experiments (issue 7): Monte Carlo batches of one sweep cell each.
  'experiments/threshold': (p, ctx) => thresholdTrialBatch(p, ctx),
  'experiments/aiq': (p, ctx) => aiqTrialBatch(p, ctx),
  'experiments/search': (p, ctx) => searchTrialBatch(p, ctx)
}
