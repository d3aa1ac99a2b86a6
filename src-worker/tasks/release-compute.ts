/**
 * The one computation of each release kind, by task kind: the worker runs it with its own secure generator
 * (`tasks` in index.ts, whose `release:<kind>` entries and types are derived from this map); the synchronous path
 * (`runRelease`: the CLI's inline runs, tests) runs the same function inline. A kind's computation is added here only.
 */
import { computeThresholdRelease } from './release-threshold'
import { computeAiqRelease } from './release-anomaly-identification'
import { computeSearchRelease } from './release-anomaly-search'

export const RELEASE_COMPUTE = {
  'release:threshold': computeThresholdRelease,
  'release:anomaly-identification': computeAiqRelease,
  'release:anomaly-search': computeSearchRelease
} as const

type Computations = typeof RELEASE_COMPUTE

/** Each release task's payload (data only) and result, read off its computation. */
export type ReleaseTaskMap = { [K in keyof Computations]: { payload: Parameters<Computations[K]>[0]; result: ReturnType<Computations[K]> } }
