/**
 * `account add|list|revoke`: the service's accounts (custodian, officer, analyst). Adding and revoking are officer acts
 * (signed with the officer's key: the passphrase is read as for every officer act). On a workspace file (--db) or on a
 * running service (--server, as an officer account).
 */
import type { AccountInfo, Role } from '../../contract/accounts'
import { ACCOUNT_ROLES, DEFAULT_ACCOUNT_DAYS, MAX_ACCOUNT_DAYS } from '../../contract/schemas/requests'
import { type Store, addAccount, listAccounts, revokeAccount } from '../../services/local'
import { type CliCommand, type CliValues, choice, optNumber, optString, reqString } from '../command'
import { OFFICER_OPTIONS, readPassphrase } from '../passphrase'
import { REMOTE_OPTIONS, remoteCall, remoteTarget } from '../remote'
import { openWorkspace } from '../workspace'

function accountLine(a: AccountInfo): string {
  const state =
    a.status === 'active'
      ? `active until ${a.expiresAt.slice(0, 10)}`
      : a.status === 'expired'
        ? `EXPIRED on ${a.expiresAt.slice(0, 10)}`
        : a.status === 'revoked'
          ? `REVOKED ${a.revokedAt?.slice(0, 10) ?? ''} by ${a.revokedBy ?? '?'}: "${a.revokeReason ?? ''}"`
          : 'UNTRUSTED (its registration does not carry a valid officer signature)'
  return `${String(a.id).padStart(3)}  ${a.name.padEnd(20)} ${a.role.padEnd(9)} ${state}  (added ${a.createdAt.slice(0, 10)} by ${a.createdBy})`
}

export const accountCommand: CliCommand = {
  name: 'account',
  summary: 'Accounts of the service: add one (its credential is shown once), list them, revoke one (adding and revoking are officer acts)',
  usage:
    'account add --db PATH --role analyst|officer|custodian --name N [--days D] [--officer O --passphrase-file F] | account list --db PATH | ' +
    'account revoke --db PATH --name N --reason TEXT [--officer O --passphrase-file F]   (or --server URL --credential-file F [--ca-file CA] instead of --db)',
  subcommands: ['add', 'list', 'revoke'],
  options: {
    db: { type: 'string', description: 'workspace database file', defaultText: '$QUIET_ALARM_DB or the user data folder' },
    ...REMOTE_OPTIONS,
    role: { type: 'string', description: `add: ${ACCOUNT_ROLES.join(' | ')}` },
    name: { type: 'string', description: 'add, revoke: the account name (letters, digits, . _ -; recorded with every act)' },
    days: {
      type: 'string',
      description: `add: how long the credential works (at most ${MAX_ACCOUNT_DAYS})`,
      defaultText: String(DEFAULT_ACCOUNT_DAYS)
    },
    reason: { type: 'string', description: 'revoke: why (recorded)' },
    ...OFFICER_OPTIONS
  },
  async run(values, positionals, ctx) {
    const sub = positionals[0] ?? 'list'
    const remote = remoteTarget(values, ctx.cwd)
    if (sub === 'list') {
      const accounts = remote ? await remoteCall(remote, 'accounts/list', {}) : withWorkspace(values, ctx.cwd, (db) => listAccounts(db))
      return {
        json: { accounts },
        text: accounts.length ? accounts.map(accountLine).join('\n') : 'No accounts yet; add one with "quiet-alarm account add".'
      }
    }
    const name = reqString(values, 'name')
    if (sub === 'add') {
      const role = choice('role', reqString(values, 'role'), ACCOUNT_ROLES) as Role
      const days = optNumber(values, 'days', DEFAULT_ACCOUNT_DAYS, { integer: true, ge: 1, le: MAX_ACCOUNT_DAYS })
      const officer = {
        officer: optString(values, 'officer'),
        passphrase: await readPassphrase(values, ctx, { label: "The privacy officer's passphrase" })
      }
      const out = remote
        ? await remoteCall(remote, 'accounts/add', { name, role, days, ...officer })
        : withWorkspace(values, ctx.cwd, (db) => addAccount(db, { name, role, days }, officer))
      return {
        json: { account: out.account, credential: out.credential },
        text: [
          `Account "${out.account.name}" (${out.account.role}) added; its credential works until ${out.account.expiresAt.slice(0, 10)}.`,
          `Credential (shown once; only its hash is kept): ${out.credential}`,
          'Hand it to its holder privately; they keep it in a file readable by them only and pass it with --credential-file.'
        ].join('\n')
      }
    }
    const reason = reqString(values, 'reason')
    const officer = {
      officer: optString(values, 'officer'),
      passphrase: await readPassphrase(values, ctx, { label: "The privacy officer's passphrase" })
    }
    const account = remote
      ? await remoteCall(remote, 'accounts/revoke', { name, reason, ...officer })
      : withWorkspace(values, ctx.cwd, (db) => revokeAccount(db, { name, reason }, officer))
    return { json: { account }, text: `Account "${account.name}" revoked: its credential and sessions stop working now.\n${accountLine(account)}` }
  }
}

function withWorkspace<T>(values: CliValues, cwd: string, f: (db: Store['db']) => T): T {
  const store = openWorkspace(values, cwd, { create: false })
  try {
    return f(store.db)
  } finally {
    store.close()
  }
}
