/**
 * How an officer act's author is shown, the same in the app and the CLI: the officer's name when an officer's key
 * signed the act; otherwise only the name that was recorded, said as such (anyone who can write the workspace file
 * could have written it). Pure and dependency-free: the renderer imports it through the contract.
 */

/** "by Dana" for a signed act; '(unsigned, recorded as "Dana")' for one no officer's key signed (`signed === false`). */
export function actedBy(a: { actor: string; signed?: boolean }): string {
  return a.signed === false ? `(unsigned, recorded as "${a.actor}")` : `by ${a.actor}`
}

/** The officer column of a budget change: the name for a signed act, '(unsigned, recorded as "Dana")' otherwise. */
export function actingOfficer(a: { actor: string; signed?: boolean }): string {
  return a.signed === false ? actedBy(a) : a.actor
}

/** The sentence every ledger view and `ledger verify` show while no officer is registered and unsigned acts are in force. */
export const unsignedActsText = (n: number) =>
  `NO OFFICER IS REGISTERED: ${n} budget and public ${n === 1 ? 'act' : 'acts'} in force ${n === 1 ? 'is' : 'are'} unsigned (anyone who can write the workspace file could have written ${n === 1 ? 'it' : 'them'}; only a receipt or an officer's key id kept elsewhere shows whether an officer was removed).`
