import { seededRng } from '../../../src-worker/engine/random'

/** Normal scores uniform in [0, 1], one anomaly at 2: t_l = 1, t_h = 2 (ratio 1). */
export function synthetic(n: number, anomaly: number, seed: string): Float64Array {
  const rng = seededRng(seed)
  const x = new Float64Array(n)
  for (let i = 0; i < n; i++) x[i] = rng.next()
  x[anomaly] = 2
  return x
}
