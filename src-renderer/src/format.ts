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
