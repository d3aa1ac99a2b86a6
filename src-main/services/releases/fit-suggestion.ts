/**
 * Denials that say what would fit: "alpha >= 3.1 fits the 0.39 left". The nearest accuracy whose price fits
 * what the budgets leave, found by searching the PRICE alone: the price of a candidate comes from the question's
 * definition, the mechanism's price formula and public tables (the same computation as the preview's charge), and the
 * remainder from the ledger. Nothing here sees private data or a release's outcome: it is shown before any charge.
 *
 * Pure: the caller passes the price as a function of the one parameter being changed (all others fixed).
 */
import { formatCharge, formatRemaining } from '../../contract/format-epsilon'
import type { ReleaseKind } from '../../contract/release-kinds'

/** Which way weakens the accuracy (and lowers the price): a larger alpha or beta, or a smaller epsilon. */
export type Weaker = 'larger' | 'smaller'

export interface FitSearch {
  /** The value asked for (its price does not fit). */
  current: number
  /** The price in nano-epsilon of the question with this value (others fixed); monotone: never higher in the weaker direction. */
  priceNano: (value: number) => number
  /** What the budgets leave for this charge (nano-epsilon). */
  remainingNano: number
  weaker: Weaker
  /** The weaker side's bound, not reached (beta < 0.5; epsilon > 0). Default: 1e12 for 'larger', 0 for 'smaller'. */
  bound?: number
  /** Significant digits of the suggestion (default 2): the nearest such value in the weaker direction whose price fits. */
  digits?: number
}

export interface Fit {
  value: number
  priceNano: number
}

/** The smallest value >= x (up) or largest <= x (down) with `digits` significant digits. */
export function roundToDigits(x: number, digits: number, dir: 'up' | 'down'): number {
  if (x <= 0) return 0
  const step = 10 ** (Math.floor(Math.log10(x)) - digits + 1)
  const q = x / step
  // Cleaned of float noise (3.1 / 0.1 = 31.000000000000004 must stay 31).
  const n = Math.abs(q - Math.round(q)) < 1e-9 ? Math.round(q) : dir === 'up' ? Math.ceil(q) : Math.floor(q)
  return Number((n * step).toPrecision(digits + 1))
}

/** One step of `digits` significant digits further in the weaker direction from a value already so rounded. */
function nextRounded(x: number, digits: number, weaker: Weaker): number {
  const step = 10 ** (Math.floor(Math.log10(x)) - digits + 1)
  return roundToDigits(weaker === 'larger' ? x + step : Math.max(x - step, x / 10), digits, weaker === 'larger' ? 'up' : 'down')
}

/**
 * The nearest value, in the weaker direction from `current`, whose price fits `remainingNano`, rounded to `digits`
 * significant digits (so that the next such value in the stronger direction does not fit). Null when the current value
 * already fits, or when nothing before the bound fits.
 */
export function nearestFit(s: FitSearch): Fit | null {
  const digits = s.digits ?? 2
  const cache = new Map<number, number>()
  const price = (v: number) => {
    let p = cache.get(v)
    if (p === undefined) cache.set(v, (p = s.priceNano(v)))
    return p
  }
  const fits = (v: number) => price(v) <= s.remainingNano
  if (s.remainingNano < 0 || !(s.current > 0) || fits(s.current)) return null
  const larger = s.weaker === 'larger'
  const bound = s.bound ?? (larger ? 1e12 : 0)
  const inside = (v: number) => (larger ? v < bound : v > bound)
  // Bracket: `bad` does not fit, `good` does. Move geometrically toward the bound (halfway when the bound is finite and near).
  let bad = s.current
  let good: number | null = null
  for (let i = 0; i < 80 && good === null; i++) {
    let next = larger ? bad * 2 : bad / 2
    if (!inside(next) || (larger && bound < 1e12 && next > (bad + bound) / 2)) next = (bad + bound) / 2
    if (!inside(next) || next === bad) break
    if (fits(next)) good = next
    else bad = next
  }
  if (good === null) return null
  let ok: number = good
  for (let i = 0; i < 40 && Math.abs(ok - bad) > 1e-6 * Math.abs(ok); i++) {
    const mid: number = (ok + bad) / 2
    if (fits(mid)) ok = mid
    else bad = mid
  }
  // Round in the weaker direction; step on if float rounding in the price left it just outside.
  let v = roundToDigits(ok, digits, larger ? 'up' : 'down')
  for (let i = 0; i < 20 && inside(v) && !fits(v); i++) v = nextRounded(v, digits, s.weaker)
  if (!inside(v) || !fits(v) || v <= 0) return null
  return { value: v, priceNano: price(v) }
}

/** Nano-epsilon as decimal text (9 decimals). */
function nanoText(n: number): string {
  const neg = n < 0
  const s = String(Math.abs(n)).padStart(10, '0')
  return `${neg ? '-' : ''}${s.slice(0, -9)}.${s.slice(-9)}`
}

/** "alpha >= 3.1 fits the 0.39 left (price 0.37)" for one parameter. */
export function fitSentence(name: string, fit: Fit, weaker: Weaker, remainingNano: number): string {
  return `${name} ${weaker === 'larger' ? '>=' : '<='} ${fit.value} fits the ${formatRemaining(nanoText(remainingNano))} left (costs ${formatCharge(nanoText(fit.priceNano))})`
}

export interface FitSuggestionResult {
  /** One sentence per parameter that can fit, joined: "alpha >= 3.1 fits the 0.39 left (costs 0.37); or beta >= 0.32 at alpha 1 ...". */
  sentence: string
  fits: Array<{ param: 'alpha' | 'beta' | 'epsilon'; value: number; epsilonExact: string }>
}

/** The parameters a denial may suggest moving: a threshold's alpha and beta, anomaly identification's epsilon; other kinds none. */
type Params =
  | { kind: 'threshold'; alpha: number; beta: number }
  | { kind: 'anomaly-identification'; epsilon: number }
  | { kind: Exclude<ReleaseKind, 'threshold' | 'anomaly-identification'> }

/** What a kind adds to its denials (public inputs only: the definition, public tables, the ledger). */
export interface FitOptions {
  /**
   * Threshold questions: alpha stays below this (exclusive), so that the tolerance 2 alpha stays below every public
   * threshold judged; a suggestion past it would flag groups with nothing counted. `alphaWhy` says so in words.
   */
  alphaBelow?: number
  alphaWhy?: string
  /** Suggestions that need the query saved anew (e.g. fewer groups per person), each a phrase "... (costs ε x)". */
  alternatives?: (remainingNano: number) => string[]
}

/**
 * For a denied preview: the nearest accuracy that fits what is left, per parameter the analyst sets, within the kind's
 * limits (`options`), then what else would fit. `price` is the preview's own charge computation for other parameters
 * (throws or returns Infinity when they are not allowed).
 */
export function fitSuggestion<P extends Params>(
  params: P,
  remainingNano: number | null,
  price: (params: P) => number,
  options: FitOptions = {}
): FitSuggestionResult | null {
  if (remainingNano === null || remainingNano <= 0) return null
  const safe = (p: P) => {
    try {
      return price(p)
    } catch {
      return Infinity
    }
  }
  const fits: FitSuggestionResult['fits'] = []
  const parts: string[] = []
  if (params.kind === 'threshold') {
    const below = options.alphaBelow
    const a =
      below !== undefined && !(below > params.alpha)
        ? null
        : nearestFit({ current: params.alpha, weaker: 'larger', bound: below, remainingNano, priceNano: (alpha) => safe({ ...params, alpha }) })
    if (a) {
      fits.push({ param: 'alpha', value: a.value, epsilonExact: nanoText(a.priceNano) })
      parts.push(`${fitSentence('alpha', a, 'larger', remainingNano)} at beta ${params.beta}`)
    } else if (below !== undefined && options.alphaWhy) parts.push(`no alpha fits ${options.alphaWhy}`)
    const b = nearestFit({ current: params.beta, weaker: 'larger', bound: 0.5, remainingNano, priceNano: (beta) => safe({ ...params, beta }) })
    if (b) {
      fits.push({ param: 'beta', value: b.value, epsilonExact: nanoText(b.priceNano) })
      parts.push(`beta >= ${b.value} at alpha ${params.alpha} (costs ${formatCharge(nanoText(b.priceNano))})`)
    }
  } else if (params.kind === 'anomaly-identification') {
    const e = nearestFit({ current: params.epsilon, weaker: 'smaller', remainingNano, priceNano: (epsilon) => safe({ ...params, epsilon }) })
    if (e) {
      fits.push({ param: 'epsilon', value: e.value, epsilonExact: nanoText(e.priceNano) })
      parts.push(fitSentence('epsilon per record', e, 'smaller', remainingNano))
    }
  }
  for (const alt of options.alternatives?.(remainingNano) ?? []) parts.push(alt)
  if (parts.length === 0) return null
  if (fits.length === 0 && parts.every((p) => p.startsWith('no '))) return { sentence: `Nothing fits what is left: ${parts.join('; ')}.`, fits }
  return { sentence: `What fits: ${parts.join('; or ')}.`, fits }
}

/** How many points the trade-off curve has (alpha from 1/8 to 16 times the current one). */
const CURVE_FACTORS = [0.125, 0.25, 0.5, 1, 2, 4, 8, 16]

export interface TradeoffCurve {
  param: 'alpha'
  /** The current value (marked on the chart). */
  current: number
  /** The price at each value, priced like the preview; values the mechanism refuses are left out. */
  points: Array<{ value: number; epsilon: number }>
}

/**
 * See the trade-off before spending: the charge of a threshold question over a range of alphas around the
 * current one (beta and everything else fixed). Priced like the preview: from the definition, the mechanism's formula
 * and public tables only. Null for other kinds (anomaly identification states its ε directly).
 */
export function tradeoffCurve<P extends Params>(params: P, price: (params: P) => number): TradeoffCurve | null {
  if (params.kind !== 'threshold' || !(params.alpha > 0)) return null
  const points: TradeoffCurve['points'] = []
  for (const f of CURVE_FACTORS) {
    const value = f === 1 ? params.alpha : Number((params.alpha * f).toPrecision(3))
    try {
      const nano = price({ ...params, alpha: value })
      if (Number.isFinite(nano)) points.push({ value, epsilon: nano / 1e9 })
    } catch {
      // Outside what the mechanism accepts (e.g. above the eps-max): not drawn.
    }
  }
  return points.length >= 2 ? { param: 'alpha', current: params.alpha, points } : null
}
