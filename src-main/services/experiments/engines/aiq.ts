/**
 * AIQ engine adapter: anomaly identification, optimal eps-DP (lambda = mdd) vs (eps,k)-sensitive privacy
 * (lambda = lambda_k), ALGORITHMS.md section 2. Every distinct binned record tuple of the workload is queried.
 */
import { buildUniverse, type ColumnKind, type Metric, METRICS } from '../../../../src-worker/engine/sensitive'
import type { AiqTrialBatch } from '../../../../src-worker/tasks/sensitive-tasks'
import type { WorkloadRef } from '../../../contract/experiments'
import { UserError } from '../../platform/errors'
import { column, contentHash, defaultLabel, numbers, readCsv } from '../workload-files'
import { type EngineAdapter, type ParamDef, num, positive, wholeAtLeast } from './types'

export interface AiqWorkload {
  points: Int32Array
  counts: Float64Array
  kinds: ColumnKind[]
  metric: Metric
}

const radius: ParamDef = {
  name: 'r',
  describe: 'a finite number >= 0 (in bins)',
  valid: (v) => typeof v === 'number' && Number.isFinite(v) && v >= 0
}

export const aiqAdapter: EngineAdapter<AiqWorkload> = {
  engine: 'aiq',
  title: 'anomaly identification (sensitive privacy vs optimal DP)',
  mechanisms: ['dp', 'sp'],
  params: [positive('eps', 1), wholeAtLeast('k', 1, 1), wholeAtLeast('beta', 1), radius],
  metrics: [
    { name: 'errorRate', description: 'share of queried records answered wrongly', kind: 'rate', binary: false },
    { name: 'errorRateSensitive', description: 'error rate on k-sensitive records', kind: 'rate', binary: false },
    { name: 'errorRateNonSensitive', description: 'error rate on non-sensitive records', kind: 'rate', binary: false }
  ],
  workloadKinds: ['records'],
  taskKind: 'experiments/aiq',
  relevantParams: () => ['eps', 'k', 'beta', 'r'],
  checkCell: () => null,
  async loadWorkload(ref: WorkloadRef, ctx) {
    if (ref.kind !== 'records') throw new UserError(`The aiq engine takes "records" workloads (got "${ref.kind}").`)
    const what = 'records file'
    if (!Array.isArray(ref.columns) || ref.columns.length === 0) {
      throw new UserError(`The records workload ${ref.path} needs "columns": a list of {name, kind, binWidth}.`)
    }
    const metric = ref.metric ?? 'l1'
    if (!METRICS.includes(metric)) throw new UserError(`The metric of ${ref.path} must be one of ${METRICS.join(', ')} (got "${String(metric)}").`)
    const table = readCsv(ref.path, ctx.cwd, what)
    const values = ref.columns.map((c) => {
      if (c.kind === 'categorical') {
        const i = column(table, c.name, what)
        return table.rows.map((r) => r[i])
      }
      return numbers(table, c.name, what)
    })
    let universe
    try {
      universe = buildUniverse(
        values,
        ref.columns.map((c) => ({ kind: c.kind ?? 'numeric', binWidth: c.binWidth }))
      )
    } catch (e) {
      throw new UserError(`The records in ${ref.path} cannot be binned: ${(e as Error).message}.`)
    }
    return {
      info: {
        label: ref.label ?? defaultLabel(ref.path),
        source: ref.path,
        hash: contentHash(universe.points, universe.counts, JSON.stringify(universe.kinds), metric),
        facts: { records: universe.total, distinctRecords: universe.size, columns: ref.columns.map((c) => c.name).join('+'), metric }
      },
      data: { points: universe.points, counts: universe.counts, kinds: universe.kinds, metric }
    }
  },
  batchPayload(cell, w, firstTrial, count, crash): AiqTrialBatch {
    const p = cell.params
    return {
      cellSeed: cell.seed,
      firstTrial,
      count,
      workloadHash: w.info.hash,
      points: w.data.points,
      counts: w.data.counts,
      kinds: w.data.kinds,
      metric: w.data.metric,
      mechanism: cell.mechanism as 'dp' | 'sp',
      r: num(p, 'r'),
      beta: num(p, 'beta'),
      k: num(p, 'k'),
      epsilon: num(p, 'eps'),
      crash
    }
  }
}
