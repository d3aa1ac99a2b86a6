/** Small timing helpers shared by the benchmarks (not used by tests: tests never assert timings). */
export interface TimingStats {
  runs: number
  medianMs: number
  p10Ms: number
  p90Ms: number
  minMs: number
}

export function timeRuns(runs: number, fn: (i: number) => void, warmup = Math.min(5, runs)): TimingStats {
  for (let i = 0; i < warmup; i++) fn(i)
  const t: number[] = []
  for (let i = 0; i < runs; i++) {
    const s = performance.now()
    fn(i)
    t.push(performance.now() - s)
  }
  t.sort((a, b) => a - b)
  const q = (p: number) => t[Math.min(t.length - 1, Math.floor(p * t.length))]
  return { runs, medianMs: round(q(0.5)), p10Ms: round(q(0.1)), p90Ms: round(q(0.9)), minMs: round(t[0]) }
}

export function round(x: number, digits = 3): number {
  return Number(x.toFixed(digits))
}

/** Print the bench's one JSON object (the runner reads the last stdout line). */
export function report(result: Record<string, unknown>): void {
  process.stdout.write(JSON.stringify(result) + '\n')
}

/** A job's published time left at one moment (job/progress events), seconds since the job started. */
export interface TimeLeftSample {
  t: number
  done: number
  total: number
  eta: number | null
}

/**
 * How far the job's predicted duration (elapsed + time left) swung after the first tenth of the run: the smallest and
 * largest prediction and their ratio (1 = the estimate never moved; the UX rule is <= 2).
 */
export function timeLeftSwing(
  samples: readonly TimeLeftSample[],
  duration: number,
  left: (s: TimeLeftSample) => number | null
): { minS: number; maxS: number; ratio: number } | null {
  let lo = Infinity
  let hi = 0
  for (const s of samples) {
    const l = left(s)
    if (s.t < 0.1 * duration || l === null) continue
    lo = Math.min(lo, s.t + l)
    hi = Math.max(hi, s.t + l)
  }
  return hi > 0 ? { minS: round(lo, 1), maxS: round(hi, 1), ratio: round(hi / lo, 2) } : null
}
