/**
 * The first run, as steps: what the privacy officer and the analyst do first, in order, each marked done from what the
 * workspace holds. Setting up the officer is a step of its own, before the budget that needs it (not a late error on the
 * budget form). Pure: unit-tested under Node.
 */
export interface FirstRunFacts {
  officers: number
  datasets: number
  /** Datasets whose budget per person (or row) is set. */
  budgeted: number
  queries: number
  releases: number
}

export interface FirstRunStep {
  id: 'officer' | 'import' | 'budget' | 'query' | 'release'
  who: 'privacy officer' | 'analyst'
  title: string
  detail: string
  /** Where it is done (an address in the app). */
  href: string
  done: boolean
}

/** Said wherever linking is offered, before anything is filled in. */
export const LINKING_IS_OFFICERS =
  'Linking a large file, a PostgreSQL or a ClickHouse table in place instead is for the privacy officer: the link is signed with the officer’s key.'

export function firstRunSteps(f: FirstRunFacts): FirstRunStep[] {
  return [
    {
      id: 'officer',
      who: 'privacy officer',
      title: 'Set up the privacy officer',
      detail: 'A name and a passphrase: the officer’s key signs budgets, public declarations and unlocks.',
      href: '#/ledger/officers',
      done: f.officers > 0
    },
    {
      id: 'import',
      who: 'analyst',
      title: 'Import a dataset',
      detail: `A CSV or TSV file; say who is protected: each row, or each person. ${LINKING_IS_OFFICERS}`,
      href: '#/datasets',
      done: f.datasets > 0
    },
    {
      id: 'budget',
      who: 'privacy officer',
      title: 'Set its budget',
      detail: 'What one person may lose in total; until it is set every release on the dataset is denied.',
      href: '#/ledger/budget',
      done: f.budgeted > 0
    },
    {
      id: 'query',
      who: 'analyst',
      title: 'Ask a question',
      detail: 'Which groups exceed a threshold, is a record an anomaly, who is the anomaly: with the accuracy you need.',
      href: '#/queries',
      done: f.queries > 0
    },
    {
      id: 'release',
      who: 'analyst',
      title: 'Release the answer',
      detail: 'The price is shown before anything is spent; the charge goes to the ledger, which the officer verifies and reports.',
      href: '#/queries',
      done: f.releases > 0
    }
  ]
}

/** The first step not done yet, or null when the first run is complete. */
export function nextStep(steps: readonly FirstRunStep[]): FirstRunStep | null {
  return steps.find((s) => !s.done) ?? null
}
