/**
 * The release path of the anomaly search: called by the release service with the secure generator (ALGORITHMS.md
 * section 4; ARCHITECTURE.md "Releases and the ledger"). Thresholds come from the user, never from the data.
 *
 * Returned: the top-|S| indices, their posterior snapped to a coarse grid (the posterior is a function of noisy values),
 * and, for the sealed ex-post record only, the number of queries, T eps and the rule that stopped the search. Never
 * returned: the noisy oracle answers, the rest of the posterior. The search keeps asking (and discarding) questions up
 * to the budget's cap after it stops, so its run time does not depend on when it stopped.
 * Charge: a budget is required, so the worst case floor(b/eps) eps is known before anything runs (data-independent).
 */
import { type Rng, assertSecure } from '../random'
import type { OracleKind } from './oracles'
import { privateBinarySearch } from './private-binary-search'
import { type HaltReason, queriesAllowedByBudget } from './halting'

export interface SearchReleaseRequest {
  epsilon: number
  tLow: number
  tHigh: number
  oracle: OracleKind
  /** total privacy budget b (required: it bounds the charge) */
  budget: number
  /** stop when max f > tau */
  tau?: number
  /** stop when the max log-odds exceed log(1/delta) */
  delta?: number
  /** |S| */
  top: number
  /** grid the shown posterior is rounded to (the release service passes the contract's one grid, 0.01) */
  posteriorGrid: number
  /**
   * Ask (and discard) questions after a posterior rule stopped the search, up to the most the budget allows, so that the
   * run time does not tell how many questions the answer used (default true).
   */
  padToBudget?: boolean
}

export interface SearchReleaseAnswer {
  top: number[]
  /** posterior of `top`, rounded to `posteriorGrid` */
  posterior: number[]
  posteriorGrid: number
  queries: number
  /** T eps actually spent (at most the charge) */
  privacyRisk: number
  haltedBy: HaltReason
  /** rounds computed, the padding to the budget's cap included (equal for every input of the same query) */
  rounds: number
}

/** The data-independent worst-case risk of a release: the most queries the budget allows, times eps. */
export function searchReleaseCharge(req: Pick<SearchReleaseRequest, 'epsilon' | 'budget'>): number {
  if (!(req.epsilon > 0) || !Number.isFinite(req.epsilon)) throw new RangeError(`epsilon must be positive and finite (got ${req.epsilon})`)
  if (!(req.budget > 0) || !Number.isFinite(req.budget)) throw new RangeError(`a release needs a positive, finite budget (got ${req.budget})`)
  return queriesAllowedByBudget(req.budget, req.epsilon) * req.epsilon
}

/** Round to a grid, printing no float noise digits (0.001 grid -> at most 3 decimals). */
export function snapToGrid(x: number, grid: number): number {
  if (!Number.isFinite(x)) throw new RangeError('cannot snap a value that is not a number')
  const decimals = Math.max(0, Math.ceil(-Math.log10(grid) - 1e-9))
  return Number((Math.round(x / grid) * grid).toFixed(decimals))
}

/**
 * The released top posterior at which a search's answer is a finding: the stopping rule's level (tau, or 1 / (1 + delta)
 * for the log-odds rule; the lower when both are set, 0.5 when neither), rounded down to the posterior grid, so that a
 * search stopped by its rule is conclusive and the verdict is a function of the released (snapped) posterior alone.
 */
export function verdictLevel(tau: number | undefined, delta: number | undefined, grid: number): number {
  const levels = [tau, delta === undefined ? undefined : 1 / (1 + delta)].filter((x): x is number => x !== undefined)
  const level = levels.length > 0 ? Math.min(...levels) : 0.5
  const decimals = Math.max(0, Math.ceil(-Math.log10(grid) - 1e-9))
  return Number((Math.floor(level / grid + 1e-9) * grid).toFixed(decimals))
}

export function releaseAnomalySearch(scores: ArrayLike<number>, req: SearchReleaseRequest, rng: Rng): SearchReleaseAnswer {
  assertSecure(rng)
  searchReleaseCharge(req)
  const grid = req.posteriorGrid
  if (!(grid > 0 && grid <= 0.1)) throw new RangeError(`posteriorGrid must be in (0, 0.1] (got ${grid})`)
  const r = privateBinarySearch(
    scores,
    {
      epsilon: req.epsilon,
      tLow: req.tLow,
      tHigh: req.tHigh,
      oracle: req.oracle,
      top: req.top,
      halting: { tau: req.tau, delta: req.delta, budget: req.budget },
      padToQueries: req.padToBudget === false ? 0 : queriesAllowedByBudget(req.budget, req.epsilon)
    },
    rng
  )
  return {
    top: r.top,
    posterior: r.topPosterior.map((p) => snapToGrid(Math.min(1, Math.max(0, p)), grid)),
    posteriorGrid: grid,
    queries: r.queries,
    privacyRisk: r.privacyRisk,
    haltedBy: r.haltedBy,
    rounds: r.rounds
  }
}
