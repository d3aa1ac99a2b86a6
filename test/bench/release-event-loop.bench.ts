/**
 * Issue 18: how long a large release blocks the services' thread (Electron's main process in the desktop app). Releases
 * run their mechanism synchronously right after the charge; this measures the event loop's largest delay
 * (perf_hooks.monitorEventLoopDelay) while the mechanism of a large anomaly search and a large anomaly identification runs,
 * next to the run time. Engine only (the data read is SQL and stays on that thread in any case). Prints one JSON line.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { SecureRandom, seededRng } from '../../src-worker/engine/random'
import { releaseAnomalySearch } from '../../src-worker/engine/search'
import { buildUniverse, encodeRecord, releaseAiq } from '../../src-worker/engine/sensitive'

async function measure(f: () => void): Promise<{ runMs: number; eventLoopMaxDelayMs: number }> {
  const h = monitorEventLoopDelay({ resolution: 5 })
  h.enable()
  await new Promise((r) => setTimeout(r, 50))
  const t = performance.now()
  f()
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
  const search = await measure(() =>
    releaseAnomalySearch(scores, { epsilon: 1, tLow: 1, tHigh: 5, oracle: 'direct', budget: 40, tau: 0.5, top: 4, posteriorGrid: 0.01 }, SecureRandom.create())
  )
  const rows = 300_000
  const a = new Float64Array(rows)
  const b = new Float64Array(rows)
  for (let i = 0; i < rows; i++) {
    a[i] = rng.next() * 100
    b[i] = rng.next() * 100
  }
  const aiq = await measure(() => {
    const u = buildUniverse([a, b], [{ kind: 'numeric', binWidth: 1 }, { kind: 'numeric', binWidth: 1 }])
    const tuples = new Int32Array(50 * u.dims)
    for (let i = 0; i < 50; i++) tuples.set(encodeRecord(u, [i, 100 - i]), i * u.dims)
    releaseAiq(SecureRandom.create(), u, { mechanism: 'sp', metric: 'l1', radius: 3, beta: 5, k: 2, epsilon: 1, queries: tuples })
  })
  console.log(JSON.stringify({ searchOneMillion40Questions: search, aiq300kRows50Records: aiq }))
}
void main()
