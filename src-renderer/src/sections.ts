import type { Role } from '../../src-main/contract'
import { METHOD_ROLES } from '../../src-main/contract/method-roles'

/** The app's sections, in navigation order. */
export const sections = [
  { id: 'datasets', title: 'Datasets', blurb: 'Import local files and see what each dataset has spent.' },
  { id: 'queries', title: 'Queries', blurb: 'Ask threshold and anomaly questions with the accuracy stated first, then release.' },
  { id: 'releases', title: 'Releases', blurb: 'Released answers: decisions only, each charged to the ledger before it was computed.' },
  {
    id: 'alarms',
    title: 'Alarms',
    blurb: 'Saved questions watched every hour, day or week: which predicates fired in which period, and what watching has spent.'
  },
  { id: 'experiments', title: 'Experiments', blurb: 'Simulate before you spend: sweeps and Monte Carlo runs on the ground truth.' },
  {
    id: 'ledger',
    title: 'Ledger',
    blurb: 'Every privacy charge, hash-chained: what one person (or row) has spent, summed over notions, per notion and per partition cell.'
  },
  { id: 'accounts', title: 'Accounts', blurb: 'Who may use the service: add an account, allot its budget, revoke it with a reason.' },
  { id: 'reports', title: 'Reports', blurb: 'Audit reports of the ledger, releases and experiments as PDF or CSV.' },
  { id: 'settings', title: 'Settings', blurb: 'Workspace location, worker pool and a self-check of the samplers.' }
] as const

export type SectionId = (typeof sections)[number]['id']

/** Sections a service account sees only with one of these roles (the others are for every role). */
const SECTION_ROLES: Partial<Record<SectionId, readonly Role[]>> = {
  alarms: METHOD_ROLES['alarms/list'],
  reports: ['officer'],
  accounts: ['officer'],
  settings: ['custodian']
}

export function sectionsFor(roles: readonly Role[]): Array<(typeof sections)[number]> {
  return sections.filter((s) => SECTION_ROLES[s.id]?.some((r) => roles.includes(r)) ?? true)
}

export interface Route {
  section: SectionId
  /** What follows the section in the address, e.g. "12" in "#/releases/12". */
  param: string | null
}

export function routeFromHash(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split(/[/?]/)
  const section = (sections.find((s) => s.id === parts[0])?.id ?? 'datasets') as SectionId
  return { section, param: parts[1] ? decodeURIComponent(parts[1]) : null }
}

export function href(section: SectionId, param?: string | number): string {
  return param === undefined ? `#/${section}` : `#/${section}/${encodeURIComponent(String(param))}`
}
