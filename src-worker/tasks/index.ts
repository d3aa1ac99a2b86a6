/**
 * The task kinds a worker runs. Each area adds its kinds here (engine functions wrapped for batches).
 */
import { selfCheckBatch } from './self-check'
import type { TaskFn } from './types'

export const tasks: Record<string, TaskFn> = {
  'self-check/laplace': (p, ctx) => selfCheckBatch(p, ctx)
}
