/**
 * Who the current call is made by, for the code that records acts (the ledger's appends, the audit chain) without every
 * function in between passing it on. `services.dispatch` runs each handler inside `asCaller(principal, ...)`; the
 * workbench's local user and the CLI have no account, so nothing is added for them (entries stay as they were).
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import type { Principal, Role } from '../../contract/accounts'

/** The workbench's caller: the local user, trusted with the workspace, holding every role. */
export const LOCAL_PRINCIPAL: Principal = Object.freeze({
  accountId: null,
  name: 'local user',
  roles: Object.freeze(['custodian', 'officer', 'analyst'] as Role[])
})

const current = new AsyncLocalStorage<Principal>()

export function asCaller<T>(principal: Principal, f: () => T): T {
  return current.run(principal, f)
}

/** The service account the current call is made by; null in the workbench (the local user) and outside any call. */
export function callingAccount(): { id: number; name: string; role: Role } | null {
  const p = current.getStore()
  if (!p || p.accountId === null) return null
  return { id: p.accountId, name: p.name, role: p.roles[0] }
}
