/**
 * Sampler self-check: seeded Laplace samples, returned sorted so the service can pool them across batches and run a
 * Kolmogorov-Smirnov test. Exercises the engine on every worker (used by the diagnostics screen and pool tests).
 */
import { deriveSeed, laplace, seededRng } from '../engine/random'
import type { TaskContext } from './types'

export interface SelfCheckBatch {
  seed: string
  batchIndex: number
  samples: number
  scale: number
}

export interface SelfCheckBatchResult {
  batchIndex: number
  sorted: number[]
  threadTag: string
}

export function selfCheckBatch(p: SelfCheckBatch, ctx: TaskContext, threadTag = ''): SelfCheckBatchResult {
  const rng = seededRng(deriveSeed(p.seed, p.batchIndex))
  const out = new Array<number>(p.samples)
  for (let i = 0; i < p.samples; i++) {
    out[i] = laplace(rng, p.scale)
    if ((i & 4095) === 4095) ctx.progress(i + 1)
  }
  ctx.progress(p.samples)
  out.sort((a, b) => a - b)
  return { batchIndex: p.batchIndex, sorted: out, threadTag }
}
