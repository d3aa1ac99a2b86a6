/**
 * Time left of a long job, shared by every job of the registry (sweeps, imports, reports).
 *
 * The job reports work done and total in its own units; sweeps weight each trial by a per-cell cost estimate (a search
 * trial costs its estimated rounds times the individuals, engines/search.ts), imports give bytes. Counting cells or
 * trials instead made the estimate swing whenever the job moved between cheap and expensive cells (the binary-search
 * Fig. 2 preset: between 40 s and 5 min).
 *
 * The estimate: the job's whole duration predicted as elapsed / (fraction of the work done), smoothed exponentially in
 * time with a time constant of a fifth of the elapsed time (at least 2 s), so one fast or slow stretch moves it little;
 * time left = smoothed duration - elapsed. Nothing is said before 1 % of the work and 1 s (null: "estimating").
 * `roundedTimeLeft` rounds it the way it is shown ("about 40 s", "about 3 min").
 */

const MIN_FRACTION = 0.01
const MIN_ELAPSED_S = 1
const MIN_TIME_CONSTANT_S = 2
const TIME_CONSTANT_SHARE = 0.2

export class TimeLeftEstimator {
  private smoothedTotal: number | null = null
  private lastMs: number

  constructor(private readonly startMs: number) {
    this.lastMs = startMs
  }

  /** Seconds left (not rounded), or null while too little is done to say. `done` and `total` are work units. */
  update(nowMs: number, done: number, total: number): number | null {
    const elapsed = Math.max(0, (nowMs - this.startMs) / 1000)
    if (!(total > 0) || !Number.isFinite(done)) return null
    const fraction = Math.min(1, Math.max(0, done / total))
    if (fraction >= 1) return 0
    if (fraction < MIN_FRACTION || elapsed < MIN_ELAPSED_S) {
      this.lastMs = nowMs
      return this.smoothedTotal === null ? null : Math.max(0, this.smoothedTotal - elapsed)
    }
    const predicted = elapsed / fraction
    if (this.smoothedTotal === null) this.smoothedTotal = predicted
    else {
      const dt = Math.max(0, (nowMs - this.lastMs) / 1000)
      const a = 1 - Math.exp(-dt / Math.max(MIN_TIME_CONSTANT_S, TIME_CONSTANT_SHARE * elapsed))
      this.smoothedTotal += a * (predicted - this.smoothedTotal)
    }
    this.lastMs = nowMs
    this.smoothedTotal = Math.max(this.smoothedTotal, elapsed)
    return this.smoothedTotal - elapsed
  }
}

/**
 * Rounded as shown: 5 s steps under a minute, 10 s steps under 2 min, whole minutes under an hour, then 5 min steps
 * (never 0 while work is left: at least 5 s).
 */
export function roundedTimeLeft(seconds: number): number {
  if (!(seconds > 0)) return 0
  const step = seconds < 60 ? 5 : seconds < 120 ? 10 : seconds < 3600 ? 60 : 300
  return Math.max(5, Math.round(seconds / step) * step)
}

/**
 * The rate a progress line shows beside its time left, taken from the same estimate so that the two always agree: units
 * left / seconds left, so "7,475 of 56,400 trials · R trials/s · about T left" has (56,400 - 7,475) / R = T up to the
 * rounding of T. On a steady job it is the measured rate (done / elapsed); when the estimate expects the work left to go
 * faster or slower per unit (cells of other costs), it is the rate that estimate stands for. Undefined while the time
 * left is unknown, and once nothing is left.
 */
export function rateForTimeLeft(secondsLeft: number | null, unitsLeft: number): number | undefined {
  return secondsLeft !== null && secondsLeft > 0 && unitsLeft > 0 ? unitsLeft / secondsLeft : undefined
}
