/**
 * Exact privacy arithmetic. Every epsilon the ledger stores is a whole number of nano-epsilon (1e-9), held as a JS
 * integer (safe up to 9e15 nano = 9 million epsilon) and summed exactly. Conversions round so that the ledger can only
 * over-state what was spent:
 * - a charge is rounded UP to the next nano-epsilon (`decimalToNano(.., 'up')`, `floatToNanoUp`);
 * - a budget is rounded DOWN (`decimalToNano(.., 'down')`);
 * - the epsilon handed to a mechanism is never larger than the charge (`epsilonAtMost`).
 */
import { EPSILON_DIGITS, formatEpsilon } from '../../contract/format-epsilon'

export const NANO_PER_EPSILON = 1_000_000_000
const NANO = 1_000_000_000n
/** Largest nano amount we accept for one entry (so that sums of many stay exact integers). */
export const MAX_NANO = 1e15

const DECIMAL = /^(\d+)(?:\.(\d*))?(?:e([+-]?\d+))?$|^\.(\d+)(?:e([+-]?\d+))?$/i

/**
 * A non-negative decimal (as typed, or a number's shortest round-trip text such as "0.1" or "1e-7") in nano-epsilon,
 * rounded up (charges) or down (budgets). Exact: no binary floating point is involved.
 */
export function decimalToNano(value: string | number, mode: 'up' | 'down'): number {
  const text = typeof value === 'number' ? numberText(value) : value.trim()
  const m = DECIMAL.exec(text)
  if (!m) throw new RangeError(`"${text}" is not a non-negative decimal number`)
  const intPart = m[1] ?? '0'
  const frac = m[2] ?? m[4] ?? ''
  const exp = Number(m[3] ?? m[5] ?? '0')
  // value = digits * 10^(exp - frac.length)
  const digits = BigInt((intPart + frac).replace(/^0+(?=\d)/, '') || '0')
  const shift = exp - frac.length + 9 // nano = digits * 10^shift
  let nano: bigint
  if (shift >= 0) nano = digits * 10n ** BigInt(shift)
  else {
    const div = 10n ** BigInt(-shift)
    nano = digits / div
    if (mode === 'up' && nano * div !== digits) nano += 1n
  }
  return checkedNano(nano)
}

function numberText(x: number): string {
  if (!Number.isFinite(x) || x < 0) throw new RangeError(`${x} is not a finite non-negative number`)
  return String(x)
}

function checkedNano(n: bigint): number {
  if (n > BigInt(MAX_NANO)) throw new RangeError('epsilon is too large to be recorded (more than 1,000,000)')
  return Number(n)
}

/** The exact value of a finite double as numerator / 2^shift (shift >= 0). */
function exactBinary(x: number): { num: bigint; shift: bigint } {
  const buf = new DataView(new ArrayBuffer(8))
  buf.setFloat64(0, x)
  const hi = buf.getUint32(0)
  const lo = buf.getUint32(4)
  const sign = hi >>> 31 ? -1n : 1n
  const expBits = (hi >>> 20) & 0x7ff
  let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo)
  let e: number
  if (expBits === 0) e = -1074
  else {
    mant |= 1n << 52n
    e = expBits - 1075
  }
  if (e >= 0) return { num: sign * (mant << BigInt(e)), shift: 0n }
  return { num: sign * mant, shift: BigInt(-e) }
}

function nextUp(x: number): number {
  if (x === 0) return Number.MIN_VALUE
  const buf = new DataView(new ArrayBuffer(8))
  buf.setFloat64(0, x)
  const bits = buf.getBigUint64(0)
  buf.setBigUint64(0, x > 0 ? bits + 1n : bits - 1n)
  return buf.getFloat64(0)
}

function nextDown(x: number): number {
  return -nextUp(-x)
}

/**
 * A computed epsilon (e.g. ln(1/(2 beta)) / alpha) in nano-epsilon, rounded up. The double is first moved up by 8 ulps,
 * which covers the rounding error of the few operations that computed it, then converted exactly and rounded up.
 */
export function floatToNanoUp(x: number): number {
  if (!Number.isFinite(x) || x < 0) throw new RangeError(`${x} is not a finite non-negative epsilon`)
  if (x === 0) return 0
  let y = x
  for (let i = 0; i < 8; i++) y = nextUp(y)
  const { num, shift } = exactBinary(y)
  const scaled = num * NANO
  const div = 1n << shift
  let q = scaled / div
  if (q * div !== scaled) q += 1n
  return checkedNano(q)
}

/** The largest double that is <= nano / 1e9 exactly: the epsilon a mechanism may use when `nano` was charged. */
export function epsilonAtMost(nano: number): number {
  let x = nano / NANO_PER_EPSILON
  for (;;) {
    const { num, shift } = exactBinary(x)
    // x <= nano/1e9  <=>  num * 1e9 <= nano * 2^shift
    if (num * NANO <= BigInt(nano) << shift) return x
    x = nextDown(x)
  }
}

/** Nano-epsilon as an exact decimal string without trailing zeros: 100000000 -> "0.1". */
export function nanoToDecimal(nano: number): string {
  const neg = nano < 0
  const s = String(Math.abs(nano)).padStart(10, '0')
  const int = s.slice(0, -9).replace(/^0+(?=\d)/, '')
  const frac = s.slice(-9).replace(/0+$/, '')
  return `${neg ? '-' : ''}${int}${frac ? '.' + frac : ''}`
}

/**
 * For display: nano-epsilon at the one rounding rule of contract/format-epsilon.ts (6 significant digits), rounded up
 * (charges, spend) or down (budgets, what remains), so that a display never understates a charge or overstates what is left.
 */
export function nanoToDisplay(nano: number, mode: 'up' | 'down' = 'up', digits = EPSILON_DIGITS): string {
  return formatEpsilon(nanoToDecimal(nano), mode, digits)
}

/** Nano-epsilon as a number for JSON responses (for display and charts; the ledger keeps the integer). */
export function nanoToNumber(nano: number): number {
  return nano / NANO_PER_EPSILON
}
