/** A number typed in a field: null when empty or not a finite number (pure: used by the forms' resolvers under Node). */
export function parseNumber(text: string): number | null {
  const t = text.trim()
  if (t === '') return null
  const n = Number(t)
  return Number.isFinite(n) ? n : null
}
