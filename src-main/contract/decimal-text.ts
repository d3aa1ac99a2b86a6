/**
 * A non-negative decimal as people type it: "2.5", "10000000.0", "1e3", "1E-3", "+5", ".5", "5.". Used wherever an
 * exact decimal is asked (budgets are read digit by digit, never through a binary float).
 */
const ORDINARY_DECIMAL = /^\+?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i

/** The typed text as the ledger reads it (trimmed, without a leading "+"), or null when it is not a non-negative decimal. */
export function decimalText(raw: string): string | null {
  const t = raw.trim()
  return ORDINARY_DECIMAL.test(t) ? t.replace(/^\+/, '') : null
}
