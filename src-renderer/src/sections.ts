/** The app's sections, in navigation order. */
export const sections = [
  { id: 'datasets', title: 'Datasets', blurb: 'Import local files and see what each dataset has spent.' },
  { id: 'queries', title: 'Queries', blurb: 'Ask threshold and anomaly questions with the accuracy stated first.' },
  { id: 'experiments', title: 'Experiments', blurb: 'Simulate before you spend: sweeps and Monte Carlo runs on the ground truth.' },
  { id: 'ledger', title: 'Ledger', blurb: 'Every privacy charge, per notion and per partition cell, hash-chained.' },
  { id: 'reports', title: 'Reports', blurb: 'Audit reports of the ledger, releases and experiments as PDF or CSV.' },
  { id: 'settings', title: 'Settings', blurb: 'Workspace location, worker pool and a self-check of the samplers.' }
] as const

export type SectionId = (typeof sections)[number]['id']

export function sectionFromHash(hash: string): SectionId {
  const id = hash.replace(/^#\/?/, '').split(/[/?]/)[0]
  return (sections.find((s) => s.id === id)?.id ?? 'datasets') as SectionId
}
