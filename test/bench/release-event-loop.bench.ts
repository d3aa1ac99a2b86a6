/**
 * How long a large release blocks the services' thread (Electron's main process in the desktop app). Measures
 * the event loop's largest delay (perf_hooks.monitorEventLoopDelay) while the computation of a large anomaly search and
 * a large anomaly identification runs, next to the run time, two ways in one run: inline on this thread (the synchronous
 * `runRelease`, as every release ran before) and as the release task (`release:<kind>`) on the worker pool with the
 * release option (`once`), as `runReleaseTimed` runs it when the services have a pool. The payload is the one the
 * services send (data after the read; the read itself is SQL and stays on this thread in either case). `idleSameTime`:
 * the largest delay while the thread only waits as long, the machine's floor during the run. One JSON line.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { SecureRandom, seededRng } from '../../src-worker/engine/random'
import type { TaskPayload } from '../../src-worker/tasks'
import { RELEASE_COMPUTE } from '../../src-worker/tasks/release-compute'
import { WorkerPool, batchOf } from '../../src-main/services/platform/worker-pool'
import { resolveWorkerScript } from '../../src-main/services/platform/worker-script'

interface Measured {
  runMs: number
  eventLoopMaxDelayMs: number
}

async function measure(f: () => unknown): Promise<Measured> {
  const h = monitorEventLoopDelay({ resolution: 5 })
  h.enable()
  await new Promise((r) => setTimeout(r, 50))
  const t = performance.now()
  await f()
  const runMs = performance.now() - t
  await new Promise((r) => setTimeout(r, 50))
  h.disable()
  return { runMs: Math.round(runMs), eventLoopMaxDelayMs: Math.round(h.max / 1e6) }
}

async function main(): Promise<void> {
  const rng = seededRng('release-event-loop')
  const n = 1_000_000
  const scores = new Float64Array(n)
  for (let i = 0; i < n; i++) scores[i] = rng.next()
  scores[123] = 5
  const search: TaskPayload<'release:anomaly-search'> = {
    scores,
    request: { epsilon: 1, tLow: 1, tHigh: 5, oracle: 'direct', budget: 40, tau: 0.5, top: 4, posteriorGrid: 0.01 }
  }
  const rows = 300_000
  const a = new Float64Array(rows + 50)
  const b = new Float64Array(rows + 50)
  for (let i = 0; i < rows; i++) {
    a[i] = rng.next() * 100
    b[i] = rng.next() * 100
  }
  // The 50 records asked about follow the data, as the services' read appends them.
  const records = Array.from({ length: 50 }, (_, i) => [i, 100 - i])
  records.forEach(([x, y], i) => ((a[rows + i] = x), (b[rows + i] = y)))
  const aiq: TaskPayload<'release:anomaly-identification'> = {
    columns: [
      { kind: 'numeric', binWidth: 1, values: a },
      { kind: 'numeric', binWidth: 1, values: b }
    ],
    rows,
    records,
    mechanism: 'sp',
    metric: 'l1',
    radius: 3,
    beta: 5,
    k: 2,
    epsilon: 1
  }
  const pool = new WorkerPool(resolveWorkerScript(), 1)
  const onPool = async <K extends 'release:anomaly-search' | 'release:anomaly-identification'>(kind: K, payload: TaskPayload<K>) => {
    const [o] = await pool.run([batchOf(kind, payload, 1)], { once: true })
    if (!o.ok) throw new Error(o.error)
  }
  try {
    // A warm-up task loads the worker's modules before anything is measured.
    await onPool('release:anomaly-search', { ...search, scores: scores.subarray(0, 1000) })
    const out = {
      searchOneMillion40Questions: {
        inline: await measure(() => RELEASE_COMPUTE['release:anomaly-search'](search, SecureRandom.create())),
        onPool: await measure(() => onPool('release:anomaly-search', search))
      },
      aiq300kRows50Records: {
        inline: await measure(() => RELEASE_COMPUTE['release:anomaly-identification'](aiq, SecureRandom.create())),
        onPool: await measure(() => onPool('release:anomaly-identification', aiq))
      }
    }
    // The floor on this machine now: the largest delay while the thread only waits, as long as the longest run above.
    const longest = Math.max(out.searchOneMillion40Questions.onPool.runMs, out.aiq300kRows50Records.onPool.runMs)
    const idle = await measure(() => new Promise((r) => setTimeout(r, longest)))
    console.log(JSON.stringify({ ...out, idleSameTime: idle }))
  } finally {
    await pool.shutdown()
  }
}
void main()
