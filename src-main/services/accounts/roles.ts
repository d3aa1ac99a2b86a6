/**
 * The service's role check over the one role table (contract/method-roles.ts), and which records a caller reads.
 */
import type { MethodName } from '../../contract'
import type { Principal, Role } from '../../contract/accounts'
import { METHOD_ROLES, ROUTE_ROLES, type RouteName, rolesMay } from '../../contract/method-roles'

export { METHOD_ROLES, ROUTE_ROLES }
export type { RouteName }

const ROLE_WORDS: Record<Role, string> = { custodian: "the custodian's", officer: "an officer's", analyst: "an analyst's" }

function rolesText(roles: readonly Role[]): string {
  const words = roles.map((r) => ROLE_WORDS[r])
  return words.length === 1 ? words[0] : `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`
}

/**
 * Whose records a caller reads: an analyst account reads its own releases and ledger charges only (another analyst's
 * questions and spend are not theirs to see); the officer, the custodian and the workbench's local user read all.
 * Returns the account id to narrow to, or null for everything.
 */
export function ownRecordsOnly(caller: Principal | undefined): number | null {
  if (!caller || caller.accountId === null) return null
  return caller.roles.includes('officer') || caller.roles.includes('custodian') ? null : caller.accountId
}

/** Whether a caller may see a job (its state, progress, result) or cancel it: its starter's, or any for the custodian and the workbench. */
export function mayReadJob(caller: Principal | undefined, owner: number | null | undefined): boolean {
  if (!caller || caller.accountId === null || caller.roles.includes('custodian')) return true
  return owner !== undefined && owner !== null && owner === caller.accountId
}

export type Authorization = { ok: true } | { ok: false; error: { message: string; code: 'forbidden' } }

/** Whether `principal` may call `method` (or use a route): one sentence, code `forbidden`, when not. Nothing is written either way. */
export function authorize(principal: Principal, method: MethodName | RouteName): Authorization {
  if (rolesMay(principal.roles, method)) return { ok: true }
  const allowed: readonly Role[] = method.startsWith('route:') ? ROUTE_ROLES[method as RouteName] : METHOD_ROLES[method as MethodName]
  const what =
    method === 'route:upload' ? 'Uploading a file' : method === 'route:monitor' ? "Reading the service's readiness and metrics" : `"${method}"`
  const mine = principal.roles.length === 1 ? ROLE_WORDS[principal.roles[0]].replace(/'s$/, '') : 'an account without that role'
  return {
    ok: false,
    error: {
      message: `Forbidden: ${what} is ${rolesText(allowed)} act, and account "${principal.name}" is ${mine}; nothing was done.`,
      code: 'forbidden'
    }
  }
}
