/** Formatting shared by the screens. */
import { formatEpsilon as formatEpsilonRule, type EpsilonRounding } from '../../src-main/contract/format-epsilon'
import { formatLocalTime } from '../../src-main/contract/format-time'
import { mechanismSpec } from '../../src-main/contract/release-kinds'

export function formatCount(n: number): string {
  return new Intl.NumberFormat('en-US').format(n)
}

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return 'unknown'
  if (seconds < 1) return 'under a second'
  if (seconds < 90) return `${Math.round(seconds)} s`
  if (seconds < 5400) return `${Math.round(seconds / 60)} min`
  return `${(seconds / 3600).toFixed(1)} h`
}

/**
 * An epsilon by the one rounding rule (contract/format-epsilon.ts): 6 significant digits, charges and spends rounded up,
 * budgets and remainders rounded down. Exact decimal text (as the ledger holds it) or a number.
 */
export function formatEpsilon(eps: number | string | null | undefined, rounding: EpsilonRounding = 'up'): string {
  return formatEpsilonRule(eps, rounding)
}

/** An epsilon as the ledger holds it (exact decimal text), shortened by the one rounding rule; 'down' for budgets and what is left. */
export function formatExact(exact: string | null | undefined, rounding: EpsilonRounding = 'up'): string {
  return formatEpsilonRule(exact, rounding)
}

export function formatNumber(x: number | null | undefined, precision = 4): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '—'
  return Number(x.toPrecision(precision)).toString()
}

/** When something happened, in the one format of the app and the reports, in the reader's zone: "26 Nov 2026, 04:06:15 UTC+1". */
export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—'
  return formatLocalTime(iso)
}

/** A threshold as the saved query gives it: whole numbers with separators, at most 3 decimals otherwise. */
export function formatThreshold(x: number): string {
  if (!Number.isFinite(x)) return '—'
  return new Intl.NumberFormat('en-US', { maximumFractionDigits: 3 }).format(x)
}

/** A probability on the released 0.01 grid ("0.62"). */
export function formatProbability(p: number): string {
  return Number.isFinite(p) ? p.toFixed(2) : '—'
}

const BYTE_UNITS: Array<[number, string]> = [
  [1e9, 'GB'],
  [1e6, 'MB'],
  [1e3, 'KB']
]

function byteUnitFor(n: number): [number, string] {
  for (const u of BYTE_UNITS) if (n >= u[0]) return u
  return [1, 'bytes']
}

function inUnit(n: number, [size, name]: [number, string]): string {
  if (size === 1) return `${formatCount(Math.round(n))} ${name}`
  const x = n / size
  const digits = x >= 100 ? 0 : x >= 10 ? 1 : 2
  return `${x.toFixed(digits)} ${name}`
}

/** Bytes in decimal units: "812 bytes", "254 KB", "3.21 MB", "1.20 GB". */
export function formatBytes(n: number): string {
  if (!Number.isFinite(n) || n < 0) return '—'
  return inUnit(n, byteUnitFor(n))
}

/** Bytes done of a total, both in the total's unit: "3.21 MB of 10.5 MB". */
export function formatBytesOf(done: number, total: number): string {
  if (!Number.isFinite(done) || !Number.isFinite(total) || total < 0) return '—'
  const u = byteUnitFor(total)
  return `${inUnit(Math.max(0, done), u)} of ${inUnit(total, u)}`
}

/** A release mechanism in words where it is shown (not its internal id); an unknown id as it is. */
export function mechanismName(m: string): string {
  return mechanismSpec(m)?.name ?? m
}
