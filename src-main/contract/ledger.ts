/** Contract methods of the ledger area (issue 6). Add each method here and to `ledgerMethodNames`. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface LedgerMethods {}

export const ledgerMethodNames: Record<keyof LedgerMethods, true> = {}
