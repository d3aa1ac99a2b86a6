/**
 * Contract methods of accounts and roles: who may call what in the service deployment (ARCHITECTURE.md "Deployments").
 *
 * Types only (plus the run-time allow-list): the renderer imports this file.
 *
 * In the service every caller is an account with one role; in the workbench (desktop, CLI, headless on loopback) the
 * caller is the local user, who holds every role.
 */
import type { z } from 'zod'
import type { RequestFromSchema, addAccountRequestSchema, revokeAccountRequestSchema } from './schemas/requests'

export const ROLES = ['custodian', 'officer', 'analyst'] as const
/**
 * custodian: data in (import, link, sources, the workers). officer: budgets, public declarations, unlocks, accounts,
 * checkpoints (each act also needs the officer key's passphrase). analyst: define, preview, release within budgets.
 */
export type Role = (typeof ROLES)[number]

/** Who a call is made by, as the doors and the handlers see it. */
export interface Principal {
  /** The account's id; null for the workbench's local user (who holds every role). */
  accountId: number | null
  /** The account's name (recorded with every ledger entry and audit event it causes). */
  name: string
  roles: readonly Role[]
}

/** untrusted: the registration does not carry a valid signature of a registered officer (written around the app). */
export type AccountStatus = 'active' | 'expired' | 'revoked' | 'untrusted'

export interface AccountInfo {
  id: number
  name: string
  role: Role
  createdAt: string
  /** The officer (key holder) who added the account. */
  createdBy: string
  expiresAt: string
  status: AccountStatus
  revokedAt: string | null
  revokedBy: string | null
  revokeReason: string | null
}

export type AddAccountRequest = z.infer<typeof addAccountRequestSchema>
export type RevokeAccountRequest = z.infer<typeof revokeAccountRequestSchema>

export interface AddAccountResult {
  account: AccountInfo
  /** The account's secret credential: shown once, stored only as a hash. Give it to the account's holder privately. */
  credential: string
}

/** Who is signed in, for the "signed in as" line. */
export interface WhoAmI {
  /** 'workbench': the local user, every role; 'account': a service account. */
  kind: 'workbench' | 'account'
  name: string
  roles: Role[]
  /** Service accounts: when the credential stops working. */
  expiresAt: string | null
}

export interface AccountMethods {
  /** Every caller: who am I, with which roles. */
  'accounts/whoami': { req: RequestFromSchema<'accounts/whoami'>; res: WhoAmI }
  /** Officer: the accounts (never their credentials). */
  'accounts/list': { req: RequestFromSchema<'accounts/list'>; res: AccountInfo[] }
  /** Officer act (signed with the officer's key): a new account and its credential, shown once. */
  'accounts/add': { req: AddAccountRequest; res: AddAccountResult }
  /** Officer act (signed): the account's credential and sessions stop working at once. */
  'accounts/revoke': { req: RevokeAccountRequest; res: AccountInfo }
}

export const accountsMethodNames: Record<keyof AccountMethods, true> = {
  'accounts/whoami': true,
  'accounts/list': true,
  'accounts/add': true,
  'accounts/revoke': true
}
