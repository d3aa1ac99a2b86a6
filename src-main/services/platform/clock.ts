/** The time every stored record carries: ISO 8601 in UTC, with milliseconds. */
export function nowIso(): string {
  return new Date().toISOString()
}
