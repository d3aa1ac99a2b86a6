/**
 * The one computation of each release kind, by task kind: the worker runs it with its own secure generator
 * (`tasks` in index.ts); the synchronous path (`runRelease`: the CLI's inline runs, tests) runs the same function inline.
 */
import type { Rng } from '../engine/random'
import type { ReleaseTaskKind, TaskPayload, TaskResult } from './index'
import { computeThresholdRelease } from './release-threshold'
import { computeAiqRelease } from './release-anomaly-identification'
import { computeSearchRelease } from './release-anomaly-search'

export const RELEASE_COMPUTE: { [K in ReleaseTaskKind]: (payload: TaskPayload<K>, rng: Rng) => TaskResult<K> } = {
  'release:threshold': computeThresholdRelease,
  'release:anomaly-identification': computeAiqRelease,
  'release:anomaly-search': computeSearchRelease
}
