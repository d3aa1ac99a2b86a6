import type { AccountMethods } from '../../contract/accounts'
import type { HandlerMap, ServiceContext } from '../platform/handler-types'
import { LOCAL_PRINCIPAL } from '../platform/caller'
import { accountRow, addAccount, listAccounts, revokeAccount } from './account-store'

/** Handlers of the accounts area: adapt the contract to account-store.ts (the role table decides who may call them). */
export function accountsHandlers(ctx: ServiceContext): HandlerMap<AccountMethods> {
  const db = ctx.store.db
  return {
    'accounts/whoami': async (_r, caller = LOCAL_PRINCIPAL) => {
      if (caller.accountId === null) return { kind: 'workbench', name: caller.name, roles: [...caller.roles], expiresAt: null }
      return { kind: 'account', name: caller.name, roles: [...caller.roles], expiresAt: accountRow(db, caller.accountId)?.expires_at ?? null }
    },
    'accounts/list': async () => listAccounts(db),
    'accounts/add': async (r) => addAccount(db, { name: r.name, role: r.role, days: r.days }, { officer: r.officer, passphrase: r.passphrase }),
    'accounts/revoke': async (r) => {
      const info = revokeAccount(db, { name: r.name, reason: r.reason }, { officer: r.officer, passphrase: r.passphrase })
      ctx.gate?.endSessionsOf(info.id)
      ctx.jobs.cancelOwnedBy(info.id)
      return info
    }
  }
}
