/**
 * `release:threshold`: a MIDE mechanism (TSLM, PPWLM, DPPWLM) on the true counts of a charged threshold release, read
 * on the services' thread and divided by the sensitivity there. Pure given its generator, which must be the secure one.
 */
import { type Rng, assertSecure } from '../engine/random'
import type { ThresholdMechanism, ThresholdParams } from '../engine/mide/params'
import { runThresholdRelease } from '../engine/mide'

export interface ThresholdReleasePayload {
  mechanism: ThresholdMechanism
  /** true counts / s, one per predicate */
  counts: Float64Array
  /** thresholds / s, one per predicate */
  thresholds: Float64Array
  params: ThresholdParams
}

export interface ThresholdReleaseResult {
  /** 1 = flagged (decided positive or still undecided at the end). */
  positive: Uint8Array
  /** Ex-post (sealed): epsilon actually spent per predicate. */
  epsilonPerPredicate: Float64Array
}

export function computeThresholdRelease(p: ThresholdReleasePayload, rng: Rng): ThresholdReleaseResult {
  assertSecure(rng)
  const run = runThresholdRelease(p.mechanism, p.counts, p.thresholds, p.params, rng)
  // Admission already refused anything the plan could deny (epsMax is not used by the engine on this path).
  if (run.denied) throw new Error('the mechanism denied a query that admission had accepted')
  const positive = new Uint8Array(p.counts.length)
  for (const i of run.positives) positive[i] = 1
  return { positive, epsilonPerPredicate: Float64Array.from(run.sealed.exPost) }
}
