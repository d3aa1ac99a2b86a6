import type { Migration } from '../migrations'

/** Budgets, releases, ledger entries (issue 6). null until written. */
export const migration003: Migration | null = null
