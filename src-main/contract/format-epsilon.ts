/**
 * One rounding rule for every epsilon shown anywhere (UI, CLI, reports, denials): 6 significant digits, and the
 * direction says which side is safe to err on. A charge, a spend, a cost or a budget is rounded UP (a charge is never
 * shown below what it is); what is LEFT of a budget is rounded DOWN (never shown above). Rounding is monotone, so a
 * "spent at most" is never shown above its "charged", and a spend is never shown above its budget unless it truly is
 * (a budget frozen at exactly the spend shows the same figure).
 *
 * Pure and dependency-free: the renderer imports it through the contract; the services and the CLI import it directly.
 * Works on exact decimal text (the ledger's nano amounts as "2.302585093") or on numbers (read at 15 digits first, so
 * that a float's last-bit noise is not rounded up into a visible digit).
 */

export type EpsilonRounding = 'up' | 'down'

export const EPSILON_DIGITS = 6

const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/

/** Decimal text or a number as sign, significant digits (no leading zeros) and the power of ten of the first digit. */
function parse(x: number | string): { neg: boolean; digits: string; exp: number } | null {
  const text = typeof x === 'number' ? (Number.isFinite(x) ? x.toPrecision(15) : '') : x.trim()
  const m = DECIMAL.exec(text)
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) return null
  const int = m[2]
  const frac = m[3] ?? ''
  let digits = int + frac
  // The first digit of `digits` stands for 10^(int.length - 1 + e).
  let exp = int.length - 1 + Number(m[4] ?? 0)
  const lead = /^0*/.exec(digits)![0].length
  digits = digits.slice(lead).replace(/0+$/, '')
  exp -= lead
  return { neg: m[1] === '-', digits, exp }
}

/** Plain decimal text of digits d (first one at 10^exp), e.g. ("230259", 0) -> "2.30259"; exponent form when tiny. */
function render(neg: boolean, d: string, exp: number): string {
  if (d === '') return '0'
  const sign = neg ? '-' : ''
  if (exp < -6) return `${sign}${d[0]}${d.length > 1 ? '.' + d.slice(1) : ''}e${exp}`
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${d}`
  if (d.length <= exp + 1) return `${sign}${d}${'0'.repeat(exp + 1 - d.length)}`
  return `${sign}${d.slice(0, exp + 1)}.${d.slice(exp + 1)}`
}

/** Add one unit in the last place of a digit string; returns the digits and whether it carried into a new digit. */
function increment(d: string): { digits: string; carried: boolean } {
  const a = d.split('').map(Number)
  let i = a.length - 1
  while (i >= 0 && a[i] === 9) a[i--] = 0
  if (i < 0) return { digits: '1' + a.join(''), carried: true }
  a[i] += 1
  return { digits: a.join(''), carried: false }
}

/**
 * An epsilon at 6 significant digits, rounded in the safe direction: 'up' for charges, spends and budgets, 'down' for what
 * is left of a budget. Exact decimal text or a number; null, undefined or text that is not a number gives "—".
 */
export function formatEpsilon(x: number | string | null | undefined, rounding: EpsilonRounding = 'up', digits = EPSILON_DIGITS): string {
  if (x === null || x === undefined) return '—'
  if (typeof x === 'number' && Number.isNaN(x)) return '—'
  if (x === Infinity) return '∞'
  if (x === -Infinity) return '-∞'
  const p = parse(x)
  if (!p) return typeof x === 'string' ? x : '—'
  if (p.digits === '') return '0'
  let kept = p.digits.slice(0, digits)
  let exp = p.exp
  const dropped = p.digits.length > digits
  // Away from zero when rounding up a positive number or down a negative one.
  if (dropped && (rounding === 'up') !== p.neg) {
    const r = increment(kept)
    kept = r.digits.slice(0, digits)
    if (r.carried) exp += 1
  }
  return render(p.neg, kept.replace(/0+$/, ''), exp)
}

/** A charge, a spend or a budget (rounded up). */
export const formatCharge = (x: number | string | null | undefined): string => formatEpsilon(x, 'up')

/** What is left of a budget (rounded down). */
export const formatRemaining = (x: number | string | null | undefined): string => formatEpsilon(x, 'down')
