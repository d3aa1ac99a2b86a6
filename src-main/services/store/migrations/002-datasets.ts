import type { Migration } from '../migrations'

/** Datasets, their columns and saved query definitions (issue 6). null until written. */
export const migration002: Migration | null = null
