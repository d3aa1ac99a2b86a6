/**
 * An empirical privacy tester in the style of Google's DP stochastic tester: run a randomized release on two
 * neighbouring inputs many times, count how often an output event happens on each, and turn the counts into a lower
 * bound on epsilon that holds with probability at least 1 - alpha (Clopper-Pearson intervals on both proportions).
 * A mechanism that keeps its promise has true ratio at most e^eps, so the bound stays below the charge except with
 * probability alpha; the runs use a fixed seed, so a test is deterministic.
 */

/** ln Gamma(x) for x > 0 (Lanczos, g = 7, n = 9; relative error below 1e-13 in this range). */
export function lnGamma(x: number): number {
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012,
    9.9843695780195716e-6, 1.5056327351493116e-7
  ]
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - lnGamma(1 - x)
  const z = x - 1
  let a = c[0]
  const t = z + 7.5
  for (let i = 1; i < 9; i++) a += c[i] / (z + i)
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a)
}

/** Continued fraction of the incomplete beta function (modified Lentz). */
function betaCf(x: number, a: number, b: number): number {
  const tiny = 1e-300
  let c = 1
  let d = 1 - ((a + b) * x) / (a + 1)
  if (Math.abs(d) < tiny) d = tiny
  d = 1 / d
  let h = d
  for (let m = 1; m <= 10_000; m++) {
    const m2 = 2 * m
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2))
    d = 1 + aa * d
    if (Math.abs(d) < tiny) d = tiny
    c = 1 + aa / c
    if (Math.abs(c) < tiny) c = tiny
    d = 1 / d
    h *= d * c
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1))
    d = 1 + aa * d
    if (Math.abs(d) < tiny) d = tiny
    c = 1 + aa / c
    if (Math.abs(c) < tiny) c = tiny
    d = 1 / d
    const del = d * c
    h *= del
    if (Math.abs(del - 1) < 1e-15) return h
  }
  throw new Error('betaCf did not converge')
}

/** The regularized incomplete beta function I_x(a, b). */
export function betaInc(x: number, a: number, b: number): number {
  if (x <= 0) return 0
  if (x >= 1) return 1
  const lnFront = lnGamma(a + b) - lnGamma(a) - lnGamma(b) + a * Math.log(x) + b * Math.log(1 - x)
  if (x < (a + 1) / (a + b + 2)) return (Math.exp(lnFront) * betaCf(x, a, b)) / a
  return 1 - (Math.exp(lnFront) * betaCf(1 - x, b, a)) / b
}

/** The p-quantile of Beta(a, b), by bisection (I_x is increasing in x). */
export function betaQuantile(p: number, a: number, b: number): number {
  let lo = 0
  let hi = 1
  for (let i = 0; i < 200; i++) {
    const mid = (lo + hi) / 2
    if (betaInc(mid, a, b) < p) lo = mid
    else hi = mid
  }
  return (lo + hi) / 2
}

/** One-sided Clopper-Pearson bounds of a binomial proportion k/n, each holding with probability >= 1 - alpha. */
export function clopperPearson(k: number, n: number, alpha: number): { lo: number; hi: number } {
  return {
    lo: k === 0 ? 0 : betaQuantile(alpha, k, n - k + 1),
    hi: k === n ? 1 : betaQuantile(1 - alpha, k + 1, n - k)
  }
}

export interface EventCounts {
  /** runs on input A and how often the event happened */
  nA: number
  kA: number
  nB: number
  kB: number
}

/**
 * A lower bound on epsilon from the counts of one event E on inputs A and B: the largest of ln(P_A(E)/P_B(E)),
 * ln(P_B(E)/P_A(E)) and the same for the complement, each ratio bounded below by lower(numerator) / upper(denominator).
 * The four ratios share the error budget alpha (union bound), so the result is a valid bound with probability >= 1 - alpha.
 */
export function epsilonLowerBound(c: EventCounts, alpha: number): number {
  const a = alpha / 8
  const pa = clopperPearson(c.kA, c.nA, a)
  const pb = clopperPearson(c.kB, c.nB, a)
  const qa = clopperPearson(c.nA - c.kA, c.nA, a)
  const qb = clopperPearson(c.nB - c.kB, c.nB, a)
  const ratio = (lo: number, hi: number) => (lo <= 0 ? 0 : Math.log(lo / hi))
  return Math.max(0, ratio(pa.lo, pb.hi), ratio(pb.lo, pa.hi), ratio(qa.lo, qb.hi), ratio(qb.lo, qa.hi))
}

/** Runs each input n times and counts each event on the same runs. */
export function countEvents<T>(n: number, runA: () => T, runB: () => T, events: ReadonlyArray<(out: T) => boolean>): EventCounts[] {
  const kA = events.map(() => 0)
  const kB = events.map(() => 0)
  for (let i = 0; i < n; i++) {
    const a = runA()
    const b = runB()
    events.forEach((e, j) => {
      if (e(a)) kA[j]++
      if (e(b)) kB[j]++
    })
  }
  return events.map((_, j) => ({ nA: n, kA: kA[j], nB: n, kB: kB[j] }))
}

/** The largest lower bound over several events measured on the same runs; the events share alpha (union bound). */
export function epsilonLowerBoundOf(counts: EventCounts[], alpha: number): number {
  return Math.max(...counts.map((c) => epsilonLowerBound(c, alpha / counts.length)))
}

/** With QA_PRINT_BOUNDS=1, prints a measured bound beside its charge (for notes and docs/); silent otherwise. */
export function printBound(name: string | undefined, eps: number, charge: number): void {
  if (process.env.QA_PRINT_BOUNDS === '1') console.log(`[bound] ${name ?? '?'}: empirical eps >= ${eps.toFixed(3)}, charge ${charge.toFixed(3)}`)
}

/** P(K = k) for K ~ Binomial(n, p), k = 0..n (in logs, so that large n does not underflow the middle terms). */
function binomialPmf(n: number, p: number): number[] {
  const out = new Array<number>(n + 1).fill(0)
  const lp = Math.log(p)
  const lq = Math.log1p(-p)
  let lc = 0
  for (let k = 0; k <= n; k++) {
    if (k > 0) lc += Math.log(n - k + 1) - Math.log(k)
    out[k] = Math.exp(lc + k * lp + (n - k) * lq)
  }
  return out
}

/**
 * The power of the tester for one event, computed exactly: the probability, over n runs on each input where the event's
 * true proportions are pA and pB, that the bound ln(lower(pA) / upper(pB)) (Clopper-Pearson, each at `alpha`) exceeds
 * `target`. `epsilonLowerBound` takes the largest of this and three other ratios, so its power is at least this.
 */
export function lowerBoundPower(n: number, pA: number, pB: number, target: number, alpha: number): number {
  const fA = binomialPmf(n, pA)
  const fB = binomialPmf(n, pB)
  const tailA = new Array<number>(n + 2).fill(0)
  for (let k = n; k >= 0; k--) tailA[k] = tailA[k + 1] + fA[k]
  const lo = (k: number) => clopperPearson(k, n, alpha).lo
  let power = 0
  for (let kB = 0; kB <= n; kB++) {
    if (fB[kB] < 1e-15) continue
    const need = Math.exp(target) * clopperPearson(kB, n, alpha).hi
    if (need >= 1) continue
    // The least kA whose lower bound exceeds `need` (the lower bound grows with kA).
    let l = 0
    let h = n
    while (l < h) {
      const mid = (l + h) >> 1
      if (lo(mid) > need) h = mid
      else l = mid + 1
    }
    if (lo(l) > need) power += fB[kB] * tailA[l]
  }
  return power
}
