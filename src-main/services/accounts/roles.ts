/**
 * Which roles may call each contract method (ARCHITECTURE.md "Deployments"). One table, complete over the contract at
 * compile time: a new method does not compile until it is given its roles here.
 *
 * custodian: data in (import, link, the workers); officer: budgets, public declarations, unlocks, accounts, checkpoints,
 * audit reports (each officer act also needs the officer key's passphrase); analyst: define, preview, release within
 * budgets, read their own releases and the ledger summary. Reads that every role needs (datasets, saved queries, jobs,
 * who am I) are open to all three; what a role may see of them is narrowed by the handlers (an analyst's own releases,
 * own spend, own jobs).
 */
import type { MethodName } from '../../contract'
import type { Principal, Role } from '../../contract/accounts'

const ALL: readonly Role[] = ['custodian', 'officer', 'analyst']
const CUSTODIAN: readonly Role[] = ['custodian']
const OFFICER: readonly Role[] = ['officer']
const ANALYST: readonly Role[] = ['analyst']
/** Officer acts that bring data in: a PostgreSQL link is signed by an officer, and made by the custodian or the officer. */
const CUSTODIAN_OR_OFFICER: readonly Role[] = ['custodian', 'officer']

export const METHOD_ROLES: Readonly<Record<MethodName, readonly Role[]>> = {
  // app
  'app/status': ALL,
  'jobs/list': ALL,
  'jobs/get': ALL,
  'jobs/cancel': ALL,
  'diagnostics/self-check': CUSTODIAN_OR_OFFICER,
  'app/choose-file': CUSTODIAN,
  'app/set-workers': CUSTODIAN,
  // the desktop shell's own (answered in the desktop; the services refuse them for everyone)
  'app/connection': ALL,
  'app/open-workspace': ALL,
  'app/connect-service': ALL,
  // datasets: data in is the custodian's; public declarations the officer's
  'datasets/preview-file': CUSTODIAN,
  'datasets/import': CUSTODIAN,
  'datasets/append': CUSTODIAN,
  'datasets/postgres-relations': CUSTODIAN_OR_OFFICER,
  'datasets/link-postgres': CUSTODIAN_OR_OFFICER,
  'datasets/clickhouse-tables': CUSTODIAN_OR_OFFICER,
  'datasets/link-clickhouse': CUSTODIAN_OR_OFFICER,
  'datasets/link-file': CUSTODIAN_OR_OFFICER,
  'datasets/link-file-preview': CUSTODIAN_OR_OFFICER,
  'datasets/list': ALL,
  'datasets/get': ALL,
  'datasets/rows': ALL,
  'datasets/rename': CUSTODIAN,
  'datasets/delete': CUSTODIAN,
  'datasets/declare-public': OFFICER,
  'queries/save': ANALYST,
  'queries/list': ALL,
  'queries/get': ALL,
  'queries/versions': ALL,
  'queries/delete': ANALYST,
  // ledger and releases
  'ledger/entries': ALL,
  'ledger/summary': ALL,
  'ledger/verify': CUSTODIAN_OR_OFFICER,
  'budgets/set': OFFICER,
  'releases/preview': ANALYST,
  'releases/accuracy': ANALYST,
  'releases/run': ANALYST,
  'releases/list': ALL,
  'releases/get': ALL,
  'officer/unlock-ex-post': OFFICER,
  'officer/list': ALL,
  'ledger/checkpoint': OFFICER,
  /** An officer account sets up its signing key (the first one alone, later ones with a registered officer's passphrase). */
  'officer/register': OFFICER,
  // experiments (sweeps over sample workloads, public data and saved queries' public parts)
  'experiments/presets': ALL,
  'experiments/validate': ANALYST,
  'experiments/start': ANALYST,
  'experiments/resume': ANALYST,
  'experiments/list': ALL,
  'experiments/get': ALL,
  'experiments/export-csv': ALL,
  'experiments/delete': ANALYST,
  // audit reports: the officer's
  'reports/preview': OFFICER,
  'reports/export': OFFICER,
  'reports/download': OFFICER,
  'reports/save': OFFICER,
  // accounts
  'accounts/whoami': ALL,
  'accounts/list': OFFICER,
  'accounts/add': OFFICER,
  'accounts/revoke': OFFICER,
  // alarms: the officer signs (and resumes: a resume may need a new cap); an analyst previews, reads and pauses their
  // own; the evaluator (the service's own clock, or run-due in the workbench) is the custodian's or the officer's
  'alarms/preview': ['officer', 'analyst'],
  'alarms/create': OFFICER,
  'alarms/list': ALL,
  'alarms/get': ALL,
  'alarms/pause': ['officer', 'analyst'],
  'alarms/resume': OFFICER,
  'alarms/history': ALL,
  'alarms/run-due': CUSTODIAN_OR_OFFICER
}

/** Routes of the HTTP door that are not contract methods. */
export const ROUTE_ROLES = {
  /** Handing a file to the service (import, link). */
  'route:upload': CUSTODIAN,
  /** The event stream (each event is filtered for its reader). */
  'route:events': ALL,
  /** The service's readiness and Prometheus metrics (the custodian runs the host; liveness, /api/health, is anyone's). */
  'route:monitor': CUSTODIAN
} as const satisfies Record<string, readonly Role[]>

export type RouteName = keyof typeof ROUTE_ROLES

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
  const allowed: readonly Role[] = method.startsWith('route:') ? ROUTE_ROLES[method as RouteName] : METHOD_ROLES[method as MethodName]
  if (allowed.some((r) => principal.roles.includes(r))) return { ok: true }
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
