/** Formatting shared by the screens. */
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

export function formatEpsilon(eps: number): string {
  return eps >= 100 ? eps.toFixed(0) : eps >= 1 ? eps.toFixed(3) : eps.toPrecision(3)
}

/** An epsilon as the ledger holds it (exact decimal text), shortened for reading. */
export function formatExact(exact: string | null | undefined): string {
  if (exact === null || exact === undefined) return '—'
  const n = Number(exact)
  if (!Number.isFinite(n)) return exact
  return n === 0 ? '0' : Number(n.toPrecision(6)).toString()
}

export function formatPercent(x: number | null | undefined, digits = 1): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '—'
  return `${(x * 100).toFixed(digits)}%`
}

export function formatNumber(x: number | null | undefined, precision = 4): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '—'
  return Number(x.toPrecision(precision)).toString()
}

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—'
  const d = new Date(iso)
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short' })
}
