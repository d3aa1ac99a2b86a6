/**
 * `release:anomaly-identification`: the universe built from the framed columns of a charged release (every value framed
 * on the services' thread: aiq-frame.ts), the records' own copies taken out again, and the mechanism's bits. The ball
 * counts run here; on a person-level dataset, under the person bound (engine/sensitive/person-bound.ts), whose random
 * priorities are drawn here too. Pure given its generator, which must be the secure one.
 */
import { type Rng, assertSecure } from '../engine/random'
import {
  type AiqMechanism,
  type Metric,
  type PersonBound,
  aiqBits,
  boundedBallCounts,
  buildUniverse,
  encodeRecord,
  releaseAiq
} from '../engine/sensitive'

export interface AiqReleasePayload {
  /** Per column: the framed data values followed by the records asked about (their copies are subtracted again). */
  columns: Array<{ kind: 'numeric'; binWidth: number; values: Float64Array } | { kind: 'categorical'; values: string[] }>
  /** Data rows before the records' copies in each column's values. */
  rows: number
  /** The records asked about, converted like the columns. */
  records: Array<Array<number | string>>
  /** Person-level datasets: each data row's person as a code (>= 0; -1 for none), and the bound; absent for row-level data. */
  persons?: { codes: Int32Array; bound: PersonBound }
  mechanism: AiqMechanism
  metric: Metric
  radius: number
  beta: number
  k: number
  epsilon: number
}

export interface AiqReleaseResult {
  /** One released answer per record asked: 1 = "anomaly". */
  bits: Uint8Array
}

export function computeAiqRelease(p: AiqReleasePayload, rng: Rng): AiqReleaseResult {
  assertSecure(rng)
  const universe = buildUniverse(
    p.columns.map((c) => c.values),
    p.columns.map((c) => (c.kind === 'numeric' ? { kind: 'numeric' as const, binWidth: c.binWidth } : { kind: 'categorical' as const }))
  )
  const records = p.records.length
  const n = p.rows
  const params = { mechanism: p.mechanism, beta: p.beta, k: p.k, epsilon: p.epsilon }
  if (p.persons) {
    if (p.persons.codes.length !== n) throw new RangeError('one person code per data row is needed')
    const rowPerson = new Int32Array(n + records).fill(-1)
    rowPerson.set(p.persons.codes)
    const asked = Int32Array.from({ length: records }, (_, i) => universe.recordPoint[n + i])
    const counts = boundedBallCounts(
      { points: universe.points, kinds: universe.kinds, rowPoint: universe.recordPoint, rowPerson },
      asked,
      p.metric,
      p.radius,
      p.persons.bound,
      rng
    )
    return { bits: aiqBits(rng, counts.own, counts.ball, params) }
  }
  for (let i = 0; i < records; i++) universe.counts[universe.recordPoint[n + i]] -= 1
  const queries = new Int32Array(records * universe.dims)
  p.records.forEach((r, i) => queries.set(encodeRecord(universe, r), i * universe.dims))
  const out = releaseAiq(rng, universe, { ...params, metric: p.metric, radius: p.radius, queries })
  return { bits: out.bits }
}
