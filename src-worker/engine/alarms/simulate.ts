/**
 * A `when-fires` alarm over a whole stream, in memory: instances renewed within the lifetime cap exactly as the release
 * path renews them (an instance is charged when it starts; at most `instancesWithinCap(cap, eps)` ever start; when none
 * may start, the alarm pauses and evaluates nothing more). For simulations (the unit tests, the benchmark) with a seeded
 * generator; the release path evaluates one period at a time with `startInstance` / `svtStep` and the secure generator.
 */
import type { Rng } from '../random'
import { type SvtParams, startInstance, svtStep } from './sparse-vector'

/** Instances an alarm may start within its lifetime cap: floor(cap / eps). The stream bound is stated for this many. */
export function instancesWithinCap(lifetimeCap: number, eps: number): number {
  if (!(lifetimeCap > 0) || !Number.isFinite(lifetimeCap) || !(eps > 0) || !Number.isFinite(eps)) {
    throw new RangeError('lifetime cap and eps must be positive finite numbers')
  }
  return Math.floor(lifetimeCap / eps)
}

export interface WhenFiresRun {
  /** fired[p]: the predicate indexes that fired in period p (periods after a pause: empty) */
  fired: number[][]
  /** instances started (each charged eps1 + eps2) */
  instances: number
  /** the first period not (fully) evaluated because the cap allowed no further instance, or -1 */
  pausedAt: number
  /** the first predicate of period `pausedAt` not evaluated (0 when the whole period was), or -1 */
  pausedAtPredicate: number
}

/** Runs the alarm over `periods` (each: counts and thresholds of its predicates, in predicate order). */
export function simulateWhenFires(
  rng: Rng,
  periods: ReadonlyArray<{ counts: ArrayLike<number>; thresholds: ArrayLike<number> }>,
  params: SvtParams,
  lifetimeCap: number
): WhenFiresRun {
  const maxInstances = instancesWithinCap(lifetimeCap, params.eps1 + params.eps2)
  const fired: number[][] = []
  let instances = 0
  let state: { rho: number; firesLeft: number } | null = null
  for (let p = 0; p < periods.length; p++) {
    let { counts, thresholds } = periods[p]
    const out: number[] = []
    fired.push(out)
    let offset = 0
    while (counts.length > 0) {
      if (state === null || state.firesLeft === 0) {
        if (instances >= maxInstances) {
          for (let q = p + 1; q < periods.length; q++) fired.push([])
          return { fired, instances, pausedAt: p, pausedAtPredicate: offset }
        }
        instances++
        state = { rho: startInstance(rng, params).rho, firesLeft: params.c }
      }
      const step = svtStep(rng, state, counts, thresholds, params)
      for (const j of step.fired) out.push(offset + j)
      state = { rho: state.rho, firesLeft: step.firesLeft }
      if (step.next === counts.length) break
      offset += step.next
      counts = Array.prototype.slice.call(counts, step.next) as number[]
      thresholds = Array.prototype.slice.call(thresholds, step.next) as number[]
    }
  }
  return { fired, instances, pausedAt: -1, pausedAtPredicate: -1 }
}
