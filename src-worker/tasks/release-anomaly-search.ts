/**
 * `release:anomaly-search`: the private noisy binary search over the scores of a charged release (read, clipped and
 * shifted by L on the services' thread). Returns positions in the scores; the services map them to the public ids.
 * Pure given its generator, which must be the secure one.
 */
import { type Rng, assertSecure } from '../engine/random'
import { type SearchReleaseAnswer, type SearchReleaseRequest, releaseAnomalySearch } from '../engine/search'

export interface SearchReleasePayload {
  /** One score per listed individual, shifted by L (every normal score in [0, tLow]). */
  scores: Float64Array
  request: SearchReleaseRequest
}

export type SearchReleaseResult = SearchReleaseAnswer

export function computeSearchRelease(p: SearchReleasePayload, rng: Rng): SearchReleaseResult {
  assertSecure(rng)
  const out = releaseAnomalySearch(p.scores, p.request, rng)
  if (out.posterior.length !== out.top.length) throw new Error('the search returned a posterior that does not match its top-S')
  return out
}
