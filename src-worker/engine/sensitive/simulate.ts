/**
 * Monte Carlo evaluation of the two AIQ mechanisms against the ground truth, in batches: trial t uses its own generator
 * seededRng(deriveSeed(seed, t)), so results do not depend on how trials are split across workers.
 * In each trial every queried record is answered once by each mechanism (in record order; for each record the DP draw
 * comes before the SP draw).
 */
import { deriveSeed, seededRng } from '../random'
import type { AiqTable } from './mechanism'

export interface GroupErrors {
  /** Wrong answers among the sensitive / non-sensitive queried records in this trial. */
  sensitiveErrors: number
  nonSensitiveErrors: number
  sensitiveTotal: number
  nonSensitiveTotal: number
}

export interface AiqTrialMetrics {
  trial: number
  dp: GroupErrors
  sp: GroupErrors
}

function emptyGroup(table: AiqTable): GroupErrors {
  let s = 0
  for (let i = 0; i < table.size; i++) s += table.sensitive[i]
  return { sensitiveErrors: 0, nonSensitiveErrors: 0, sensitiveTotal: s, nonSensitiveTotal: table.size - s }
}

/** Run trials [firstTrial, firstTrial + count). */
export function runAiqTrials(table: AiqTable, seed: string | number, firstTrial: number, count: number): AiqTrialMetrics[] {
  if (!Number.isInteger(firstTrial) || firstTrial < 0 || !Number.isInteger(count) || count < 0) {
    throw new RangeError('firstTrial and count must be whole numbers >= 0')
  }
  const out: AiqTrialMetrics[] = []
  for (let t = firstTrial; t < firstTrial + count; t++) {
    const rng = seededRng(deriveSeed(seed, t))
    const dp = emptyGroup(table)
    const sp = emptyGroup(table)
    for (let i = 0; i < table.size; i++) {
      const errDp = rng.next() < table.flipDp[i] ? 1 : 0
      const errSp = rng.next() < table.flipSp[i] ? 1 : 0
      if (table.sensitive[i]) {
        dp.sensitiveErrors += errDp
        sp.sensitiveErrors += errSp
      } else {
        dp.nonSensitiveErrors += errDp
        sp.nonSensitiveErrors += errSp
      }
    }
    out.push({ trial: t, dp, sp })
  }
  return out
}

export interface ErrorRates {
  /** Over all queried records; null when there are none. */
  errorRate: number | null
  errorRateSensitive: number | null
  errorRateNonSensitive: number | null
}

export interface AiqAggregate {
  trials: number
  dp: ErrorRates
  sp: ErrorRates
}

function rates(groups: GroupErrors[]): ErrorRates {
  let se = 0
  let ne = 0
  let st = 0
  let nt = 0
  for (const g of groups) {
    se += g.sensitiveErrors
    ne += g.nonSensitiveErrors
    st += g.sensitiveTotal
    nt += g.nonSensitiveTotal
  }
  // Group sizes are the same in every trial, so pooled rates equal the means of per-trial rates.
  return {
    errorRate: st + nt > 0 ? (se + ne) / (st + nt) : null,
    errorRateSensitive: st > 0 ? se / st : null,
    errorRateNonSensitive: nt > 0 ? ne / nt : null
  }
}

/** Means over trials of the per-trial error rates (any batches, any order). */
export function aggregateAiqTrials(metrics: readonly AiqTrialMetrics[]): AiqAggregate {
  return { trials: metrics.length, dp: rates(metrics.map((m) => m.dp)), sp: rates(metrics.map((m) => m.sp)) }
}

/** The exact expected error rates (means of the flip probabilities), per mechanism and group. */
export function exactErrorRates(table: AiqTable): { dp: ErrorRates; sp: ErrorRates } {
  const f = (flip: Float64Array): ErrorRates => {
    let s = 0
    let n = 0
    let st = 0
    for (let i = 0; i < table.size; i++) {
      if (table.sensitive[i]) {
        s += flip[i]
        st++
      } else n += flip[i]
    }
    const nt = table.size - st
    return {
      errorRate: table.size > 0 ? (s + n) / table.size : null,
      errorRateSensitive: st > 0 ? s / st : null,
      errorRateNonSensitive: nt > 0 ? n / nt : null
    }
  }
  return { dp: f(table.flipDp), sp: f(table.flipSp) }
}
