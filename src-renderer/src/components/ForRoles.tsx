import type { ReactNode } from 'react'
import type { Role } from '../../../src-main/contract'
import { useWho } from '../api/who'

/** Shows its children only to a caller holding one of `roles` (the workbench's user holds all three). */
export function ForRoles(props: { roles: readonly Role[]; children: ReactNode }) {
  const who = useWho()
  return props.roles.some((r) => who.roles.includes(r)) ? <>{props.children}</> : null
}
