import type { Migration } from '../migrations'

/** Experiments and their per-cell results (issue 7). null until written. */
export const migration004: Migration | null = null
