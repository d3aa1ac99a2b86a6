/**
 * Batch anomaly identification queries over many records at once (for simulations and for the release service's
 * preparation): ground truth and exact mechanism behaviour per queried tuple.
 */
import { ballCountsOfPoints, countBalls } from './ball-count'
import { type AiqParams, type AiqTable, aiqTable } from './mechanism'
import type { Metric } from './metric'
import { countOf, type Universe } from './records'

/** One row per queried tuple (binned, row-major q x dims; tuples absent from the data have x_i = 0). */
export function aiqTableForTuples(universe: Universe, tuples: Int32Array, metric: Metric, r: number, params: AiqParams): AiqTable {
  const d = universe.dims
  if (tuples.length % d !== 0) throw new RangeError(`queried tuples must have ${d} coordinates each`)
  const q = tuples.length / d
  const balls = countBalls(universe.points, universe.counts, universe.kinds, metric, r, tuples)
  const counts = new Float64Array(q)
  for (let i = 0; i < q; i++) counts[i] = countOf(universe, tuples.subarray(i * d, i * d + d))
  return aiqTable(counts, balls, params)
}

/** One row per distinct tuple of the data (row p is universe tuple p). */
export function aiqTableForUniverse(universe: Universe, metric: Metric, r: number, params: AiqParams): AiqTable {
  return aiqTable(universe.counts, ballCountsOfPoints(universe.points, universe.counts, universe.kinds, metric, r), params)
}

/** One row per input record (every record queried once, in input order). */
export function aiqTableForRecords(universe: Universe, metric: Metric, r: number, params: AiqParams): AiqTable {
  const balls = ballCountsOfPoints(universe.points, universe.counts, universe.kinds, metric, r)
  const rp = universe.recordPoint
  return aiqTable(
    Float64Array.from(rp, (p) => universe.counts[p]),
    Float64Array.from(rp, (p) => balls[p]),
    params
  )
}
