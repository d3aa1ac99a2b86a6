/**
 * Sampler self-check: the pool draws seeded Laplace samples in batches on every worker, the service pools them and
 * runs a Kolmogorov-Smirnov test against Lap(1), and records the outcome as an audit event in the workspace.
 */
import type { SelfCheckRequest, SelfCheckResult } from '../../contract'
import type { SelfCheckBatch } from '../../../src-worker/tasks/self-check'
import { UserError } from '../platform/errors'
import type { JobContext } from '../platform/job-registry'
import type { WorkerPool } from '../platform/worker-pool'
import type { Store } from '../store/store'
import { recordAudit } from '../chain/ledger-chain'

const SCALE = 1
const KS_ALPHA = 1e-3

function laplaceCdf(x: number): number {
  return x < 0 ? 0.5 * Math.exp(x / SCALE) : 1 - 0.5 * Math.exp(-x / SCALE)
}

/** Merge sorted arrays and compute the KS distance against the Laplace CDF. */
export function ksDistanceOfSortedBatches(batches: number[][]): { n: number; d: number } {
  const all = batches.flat().sort((a, b) => a - b)
  const n = all.length
  let d = 0
  for (let i = 0; i < n; i++) {
    const f = laplaceCdf(all[i])
    d = Math.max(d, (i + 1) / n - f, f - i / n)
  }
  return { n, d }
}

export function validateSelfCheck(req: SelfCheckRequest): Required<SelfCheckRequest> {
  const batches = req.batches ?? 8
  const samplesPerBatch = req.samplesPerBatch ?? 50_000
  if (!Number.isInteger(batches) || batches < 1 || batches > 1000) throw new UserError('batches must be a whole number from 1 to 1000')
  if (!Number.isInteger(samplesPerBatch) || samplesPerBatch < 100 || samplesPerBatch > 1_000_000) {
    throw new UserError('samplesPerBatch must be a whole number from 100 to 1,000,000')
  }
  return { batches, samplesPerBatch }
}

export async function runSelfCheck(store: Store, pool: WorkerPool, req: Required<SelfCheckRequest>, ctx: JobContext): Promise<SelfCheckResult> {
  // A fixed seed: the check is reproducible, and it is a simulation (nothing is released).
  const batches = Array.from({ length: req.batches }, (_, i) => ({
    kind: 'self-check/laplace' as const,
    payload: { seed: 'self-check', batchIndex: i, samples: req.samplesPerBatch, scale: SCALE } satisfies SelfCheckBatch,
    units: req.samplesPerBatch
  }))
  const outcomes = await pool.run(batches, { signal: ctx.signal, onProgress: (d, t) => ctx.progress(d, t) })
  const values = outcomes.map((o) => (o.ok ? o.value : { sorted: [], threadTag: '', batchIndex: -1 }))
  const { n, d } = ksDistanceOfSortedBatches(values.map((v) => v.sorted))
  const critical = Math.sqrt(-Math.log(KS_ALPHA / 2) / 2) / Math.sqrt(n)
  const result: SelfCheckResult = {
    at: new Date().toISOString(),
    samples: n,
    batches: req.batches,
    workersUsed: new Set(values.map((v) => v.threadTag)).size,
    ksDistance: d,
    ksCritical: critical,
    passed: d < critical
  }
  recordAudit(store.db, 'self-check', 'system', 'sampler', result as unknown as Record<string, unknown>)
  return result
}

export function lastSelfCheck(store: Store): SelfCheckResult | null {
  const row = store.db.prepare("SELECT detail FROM audit_events WHERE kind = 'self-check' ORDER BY id DESC LIMIT 1").get() as
    { detail: string } | undefined
  return row ? (JSON.parse(row.detail) as SelfCheckResult) : null
}
