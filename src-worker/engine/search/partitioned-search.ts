/**
 * Several anomalies: the partitioned search proposed in the paper's discussion (section 7). The individuals are split at
 * random (independently of the data) into m disjoint subsets of near-equal size, and the single-anomaly search runs in each.
 * With m large enough relative to the number of anomalies, each anomaly is alone in its subset with high probability.
 *
 * Cost: every individual is queried only inside its own subset, so by parallel composition (Definition 5) the
 * anomaly-restricted privacy risk is max_j T_j eps; the total number of queries is sum_j T_j. Both are reported, with the
 * sequential sum_j T_j eps for readers who do not accept parallel composition across adaptively chosen searches.
 */
import { type Rng, permutation } from '../random'
import { type SearchParams, type SearchResult, privateBinarySearch } from './private-binary-search'
import type { HaltReason } from './halting'

export interface SubsetResult {
  /** global indices of the subset's members */
  members: number[]
  /** global indices of the subset's top |S| */
  top: number[]
  topPosterior: number[]
  queries: number
  privacyRisk: number
  haltedBy: HaltReason
}

export interface PartitionedResult {
  subsets: SubsetResult[]
  /** union of the subsets' top sets */
  top: number[]
  totalQueries: number
  /** max_j T_j eps (parallel composition) */
  privacyRisk: number
  /** sum_j T_j eps (sequential composition, conservative) */
  sequentialPrivacyRisk: number
}

/** Random partition of 0..N-1 into m subsets whose sizes differ by at most one. */
export function randomPartition(individuals: number, subsets: number, rng: Rng): number[][] {
  if (!(Number.isInteger(subsets) && subsets >= 1)) throw new RangeError(`subsets must be a whole number >= 1 (got ${subsets})`)
  if (individuals < 2 * subsets) throw new RangeError(`each of the ${subsets} subsets needs at least two individuals (have ${individuals})`)
  const perm = permutation(rng, individuals)
  const out: number[][] = Array.from({ length: subsets }, () => [])
  for (let r = 0; r < individuals; r++) out[r % subsets].push(perm[r])
  for (const s of out) s.sort((a, b) => a - b)
  return out
}

export function partitionedSearch(scores: ArrayLike<number>, params: SearchParams, subsets: number, rng: Rng): PartitionedResult {
  const parts = randomPartition(scores.length, subsets, rng)
  const results: SubsetResult[] = parts.map((members) => {
    const sub = new Float64Array(members.length)
    for (let r = 0; r < members.length; r++) sub[r] = scores[members[r]]
    const res: SearchResult = privateBinarySearch(sub, params, rng)
    return {
      members,
      top: res.top.map((i) => members[i]),
      topPosterior: res.topPosterior,
      queries: res.queries,
      privacyRisk: res.privacyRisk,
      haltedBy: res.haltedBy
    }
  })
  return {
    subsets: results,
    top: results.flatMap((r) => r.top),
    totalQueries: results.reduce((s, r) => s + r.queries, 0),
    privacyRisk: results.reduce((m, r) => Math.max(m, r.privacyRisk), 0),
    sequentialPrivacyRisk: results.reduce((s, r) => s + r.privacyRisk, 0)
  }
}
