/**
 * Who uses the app: the workbench's local user (every role), or a service account (one role). Screens ask `useWho()` to
 * offer only what the caller may do (the service refuses the rest anyway, with one sentence).
 */
import { createContext, useContext } from 'react'
import type { MethodName, Role } from '../../../src-main/contract'
import { rolesMay } from '../../../src-main/contract/method-roles'

export interface Who {
  kind: 'workbench' | 'account'
  name: string
  roles: Role[]
  expiresAt: string | null
  /** Which end `expiresAt` is: the browser session's (signed in on the service's page) or the credential's (the desktop app). */
  expiry: 'session' | 'credential' | null
  /** Service accounts: end the session (the browser's cookie, or the desktop app's connection). */
  signOut?: () => void
}

export const WORKBENCH: Who = { kind: 'workbench', name: 'local user', roles: ['custodian', 'officer', 'analyst'], expiresAt: null, expiry: null }

export const WhoContext = createContext<Who>(WORKBENCH)

export function useWho(): Who {
  return useContext(WhoContext)
}

export function useCan(role: Role): boolean {
  return useWho().roles.includes(role)
}

/** Whether the caller may call `method`: the role table the service enforces (contract/method-roles.ts) decides which buttons appear. */
export function useMay(method: MethodName): boolean {
  return rolesMay(useWho().roles, method)
}
