import { afterEach, describe, expect, it, vi } from 'vitest'
import type { JobProgress } from '../../../src-main/contract'
import { EventHub } from '../../../src-main/services/platform/events'
import { type JobContext, JobRegistry } from '../../../src-main/services/platform/job-registry'
import { TimeLeftEstimator, rateForTimeLeft, roundedTimeLeft } from '../../../src-main/services/platform/time-left'
import { searchTrialCost } from '../../../src-main/services/experiments/engines/search'
import { loadNabPreset } from '../../../src-main/cli/commands/search'

/**
 * The binary-search Fig. 2 preset (two NAB series x three oracles x eps 0.25..4, 100 trials per cell, tau 0.5) replayed
 * on two simulated workers. The cost of a trial is its recorded mean number of rounds times the individuals: the means
 * below were measured with the engine (5 runs per cell, seed "x", 2026-11-23), so they are independent of the cost model
 * the estimator weights the trials with (searchTrialCost), which is off from them by 0.44-1.03 depending on the cell.
 */
const EPS = [0.25, 0.5, 1, 2, 4]
const RECORDED: Record<string, Record<string, number[]>> = {
  nyc_taxi: { rr: [730, 276, 71, 25, 13], binary: [12156, 3514, 922, 319, 76], direct: [7242, 1597, 516, 144, 51] },
  ec2_request_latency_system_failure: { rr: [588, 203, 46, 20, 12], binary: [329, 136, 31, 17, 12], direct: [198, 81, 27, 13, 12] }
}
const NS_PER_INDIVIDUAL_ROUND = 8
const TRIALS = 100
const PER_BATCH = 25
const WORKERS = 2
const EVENT_EVERY_S = 0.15

interface SimBatch {
  seconds: number
  trials: number
  cost: number
}

/** recorded mean rounds / the cost model's rounds, per cell (filled by fig2Batches) */
const ratios: number[] = []

function fig2Batches(): SimBatch[] {
  const out: SimBatch[] = []
  let k = 0
  for (const [series, byOracle] of Object.entries(RECORDED)) {
    const p = loadNabPreset(`resources/data/nab/${series}.csv`, process.cwd())
    let nearest = -Infinity
    for (let i = 0; i < p.scores.length; i++) if (i !== p.anomaly && p.scores[i] > nearest) nearest = p.scores[i]
    const w = { scores: p.scores, anomaly: p.anomaly, tLow: p.tLow, tHigh: p.tHigh, nearest }
    for (const [oracle, rounds] of Object.entries(byOracle)) {
      EPS.forEach((eps, j) => {
        const model = searchTrialCost(oracle, { eps, tau: 0.5, delta: 'none', b: 'none', top: 4, max_queries: 'none' }, w)
        ratios.push((rounds[j] + 1) / (model / p.scores.length))
        for (let first = 0; first < TRIALS; first += PER_BATCH) {
          // Batches of one cell differ (the runs' lengths vary): a fixed spread of +-30 %.
          const spread = 0.7 + 0.6 * ((k++ * 0.618034) % 1)
          out.push({
            seconds: (PER_BATCH * (rounds[j] + 1) * p.scores.length * NS_PER_INDIVIDUAL_ROUND * spread) / 1e9,
            trials: PER_BATCH,
            cost: PER_BATCH * model
          })
        }
      })
    }
  }
  return out
}

interface Event {
  t: number
  trialsDone: number
  workDone: number
}

/** Batches taken in order by the first free worker; a progress event every 0.15 s (in-flight batches pro rata). */
function replay(batches: SimBatch[]): { events: Event[]; duration: number; trialsTotal: number; workTotal: number } {
  const starts: number[] = []
  const free = new Array(WORKERS).fill(0)
  for (const b of batches) {
    const w = free.indexOf(Math.min(...free))
    starts.push(free[w])
    free[w] += b.seconds
  }
  const duration = Math.max(...free)
  const events: Event[] = []
  for (let t = EVENT_EVERY_S; t < duration; t += EVENT_EVERY_S) {
    let trialsDone = 0
    let workDone = 0
    batches.forEach((b, i) => {
      const f = Math.min(1, Math.max(0, (t - starts[i]) / b.seconds))
      trialsDone += Math.floor(f * b.trials)
      workDone += (b.cost * Math.floor(f * b.trials)) / b.trials
    })
    events.push({ t, trialsDone, workDone })
  }
  return { events, duration, trialsTotal: batches.reduce((a, b) => a + b.trials, 0), workTotal: batches.reduce((a, b) => a + b.cost, 0) }
}

/** max / min of (elapsed + time left) over the events after 10 % of the job's duration. */
function swing(events: Event[], duration: number, left: (e: Event) => number | null): { swing: number; worstVsTruth: number } {
  let lo = Infinity
  let hi = 0
  let worst = 1
  for (const e of events) {
    const l = left(e)
    if (e.t < 0.1 * duration || l === null) continue
    const predicted = e.t + l
    lo = Math.min(lo, predicted)
    hi = Math.max(hi, predicted)
    worst = Math.max(worst, predicted / duration, duration / predicted)
  }
  return { swing: hi / lo, worstVsTruth: worst }
}

describe('time left (shared estimator)', () => {
  const batches = fig2Batches()
  const { events, duration, trialsTotal, workTotal } = replay(batches)

  it('the replayed job is the Fig. 2 preset: 30 cells, 3,000 trials, cells of very different cost', () => {
    expect(batches.length).toBe(120)
    expect(trialsTotal).toBe(3000)
    const seconds = batches.map((b) => b.seconds)
    expect(Math.max(...seconds) / Math.min(...seconds)).toBeGreaterThan(1000)
    expect(duration).toBeGreaterThan(60)
  })

  it('the cost model (estimated rounds) is within 0.4-1.1 of the recorded means in every cell', () => {
    expect(ratios.length).toBe(30)
    for (const r of ratios) {
      expect(r).toBeGreaterThan(0.4)
      expect(r).toBeLessThan(1.1)
    }
  })

  it('the naive estimate (trials done per second) swings by more than 2x after 10 % of the job', () => {
    const naive = swing(events, duration, (e) => (e.trialsDone > 0 ? ((trialsTotal - e.trialsDone) * e.t) / e.trialsDone : null))
    expect(naive.swing).toBeGreaterThan(2)
  })

  it('the shared estimator, fed with cost-weighted work, stays within 2x after 10 % of the job (rounded as shown)', () => {
    const est = new TimeLeftEstimator(0)
    const shown = new Map<Event, number | null>()
    for (const e of events) {
      const l = est.update(e.t * 1000, e.workDone, workTotal)
      shown.set(e, l === null ? null : roundedTimeLeft(l))
    }
    const ours = swing(events, duration, (e) => shown.get(e) ?? null)
    expect(ours.swing).toBeLessThanOrEqual(2)
    expect(ours.worstVsTruth).toBeLessThanOrEqual(2)
    // It says something once 10 % is done.
    expect(events.filter((e) => e.t >= 0.1 * duration).every((e) => shown.get(e) !== null)).toBe(true)
  })

  it('fed with trial counts instead of weighted work, the same estimator would not keep the rule (the weights matter)', () => {
    const est = new TimeLeftEstimator(0)
    const r = swing(events, duration, (e) => est.update(e.t * 1000, e.trialsDone, trialsTotal))
    expect(r.swing).toBeGreaterThan(2)
  })

  it('says nothing before 1 % of the work and 1 s, 0 when done, and rounds as shown', () => {
    const est = new TimeLeftEstimator(0)
    expect(est.update(500, 50, 100)).toBeNull()
    expect(est.update(2000, 0.5, 100)).toBeNull()
    expect(est.update(4000, 50, 100)).toBeCloseTo(4, 6)
    expect(est.update(9000, 100, 100)).toBe(0)
    expect([0, 2, 43, 67, 94, 151, 1234, 5000].map(roundedTimeLeft)).toEqual([0, 5, 45, 70, 90, 180, 1260, 5100])
  })
})

/** Half the rounding step of a shown time left ("about 45 s" stands for 42.5-47.5 s). */
const halfStep = (shown: number) => (shown < 60 ? 5 : shown < 120 ? 10 : shown < 3600 ? 60 : 300) / 2

/** A sweep that slows down, as the walk saw: 2,000 trials/s for its first 3 s, then 1,000 trials/s (costlier cells). */
const slowingDone = (t: number) => (t <= 3 ? 2000 * t : 6000 + 1000 * (t - 3))

describe('the rate shown beside the time left (one pace)', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('agrees with the time left and what is left, also while the job slows down', () => {
    const est = new TimeLeftEstimator(0)
    const total = 54_600
    let checked = 0
    for (let t = 0.15; t < 20; t += 0.15) {
      const done = Math.floor(slowingDone(t))
      const left = est.update(t * 1000, done, total)
      const rate = rateForTimeLeft(left, total - done)
      if (left === null) {
        expect(rate).toBeUndefined()
        continue
      }
      // What a reader works out from the line "done of total · rate/s · about T left": (total - done) / rate = T.
      const implied = (total - done) / Math.round(rate!)
      expect(Math.abs(implied - left)).toBeLessThan(0.01 * left + 1e-6)
      expect(Math.abs(implied - roundedTimeLeft(left))).toBeLessThanOrEqual(halfStep(roundedTimeLeft(left)) + 0.01 * left)
      checked++
    }
    expect(checked).toBeGreaterThan(100)
  })

  it('is the measured rate (done / elapsed) on a steady job', () => {
    const est = new TimeLeftEstimator(0)
    const total = 100_000
    let rate: number | undefined
    for (let t = 0.15; t < 30; t += 0.15) rate = rateForTimeLeft(est.update(t * 1000, Math.floor(1500 * t), total), total - Math.floor(1500 * t))
    expect(rate).toBeGreaterThan(1500 * 0.99)
    expect(rate).toBeLessThan(1500 * 1.01)
  })

  it('says no rate while the time left is unknown, nor once nothing is left', () => {
    expect(rateForTimeLeft(null, 100)).toBeUndefined()
    expect(rateForTimeLeft(0, 100)).toBeUndefined()
    expect(rateForTimeLeft(10, 0)).toBeUndefined()
    expect(rateForTimeLeft(10, 100)).toBe(10)
  })

  it("every progress event of a job says a rate and a time left that agree with its counts (the job registry's events)", async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(0)
    const hub = new EventHub()
    const events: JobProgress[] = []
    hub.on((name, p) => {
      if (name === 'job/progress') events.push(p as JobProgress)
    })
    const jobs = new JobRegistry(hub)
    const job: { ctx?: JobContext; finish?: () => void } = {}
    const { jobId } = jobs.start('sweep', 'slowing sweep', 'trials', async (c) => {
      job.ctx = c
      await new Promise<void>((r) => (job.finish = r))
    })
    const total = 54_600
    for (let t = 0.15; t < 20; t += 0.15) {
      vi.setSystemTime(Math.round(t * 1000))
      const done = Math.floor(slowingDone(t))
      job.ctx!.progress(done, total, undefined, { workDone: done, workTotal: total })
    }
    job.finish!()
    await jobs.settled(jobId)
    const shown = events.filter((e) => e.rate !== undefined && e.etaSeconds !== null && e.done < e.total)
    expect(shown.length).toBeGreaterThan(100)
    for (const e of shown) {
      const implied = (e.total - e.done) / Math.round(e.rate!)
      expect(Math.abs(implied - e.etaSeconds!), `${e.done} of ${e.total} at ${e.rate} /s, about ${e.etaSeconds} s`).toBeLessThanOrEqual(
        halfStep(e.etaSeconds!) + 0.01 * implied
      )
    }
  })
})
