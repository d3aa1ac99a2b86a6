/**
 * Who uses the app: the workbench's local user (every role), or a service account (one role). Screens ask `useWho()` to
 * offer only what the caller may do (the service refuses the rest anyway, with one sentence).
 */
import { createContext, useContext } from 'react'
import type { Role } from '../../../src-main/contract'

export interface Who {
  kind: 'workbench' | 'account'
  name: string
  roles: Role[]
  expiresAt: string | null
  /** Service accounts: end the session (the browser's cookie, or the desktop app's connection). */
  signOut?: () => void
}

export const WORKBENCH: Who = { kind: 'workbench', name: 'local user', roles: ['custodian', 'officer', 'analyst'], expiresAt: null }

export const WhoContext = createContext<Who>(WORKBENCH)

export function useWho(): Who {
  return useContext(WhoContext)
}

export function useCan(role: Role): boolean {
  return useWho().roles.includes(role)
}
