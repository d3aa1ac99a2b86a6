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
