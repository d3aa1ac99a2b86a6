/**
 * Which roles may call each contract method (ARCHITECTURE.md "Deployments"). One table, complete over the contract at
 * compile time: a new method does not compile until it is given its roles here. The service enforces it
 * (services/accounts/roles.ts `authorize`); the renderer reads the same table to offer only what the caller may do.
 *
 * custodian: data in (import, link, the workers); officer: budgets, public declarations, unlocks, accounts, checkpoints,
 * audit reports (each officer act also needs the officer key's passphrase); analyst: define, preview, release within
 * budgets, read their own releases and the ledger summary. Reads that every role needs (datasets, saved queries, jobs,
 * who am I) are open to all three; what a role may see of them is narrowed by the handlers (an analyst's own releases,
 * own spend, own jobs).
 */
import type { MethodName } from '../contract'
import type { Role } from './accounts'

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

/** Whether one of `roles` may call `method` (the same answer the service gives). */
export function rolesMay(roles: readonly Role[], method: MethodName | RouteName): boolean {
  const allowed: readonly Role[] = method.startsWith('route:') ? ROUTE_ROLES[method as RouteName] : METHOD_ROLES[method as MethodName]
  return allowed.some((r) => roles.includes(r))
}
