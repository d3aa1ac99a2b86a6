/**
 * Halting rules of the search (paper section 4.2, ALGORITHMS.md section 3). Any combination; the search stops at the first
 * rule that fires, checked before each query:
 * - tau: max_i f(i) > tau (paper: 0.5);
 * - delta: max_i log(f(i) / (1 - f(i))) > log(1/delta) (Burnashev-Zigangirov);
 * - budget: stop when (T+1) eps > b, so the total risk T eps never exceeds b;
 * - maxQueries: a hard cap on T (always present: the search must terminate even when no posterior rule can fire).
 */
export interface HaltingRules {
  tau?: number
  delta?: number
  budget?: number
  maxQueries?: number
}

export type HaltReason = 'tau' | 'delta' | 'budget' | 'maxQueries'

export const DEFAULT_MAX_QUERIES = 100_000

/** Relative slack so that e.g. 3 x 0.1 fits a budget of 0.3 despite binary floating point. */
const BUDGET_SLACK = 1e-9

export function validateHalting(h: HaltingRules): void {
  if (h.tau !== undefined && !(h.tau > 0 && h.tau < 1)) throw new RangeError(`tau must be in (0, 1) (got ${h.tau})`)
  if (h.delta !== undefined && !(h.delta > 0 && h.delta < 1)) throw new RangeError(`delta must be in (0, 1) (got ${h.delta})`)
  if (h.budget !== undefined && !(h.budget > 0 && Number.isFinite(h.budget)))
    throw new RangeError(`budget must be positive and finite (got ${h.budget})`)
  if (h.maxQueries !== undefined && !(Number.isInteger(h.maxQueries) && h.maxQueries >= 0)) {
    throw new RangeError(`maxQueries must be a non-negative whole number (got ${h.maxQueries})`)
  }
}

/** The largest number of queries the budget allows: max T with T eps <= b (up to float rounding). */
export function queriesAllowedByBudget(budget: number, eps: number): number {
  return Math.floor((budget / eps) * (1 + BUDGET_SLACK))
}

/** The most queries a search can make under these rules (data-independent; the worst-case charge is this times eps). */
export function maxQueriesOf(h: HaltingRules, eps: number): number {
  const cap = h.maxQueries ?? DEFAULT_MAX_QUERIES
  return h.budget === undefined ? cap : Math.min(cap, queriesAllowedByBudget(h.budget, eps))
}

/** Halting rules with their constants precomputed for one search. */
export interface PreparedHalting {
  tau: number | undefined
  /** log(1/delta), or undefined */
  logInvDelta: number | undefined
  /** queries the budget allows (Infinity without a budget) */
  budgetCap: number
  hardCap: number
}

export function prepareHalting(h: HaltingRules, eps: number): PreparedHalting {
  validateHalting(h)
  return {
    tau: h.tau,
    logInvDelta: h.delta === undefined ? undefined : Math.log(1 / h.delta),
    budgetCap: h.budget === undefined ? Infinity : queriesAllowedByBudget(h.budget, eps),
    hardCap: h.maxQueries ?? DEFAULT_MAX_QUERIES
  }
}

/**
 * Which rule halts now, if any. `maxProb` is max f, `logOddsMax` is log(max f / (1 - max f)), `queries` is T so far.
 * Posterior rules are checked first, so a search that converged exactly when its budget ran out reports 'tau'/'delta'.
 */
export function haltReason(h: PreparedHalting, maxProb: number, logOddsMax: number, queries: number): HaltReason | null {
  if (h.tau !== undefined && maxProb > h.tau) return 'tau'
  if (h.logInvDelta !== undefined && logOddsMax > h.logInvDelta) return 'delta'
  if (queries >= h.budgetCap) return 'budget'
  if (queries >= h.hardCap) return 'maxQueries'
  return null
}
