/**
 * The sparse vector technique of a `when-fires` alarm (ALGORITHMS.md section 7; Lyu, Su, Li 2017, Alg. 1).
 *
 * The alarm's queries q_1, q_2, ... (one per predicate per period, in period order, then predicate order) have
 * sensitivity D together: one person moves every query by at most D. An instance with budget eps = eps1 + eps2 and c fires
 * draws rho ~ Lap(b1), b1 = D / eps1, once (`startInstance`); each query draws nu ~ Lap(b2), b2 = c D / eps2 for monotone
 * counts (2 c D / eps2 otherwise), and fires iff q + nu >= (t - a) + rho, a = alpha / 2 (`svtStep`). After c fires the
 * instance is over. The instance costs eps, whatever the number of quiet queries.
 *
 * Accuracy (Z = nu - rho): a query at or over its threshold t is missed with P(Z < -a) = P(Z > a) = `svtTail(a, b1, b2)`,
 * one at least alpha under is flagged with P(Z >= alpha - a), the same number for a = alpha / 2. That is the bound for an
 * instance's rho drawn afresh. It does NOT hold for an alarm whose instances renew: the instance running at a given
 * query is selected by its own rho (instances with a low rho fire falsely and end early, so a high rho runs for longer),
 * and a high rho misses more. What holds for every query of every stream is the stream bound: with at most M instances
 * (M = floor(lifetime cap / eps)), the running rho is at most max(rho_1..rho_M) of M independent draws, which nu does not
 * depend on, so P(miss) <= P(max_k rho_k - nu > a) = `streamMissBound` (= `svtTail` at M = 1). It is attained up to
 * small terms by a stream that puts a long burst of queries just under their thresholds before the query: the burst ends
 * every instance whose rho is low, so the one still running has the largest rho, or the cap is spent and the alarm
 * pauses (and says so). `leastEpsilonSplitWithinCap` is the least eps for that bound; `leastEpsilonSplit` the least eps
 * for the per-instance bound (it holds for a single instance, and per instance on average, not per query of the stream).
 *
 * Pure and deterministic given its generator: a release passes the secure generator (the caller checks it with
 * `assertSecure`), a simulation a seeded one. Nothing here inspects a count beyond the comparison that decides a fire,
 * so nothing fails on the data.
 */
import { type Rng, laplace } from '../random'

/** What the analyst asks for: false-negative bound beta, width alpha, c fires per instance, sensitivity D = cap. */
export interface SvtAccuracy {
  beta: number
  alpha: number
  c: number
  sensitivity: number
  /** counts are monotone (adding a person never lowers a count): b2 = c D / eps2; otherwise 2 c D / eps2. Default true. */
  monotone?: boolean
}

/** An instance's budget split and what it guarantees. */
export interface SvtSplit {
  /** eps = eps1 + eps2, charged when an instance starts */
  eps: number
  eps1: number
  eps2: number
  /** a = alpha / 2: queries fire against t - a */
  shift: number
  /** Laplace scales of rho and of each nu */
  b1: number
  b2: number
  /** which bound the split meets: 'per-instance' (svtTail) or 'stream' (streamMissBound with `instances` instances) */
  bound: 'per-instance' | 'stream'
  /** instances the bound allows for: 1 for 'per-instance', floor(lifetime cap / eps) for 'stream' */
  instances: number
  /** the bound's value at this split (<= beta): P(miss) of a query at or over its threshold */
  missBound: number
  /** P(fire) of a query at least alpha under its threshold: equal to missBound since a = alpha / 2 (Z is symmetric) */
  falseFireBound: number
}

/** The parameters an instance runs with. */
export interface SvtParams {
  eps1: number
  eps2: number
  c: number
  sensitivity: number
  shift: number
  monotone?: boolean
}

/** State of a running instance (rho is secret: the caller seals it, and it never reaches output or logs). */
export interface SvtInstance {
  rho: number
  firesLeft: number
}

function positive(name: string, v: number): void {
  if (!(v > 0) || !Number.isFinite(v)) throw new RangeError(`${name} must be a positive finite number`)
}

function wholeAtLeast(name: string, v: number, min: number): void {
  if (!Number.isSafeInteger(v) || v < min) throw new RangeError(`${name} must be a whole number >= ${min}`)
}

function checkAccuracy(acc: SvtAccuracy): void {
  if (!(acc.beta > 0 && acc.beta < 0.5)) throw new RangeError('beta must lie in (0, 0.5)')
  positive('alpha', acc.alpha)
  wholeAtLeast('c', acc.c, 1)
  positive('sensitivity', acc.sensitivity)
}

/** Laplace scales (b1 of rho, b2 of each nu) of an instance. */
export function noiseScales(p: Pick<SvtParams, 'eps1' | 'eps2' | 'c' | 'sensitivity' | 'monotone'>): { b1: number; b2: number } {
  positive('eps1', p.eps1)
  positive('eps2', p.eps2)
  wholeAtLeast('c', p.c, 1)
  positive('sensitivity', p.sensitivity)
  return { b1: p.sensitivity / p.eps1, b2: ((p.monotone === false ? 2 : 1) * p.c * p.sensitivity) / p.eps2 }
}

/** -expm1(-y) / y, continuous at 0 (= 1); positive and at most 1 for y >= 0. */
function h(y: number): number {
  return y === 0 ? 1 : -Math.expm1(-y) / y
}

/**
 * P(Z > x), Z = nu - rho, nu ~ Lap(b2), rho ~ Lap(b1) independent. For x >= 0 and b1 != b2 it is
 * (b2^2 e^{-x/b2} - b1^2 e^{-x/b1}) / (2 (b2^2 - b1^2)), and (1/2) e^{-x/b} (1 + x / (2b)) for b1 = b2 = b. Computed in the
 * form (1/2) e^{-x/hi} (1 + x lo h(x (hi - lo) / (lo hi)) / (hi (lo + hi))), lo <= hi the two scales (Z's law is symmetric
 * in them), h(y) = (1 - e^{-y}) / y, which has no cancellation as b1 -> b2 and is the b1 = b2 formula at h(0) = 1.
 * For x < 0: 1 - P(Z > -x) (Z is symmetric). Decreasing in x, increasing in each scale for x >= 0.
 */
export function svtTail(x: number, b1: number, b2: number): number {
  positive('b1', b1)
  positive('b2', b2)
  if (Number.isNaN(x)) throw new RangeError('x must be a number')
  if (x < 0) return 1 - svtTail(-x, b1, b2)
  if (x === Infinity) return 0
  const lo = Math.min(b1, b2)
  const hi = Math.max(b1, b2)
  return 0.5 * Math.exp(-x / hi) * (1 + (x * lo * h((x * (hi - lo)) / (lo * hi))) / (hi * (lo + hi)))
}

// Gauss-Kronrod 7-15 nodes and weights on [-1, 1] (QUADPACK qk15): Kronrod nodes xgk[0..7] (xgk[7] = 0), the Gauss nodes
// being xgk[1], xgk[3], xgk[5], xgk[7].
const XGK = [
  0.9914553711208126, 0.9491079123427585, 0.8648644233597691, 0.7415311855993945, 0.5860872354676911, 0.4058451513773972, 0.20778495500789848, 0
]
const WGK = [
  0.022935322010529224, 0.06309209262997856, 0.10479001032225019, 0.14065325971552592, 0.1690047266392679, 0.19035057806478542, 0.20443294007529889,
  0.20948214108472782
]
const WG = [0.1294849661688697, 0.27970539148927664, 0.3818300505051189, 0.4179591836734694]

/** Adaptive Gauss-Kronrod 7-15 of f over [lo, hi], to an absolute error of about tol per unit length. */
function integrate(f: (x: number) => number, lo: number, hi: number, tol: number, depth = 0): number {
  const mid = 0.5 * (lo + hi)
  const half = 0.5 * (hi - lo)
  let k = WGK[7] * f(mid)
  let g = WG[3] * f(mid)
  for (let j = 0; j < 7; j++) {
    const dx = half * XGK[j]
    const s = f(mid - dx) + f(mid + dx)
    k += WGK[j] * s
    if (j % 2 === 1) g += WG[(j - 1) / 2] * s
  }
  k *= half
  g *= half
  if (Math.abs(k - g) <= tol * (hi - lo) || depth >= 40) return k
  return integrate(f, lo, mid, tol, depth + 1) + integrate(f, mid, hi, tol, depth + 1)
}

/**
 * The stream bound: P(max(rho_1..rho_M) - nu > a), rho_k ~ Lap(b1) independent, nu ~ Lap(b2) independent of them. It bounds
 * the probability that a query at or over its threshold is missed while an instance runs, at every query of every stream
 * of an alarm that runs at most M instances (see the file's comment). At M = 1 it is svtTail(a, b1, b2). Increasing in M
 * and in each scale, decreasing in a. Computed by adaptive quadrature over nu's law (absolute error below 1e-13; at M = 1
 * it agrees with the closed form, which the unit tests check).
 */
export function streamMissBound(p: { shift: number; b1: number; b2: number; instances: number }): number {
  const { shift: a, b1, b2, instances: m } = p
  positive('b1', b1)
  positive('b2', b2)
  wholeAtLeast('instances', m, 1)
  if (!Number.isFinite(a) || a < 0) throw new RangeError('shift must be a finite number >= 0')
  // P(W > w), W = max of m draws of Lap(b1): 1 - F(w)^m, without cancellation on either side of 0.
  const over = (w: number): number => {
    if (w >= 0) return -Math.expm1(m * Math.log1p(-0.5 * Math.exp(-w / b1)))
    return -Math.expm1(m * Math.log(0.5 * Math.exp(w / b1)))
  }
  // P(W - nu > a) = E over y = -nu ~ Lap(b2) of P(W > a - y). Half y < 0: y = b2 ln t, density dt / 2 on (0, 1). Half
  // y > 0: y = -b2 ln t, split at t* = e^{-a / b2} where a - y crosses 0 (the kink of W's law).
  const tol = 1e-14
  const neg = integrate((t) => over(a - b2 * Math.log(t)), 0, 1, tol)
  const tStar = Math.exp(-a / b2)
  const posFar = tStar > 0 ? integrate((t) => over(a + b2 * Math.log(t)), 0, tStar, tol) : 0
  const posNear = integrate((t) => over(a + b2 * Math.log(t)), tStar, 1, tol)
  return Math.min(1, 0.5 * (neg + posFar + posNear))
}

/** The miss bound for M instances at scales (b1, b2): the closed form at M = 1, the quadrature above otherwise. */
function missBoundAt(a: number, b1: number, b2: number, m: number): number {
  return m === 1 ? svtTail(a, b1, b2) : streamMissBound({ shift: a, b1, b2, instances: m })
}

const logistic = (s: number): number => 1 / (1 + Math.exp(-s))

/**
 * The split r = eps1 / eps in (0, 1) with the least bound at total eps (m instances): a grid over logit(r) in [-12, 12],
 * then golden-section search in the best cell's two neighbours (the bound is unimodal in r: it rises as either scale grows).
 */
function bestSplitAt(eps: number, m: number, a: number, d: number, cScale: number): { r: number; bound: number } {
  const f = (s: number): number => {
    const r = logistic(s)
    return missBoundAt(a, d / (r * eps), (cScale * d) / ((1 - r) * eps), m)
  }
  const step = 0.25
  let bestS = 0
  let best = Infinity
  for (let s = -12; s <= 12; s += step) {
    const v = f(s)
    if (v < best) {
      best = v
      bestS = s
    }
  }
  let lo = bestS - step
  let hi = bestS + step
  const g = (Math.sqrt(5) - 1) / 2
  let x1 = hi - g * (hi - lo)
  let x2 = lo + g * (hi - lo)
  let f1 = f(x1)
  let f2 = f(x2)
  for (let it = 0; it < 60 && hi - lo > 1e-12; it++) {
    if (f1 <= f2) {
      hi = x2
      x2 = x1
      f2 = f1
      x1 = hi - g * (hi - lo)
      f1 = f(x1)
    } else {
      lo = x1
      x1 = x2
      f1 = f2
      x2 = lo + g * (hi - lo)
      f2 = f(x2)
    }
  }
  const sBest = f1 <= f2 ? x1 : x2
  const v = Math.min(f1, f2)
  return v <= best ? { r: logistic(sBest), bound: v } : { r: logistic(bestS), bound: best }
}

/**
 * Least eps over the split for the miss bound with instances(eps) instances (1, or floor(cap / eps)), both monotone in eps.
 * `lo` must be infeasible or the answer, `hi` feasible. Coarse: bisection on eps with the best split at each eps, to 1e-12
 * relative. Exact: at the split taken, bisection on eps to the last representable step (eps feasible, the double below not).
 */
function leastEps(acc: SvtAccuracy, instances: (eps: number) => number, lo: number, hi: number): SvtSplit | null {
  const a = acc.alpha / 2
  const d = acc.sensitivity
  const cScale = (acc.monotone === false ? 2 : 1) * acc.c
  const ok = (eps: number): boolean => instances(eps) >= 1 && bestSplitAt(eps, instances(eps), a, d, cScale).bound <= acc.beta
  if (!ok(hi)) return null
  if (ok(lo)) hi = lo
  else {
    while (hi / lo - 1 > 1e-12) {
      const mid = lo + (hi - lo) / 2
      if (mid <= lo || mid >= hi) break
      if (ok(mid)) hi = mid
      else lo = mid
    }
  }
  const { r } = bestSplitAt(hi, instances(hi), a, d, cScale)
  const at = (eps: number): { eps1: number; eps2: number; m: number; bound: number } => {
    const eps1 = r * eps
    const eps2 = eps - eps1
    const m = instances(eps)
    const bound = m >= 1 && eps1 > 0 && eps2 > 0 ? missBoundAt(a, d / eps1, (cScale * d) / eps2, m) : Infinity
    return { eps1, eps2, m, bound }
  }
  // hi is feasible at r (bestSplitAt(hi) found r); lo is infeasible at every split, so at r too.
  if (at(hi).bound > acc.beta) return null
  for (;;) {
    const mid = lo + (hi - lo) / 2
    if (mid <= lo || mid >= hi) break
    if (at(mid).bound <= acc.beta) hi = mid
    else lo = mid
  }
  const s = at(hi)
  return {
    eps: hi,
    eps1: s.eps1,
    eps2: s.eps2,
    shift: a,
    b1: d / s.eps1,
    b2: (cScale * d) / s.eps2,
    bound: 'per-instance',
    instances: s.m,
    missBound: s.bound,
    falseFireBound: s.bound
  }
}

/** A bracket [lo, hi] with lo infeasible and hi feasible for the per-instance bound. */
function perInstanceBracket(acc: SvtAccuracy): [number, number] {
  const a = acc.alpha / 2
  const cScale = (acc.monotone === false ? 2 : 1) * acc.c
  const ok = (eps: number): boolean => bestSplitAt(eps, 1, a, acc.sensitivity, cScale).bound <= acc.beta
  let hi = 1
  while (!ok(hi)) hi *= 2
  let lo = hi / 2
  while (ok(lo)) lo /= 2
  return [lo, hi]
}

/**
 * The least eps = eps1 + eps2 whose per-instance miss bound svtTail(alpha / 2, b1, b2) is at most beta (a = alpha / 2),
 * with its split. This is the bound of one instance (a rho drawn afresh); an alarm that renews instances is bounded by
 * `leastEpsilonSplitWithinCap` instead.
 */
export function leastEpsilonSplit(acc: SvtAccuracy): SvtSplit {
  checkAccuracy(acc)
  const [lo, hi] = perInstanceBracket(acc)
  const s = leastEps(acc, () => 1, lo, hi)
  if (s === null) throw new Error('leastEpsilonSplit: no feasible split (unreachable: the bracket is feasible)')
  return s
}

/**
 * The least eps whose stream bound is at most beta for an alarm that may run M = floor(lifetimeCap / eps) instances:
 * the bound that holds at every query of every stream while an instance runs. Null when no eps within the cap meets it
 * (the cap is below one instance's per-instance least eps).
 */
export function leastEpsilonSplitWithinCap(acc: SvtAccuracy & { lifetimeCap: number }): SvtSplit | null {
  checkAccuracy(acc)
  positive('lifetimeCap', acc.lifetimeCap)
  const cap = acc.lifetimeCap
  const per = leastEpsilonSplit(acc)
  if (per.eps > cap) return null
  const s = leastEps(acc, (eps) => Math.floor(cap / eps), per.eps, cap)
  return s === null ? null : { ...s, bound: 'stream' }
}

/**
 * The bounds an instance's parameters guarantee: per instance (a fresh rho) and for the stream of an alarm with the given
 * lifetime cap (instances = floor(cap / eps)). `stream` is the one to state for an alarm; `perInstance` only for one
 * instance in isolation.
 */
export function guaranteedMissBound(p: SvtParams & { lifetimeCap: number }): {
  perInstance: number
  stream: number
  instances: number
  falseFireStream: number
} {
  const { b1, b2 } = noiseScales(p)
  positive('lifetimeCap', p.lifetimeCap)
  if (!Number.isFinite(p.shift) || p.shift < 0) throw new RangeError('shift must be a finite number >= 0')
  const instances = Math.max(1, Math.floor(p.lifetimeCap / (p.eps1 + p.eps2)))
  const stream = streamMissBound({ shift: p.shift, b1, b2, instances })
  return { perInstance: svtTail(p.shift, b1, b2), stream, instances, falseFireStream: stream }
}

/** Start an instance: rho ~ Lap(D / eps1). A release passes the secure generator; rho is sealed by the caller. */
export function startInstance(rng: Rng, p: { eps1: number; sensitivity: number }): { rho: number } {
  positive('eps1', p.eps1)
  positive('sensitivity', p.sensitivity)
  return { rho: laplace(rng, p.sensitivity / p.eps1) }
}

/**
 * One period's queries, in predicate order, against the running instance: query j fires iff
 * counts[j] + nu_j >= thresholds[j] - shift + rho, nu_j ~ Lap(b2) fresh. Stops after the instance's last fire:
 * `next` is the index of the first query not evaluated (counts.length when all were), which the caller evaluates with
 * the next instance if the lifetime cap allows. Returns the fired indexes (ascending) and the fires left.
 */
export function svtStep(
  rng: Rng,
  state: SvtInstance,
  counts: ArrayLike<number>,
  thresholds: ArrayLike<number>,
  params: SvtParams
): { fired: number[]; firesLeft: number; next: number } {
  const { b2 } = noiseScales(params)
  if (counts.length !== thresholds.length) throw new RangeError('counts and thresholds must have the same length')
  wholeAtLeast('firesLeft', state.firesLeft, 0)
  if (state.firesLeft > params.c) throw new RangeError('firesLeft must be at most c')
  if (!Number.isFinite(state.rho)) throw new RangeError('rho must be a finite number')
  if (!Number.isFinite(params.shift) || params.shift < 0) throw new RangeError('shift must be a finite number >= 0')
  for (let j = 0; j < thresholds.length; j++) if (!Number.isFinite(thresholds[j])) throw new RangeError('thresholds must be finite numbers')
  const fired: number[] = []
  let firesLeft = state.firesLeft
  let j = 0
  for (; j < counts.length && firesLeft > 0; j++) {
    if (counts[j] + laplace(rng, b2) >= thresholds[j] - params.shift + state.rho) {
      fired.push(j)
      firesLeft--
    }
  }
  return { fired, firesLeft, next: j }
}
