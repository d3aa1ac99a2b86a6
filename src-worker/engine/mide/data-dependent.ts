/**
 * DPPWLM (Alg. 3 with Alg. 4 and Eq. 12 of the MIDE paper; ALGORITHMS.md section 1).
 *
 * Plan B = geometric levels eps_1 < ... < eps_m (as PPWLM). Step 1 uses eps_1 and beta/m. Each later step looks at the
 * planned levels not yet consumed: for the r-th remaining interval (B[u-1+r-1], B[u-1+r]] (u = levels consumed so far) it
 * tries m_f evenly spaced points; a point in interval r consumes r levels and takes beta*r/m of the false-negative
 * budget (so the budget used never exceeds beta). For each candidate eps it predicts how many undecided predicates stay
 * undecided (Eq. 12, closed form of the sum of two Laplace variables: the true count is treated as Laplace around the
 * last noisy value; rounded to a whole number, predicted-stay.ts), builds the predicted ex-post vector E' (predicted
 * decided -> candidate eps, the rest -> eps_m) and scores it by its min-entropy; the best score wins (ties -> the larger
 * eps, as Alg. 4's "<="). The step then relaxes the noise of the undecided predicates to the chosen eps. It stops when
 * nothing is undecided or when every planned level is consumed; the still undecided are reported positive at the last
 * eps used. Every eps used is <= eps_m (the charge).
 *
 * Deviations from the printed pseudo-code (which cannot run as printed): the loop stops when all planned levels are
 * consumed (Alg. 3's `while eps_j <= eps_m` would run a step with no candidates and overspend beta); the predicted
 * count |O_u| - n_u is rounded to the nearest whole number; the candidate's alpha uses that candidate's beta share.
 */
import { drawSampleWords, fillLaplace } from '../batch-samplers'
import type { Rng } from '../random'
import { type EpsLevel, minEntropyLevels } from './min-entropy'
import type { MechanismCore, StepRecord } from './outcome'
import { type ThresholdParams, geometricPlan } from './params'
import { StayPredictor } from './predicted-stay'
import { relaxInPlace } from './relax'
import { ThresholdWorkspace } from './workspace'

/** Node budget of the min-entropy search when it only scores a candidate (the reported ex-post min-entropy is exact). */
const SCORE_NODE_BUDGET = 20_000

const SCORE_MEMO_LIMIT = 1 << 16

/** A candidate's score; remembered by its exact level sequence (order, values, counts) when a memo is given. */
function scoreLevels(levels: readonly EpsLevel[], memo: Map<string, number> | undefined): number {
  if (memo === undefined) return minEntropyLevels(levels, { maxNodes: SCORE_NODE_BUDGET }).gamma
  let key = ''
  for (const l of levels) key += `${l.epsilon}:${l.count};`
  let v = memo.get(key)
  if (v === undefined) {
    v = minEntropyLevels(levels, { maxNodes: SCORE_NODE_BUDGET }).gamma
    if (memo.size < SCORE_MEMO_LIMIT) memo.set(key, v)
  }
  return v
}

export interface NextStepChoice {
  epsilon: number
  /** planned levels consumed by this step */
  levelsUsed: number
  beta: number
  alpha: number
  score: number
}

/**
 * Alg. 4: choose the next eps among the fine grid of the remaining planned levels.
 * `plan` holds the planned eps levels, `consumed` how many are used up (>= 1), `cur` the eps of the last step.
 */
export function chooseNextStep(
  plan: readonly number[],
  consumed: number,
  cur: number,
  undecided: ArrayLike<number>,
  noisy: ArrayLike<number>,
  thresholds: ArrayLike<number>,
  decidedLevels: ReadonlyMap<number, number>,
  beta: number,
  fineSteps: number,
  scoreMemo?: Map<string, number>
): NextStepChoice {
  const m = plan.length
  const epsM = plan[m - 1]
  const nU = undecided.length
  const fixed: EpsLevel[] = [...decidedLevels].map(([epsilon, count]) => ({ epsilon, count }))
  let best: NextStepChoice | null = null
  const predictor = new StayPredictor(undecided, noisy, thresholds, cur)
  for (let r = 1; r <= m - consumed; r++) {
    const lo = plan[consumed + r - 2]
    const hi = plan[consumed + r - 1]
    const betaC = (beta * r) / m
    for (let s = 1; s <= fineSteps; s++) {
      const eps = s === fineSteps ? hi : lo + ((hi - lo) * s) / fineSteps
      if (!(eps > cur)) continue
      const alpha = Math.log(1 / (2 * betaC)) / eps
      const stay = predictor.stay(alpha, eps)
      const levels = fixed.concat([
        { epsilon: eps, count: nU - stay },
        { epsilon: epsM, count: stay }
      ])
      const score = scoreLevels(levels, scoreMemo)
      if (best === null || score >= best.score) best = { epsilon: eps, levelsUsed: r, beta: betaC, alpha, score }
    }
  }
  if (best === null) throw new Error('DPPWLM: no candidate step (no planned level left)')
  return best
}

export function runDppwlm(
  counts: ArrayLike<number>,
  thresholds: ArrayLike<number>,
  params: ThresholdParams,
  rng: Rng,
  ws: ThresholdWorkspace = new ThresholdWorkspace(counts.length)
): MechanismCore {
  const k = counts.length
  const plan = geometricPlan(params).map((s) => s.epsilon)
  const m = plan.length
  const { decisions, exPost, noise, noisy } = ws
  decisions.fill(0, 0, k)
  const steps: StepRecord[] = []
  const levels: EpsLevel[] = []
  const decidedLevels = new Map<number, number>()

  // Step 1: eps_1, beta/m; the k Laplace values in one batch.
  let cur = plan[0]
  let betaStep = params.beta / m
  let alpha = Math.log(1 / (2 * betaStep)) / cur
  let nU = 0
  {
    let pos = 0
    let neg = 0
    fillLaplace(rng, 1 / cur, noise, k)
    const next = ws.next
    for (let i = 0; i < k; i++) {
      const g = counts[i] + noise[i]
      noisy[i] = g
      if (g > thresholds[i] + alpha) {
        decisions[i] = 1
        exPost[i] = cur
        pos++
      } else if (g > thresholds[i] - alpha) next[nU++] = i
      else {
        exPost[i] = cur
        neg++
      }
    }
    ws.swapLists()
    if (pos + neg > 0) decidedLevels.set(cur, pos + neg)
    steps.push({ epsilon: cur, beta: betaStep, alpha, tested: k, decidedPositive: pos, eliminated: neg, undecided: nU })
  }
  let consumed = 1
  while (nU > 0 && consumed < m) {
    const undecided = ws.undecided
    const choice = chooseNextStep(
      plan,
      consumed,
      cur,
      undecided.subarray(0, nU),
      noisy,
      thresholds,
      decidedLevels,
      params.beta,
      params.fineSteps,
      ws.scoreMemo
    )
    const eps = choice.epsilon
    betaStep = choice.beta
    alpha = choice.alpha
    relaxInPlace(noise, undecided, nU, cur, eps, drawSampleWords(rng, 4 * nU))
    const next = ws.next
    let nNext = 0
    let pos = 0
    let neg = 0
    for (let q = 0; q < nU; q++) {
      const i = undecided[q]
      const g = counts[i] + noise[i]
      noisy[i] = g
      if (g > thresholds[i] + alpha) {
        decisions[i] = 1
        exPost[i] = eps
        pos++
      } else if (g > thresholds[i] - alpha) next[nNext++] = i
      else {
        exPost[i] = eps
        neg++
      }
    }
    if (pos + neg > 0) decidedLevels.set(eps, (decidedLevels.get(eps) ?? 0) + pos + neg)
    steps.push({ epsilon: eps, beta: betaStep, alpha, tested: nU, decidedPositive: pos, eliminated: neg, undecided: nNext })
    ws.swapLists()
    nU = nNext
    cur = eps
    consumed += choice.levelsUsed
  }
  const undecided = ws.undecided
  for (let q = 0; q < nU; q++) {
    const i = undecided[q]
    decisions[i] = 1
    exPost[i] = cur
  }
  if (nU > 0) decidedLevels.set(cur, (decidedLevels.get(cur) ?? 0) + nU)
  for (const [epsilon, count] of decidedLevels) levels.push({ epsilon, count })
  return { decisions, exPost, steps, levels }
}
