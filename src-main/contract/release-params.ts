/**
 * The release parameters' defaults and ranges, written once: the release kinds
 * (`src-main/services/releases/kinds/`), the CLI (`quiet-alarm release`) and the UI's release panel all read them here.
 * Plain data plus two small pure helpers, so that the renderer may import it. The engine keeps its own validation of
 * what it is handed (it imports nothing outside itself); these ranges are at least as strict as the engine's.
 */

/** A number's range: every bound given must hold (`integer`: a whole number). */
export interface NumberRange {
  integer?: boolean
  gt?: number
  ge?: number
  lt?: number
  le?: number
}

export const THRESHOLD_RELEASE_MECHANISMS = ['tslm', 'ppwlm', 'dppwlm'] as const
export const AIQ_RELEASE_MECHANISMS = ['dp', 'sp'] as const

export const RELEASE_PARAMS = {
  threshold: {
    mechanism: { default: 'tslm', choices: THRESHOLD_RELEASE_MECHANISMS },
    /**
     * Largest probability of missing a true violation. The UI's starting value; the CLI requires it. At least 1e-12:
     * below it ln(1/(2 beta)) and the steps' shares leave the doubles the mechanisms compute in.
     */
    beta: { start: 0.05, range: { ge: 1e-12, lt: 0.5 } },
    /** Sets the false-positive band (2 alpha for TSLM and PPWLM, wider for DPPWLM). The UI's starting value; the CLI requires it. */
    alpha: { start: 1, range: { ge: 1e-6, le: 1e9 } },
    /** At most the largest epsilon the ledger records (1,000,000). */
    epsMax: { range: { gt: 0, le: 1e6 } },
    /** At least 1e-12: the planned steps' ratio eps_m / eps1 and their noise scales stay finite. */
    eps1: { default: 1e-5, range: { ge: 1e-12 } },
    steps: { default: 4, range: { integer: true, ge: 2, le: 50 } },
    fineSteps: { default: 3, range: { integer: true, ge: 1, le: 50 } }
  },
  anomalyIdentification: {
    mechanism: { default: 'sp', choices: AIQ_RELEASE_MECHANISMS },
    /** Epsilon per record asked. The UI's starting value; the CLI requires it. */
    epsilon: { start: 1, range: { ge: 1e-9, le: 1e6 } }
  },
  anomalySearch: {
    /** From the saved query (the release takes no parameters). */
    epsilonPerQuery: { range: { gt: 0, le: 1e6 } },
    budget: { range: { gt: 0, le: 1e6 } },
    /** |S|, the individuals reported. */
    top: { default: 4, range: { integer: true, ge: 1, le: 1000 } },
    /** Halting threshold tau when neither tau nor delta is saved; a saved one is in (0, 1). */
    tau: { default: 0.5, range: { gt: 0, lt: 1 } },
    /** Or halt when the max log-odds exceed log(1/delta). */
    delta: { range: { gt: 0, lt: 1 } },
    /** The grid the released posterior is snapped to (ALGORITHMS.md section 4): coarse, far above float resolution. */
    posteriorGrid: 0.01
  }
} as const

/**
 * The person bound's defaults: near each record asked a person counts once (one row, one bin), so that on a
 * person-level dataset maxNeighbours counts persons, the charge equals the row-level one, and no row-level anomaly is
 * lost (the record's own bin is kept first). docs/anomaly-identification.md has the derivation.
 */
export const AIQ_PERSON_BOUND_DEFAULT = { rowsPerBin: 1, binsPerPerson: 1 } as const

/** True when `x` is a finite number within `range`. */
export function inRange(x: unknown, range: NumberRange): x is number {
  return (
    typeof x === 'number' &&
    Number.isFinite(x) &&
    (!range.integer || Number.isInteger(x)) &&
    (range.gt === undefined || x > range.gt) &&
    (range.ge === undefined || x >= range.ge) &&
    (range.lt === undefined || x < range.lt) &&
    (range.le === undefined || x <= range.le)
  )
}

/** The range in words, for "x must be ...": "a whole number from 2 to 50", "in (0, 0.5)", "a number > 0". */
export function rangeText(range: NumberRange): string {
  if (range.integer && range.ge !== undefined && range.le !== undefined) return `a whole number from ${range.ge} to ${range.le}`
  if (range.gt !== undefined && range.lt !== undefined) return `in (${range.gt}, ${range.lt})`
  const parts = [range.integer ? 'a whole number' : 'a number']
  if (range.gt !== undefined) parts.push(`> ${range.gt}`)
  if (range.ge !== undefined) parts.push(`>= ${range.ge}`)
  if (range.lt !== undefined) parts.push(`< ${range.lt}`)
  if (range.le !== undefined) parts.push(`<= ${range.le}`)
  return parts.join(' ')
}
