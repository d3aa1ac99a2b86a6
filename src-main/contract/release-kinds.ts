/**
 * The release kinds and the query kinds, one spec each. Every list, label and text that names a kind is read from
 * here: the contract's list, the query chooser, the ledger's and the reports' words, the CLI's usage, and (by the
 * `Record<ReleaseKind, ...>` maps beside them: services/releases/kinds/index.ts, the renderer's answer views) the
 * module that prepares a kind and the view that shows its answer. A map keyed by these types and the exhaustive
 * switches over them (`satisfies never`) make a kind left out anywhere a type error.
 *
 * Data and types only: the renderer imports this file.
 */
import type { QueryKind } from './datasets'
import type { ReleaseAnswer, ReleaseParams } from './ledger'

/** Every release kind, in the order lists show them. */
export const RELEASE_KIND_LIST = ['threshold', 'anomaly-identification', 'anomaly-search'] as const
export type ReleaseKind = (typeof RELEASE_KIND_LIST)[number]

export interface MechanismSpec {
  /** Where the app names it ("PPWLM (in steps)"). */
  name: string
  /** In a report's parameters column, where commas read better than brackets ("PPWLM, in steps"). */
  words: string
  /** In the ledger's one-line description of a release ("PPWLM (in steps, spends less on clear cases)"). */
  described: string
}

export interface KindSpec {
  /** The saved query's kind this release runs. */
  queryKind: QueryKind
  /** Capitalised, as a line of the ledger's release text starts ("Anomaly identification"). */
  title: string
  /** Lower case, as a report names it in a narrow column ("anomaly identification"). */
  words: string
  /** What one answer decides about, counted in reports: "predicates", "records"; null when it reports a top list. */
  asked: 'predicates' | 'records' | null
  /** Whether its preview plots accuracy against epsilon (services/releases/accuracy.ts). */
  accuracyPreview: boolean
  /** The mechanisms that answer it, by the id releases record. */
  mechanisms: Record<string, MechanismSpec>
  /** The CLI's usage for its parameters, after `release --db PATH --query ID [--preview]`. */
  cliUsage: string
  /** The CLI's text for its `--mechanism` choices (empty: it takes none). */
  cliMechanism: string
}

export interface QueryKindSpec {
  /** In the query chooser ("Threshold query"). */
  title: string
  /** In lists and sentences ("threshold query"). */
  words: string
  /** With its article, in sentences ("a threshold query"). */
  article: string
  /** The question it asks, under its title in the chooser. */
  blurb: string
}

export const QUERY_KIND_SPECS: Record<QueryKind, QueryKindSpec> = {
  threshold: {
    title: 'Threshold query',
    words: 'threshold query',
    article: 'a threshold query',
    blurb: 'Which groups (rooms, zones, hours) exceed their threshold?'
  },
  'anomaly-identification': {
    title: 'Anomaly identification',
    words: 'anomaly identification',
    article: 'an anomaly identification query',
    blurb: 'Is this particular record an anomaly (few similar records)?'
  },
  'anomaly-search': {
    title: 'Anomaly search',
    words: 'anomaly search',
    article: 'an anomaly search query',
    blurb: 'Who is the one individual far above the rest?'
  }
}

export const RELEASE_KIND_SPECS: Record<ReleaseKind, KindSpec> = {
  threshold: {
    queryKind: 'threshold',
    title: 'Threshold query',
    words: 'threshold',
    asked: 'predicates',
    accuracyPreview: false,
    mechanisms: {
      tslm: { name: 'TSLM (one shot)', words: 'TSLM, one shot', described: 'TSLM (one shot)' },
      ppwlm: { name: 'PPWLM (in steps)', words: 'PPWLM, in steps', described: 'PPWLM (in steps, spends less on clear cases)' },
      dppwlm: {
        name: 'DPPWLM (steps chosen from the data)',
        words: 'DPPWLM, in steps chosen from the data',
        described: 'DPPWLM (in steps chosen from the data)'
      }
    },
    cliUsage: 'threshold: --beta B --alpha A [--mechanism tslm|ppwlm|dppwlm] [--eps-max E] [--eps1 E] [--steps M] [--fine-steps F]',
    cliMechanism: 'threshold: tslm (one shot) | ppwlm (in steps) | dppwlm (steps from the data)'
  },
  'anomaly-identification': {
    queryKind: 'anomaly-identification',
    title: 'Anomaly identification',
    words: 'anomaly identification',
    asked: 'records',
    accuracyPreview: true,
    mechanisms: {
      dp: { name: 'ε-DP mechanism', words: 'optimal ε-DP', described: 'optimal ε-DP' },
      sp: { name: 'sensitive-privacy mechanism', words: 'sensitive privacy', described: '(ε,k)-sensitive' }
    },
    cliUsage: 'anomaly identification: --epsilon E [--mechanism dp|sp]',
    cliMechanism: 'anomaly identification: dp | sp'
  },
  'anomaly-search': {
    queryKind: 'anomaly-search',
    title: 'Anomaly search',
    words: 'anomaly search',
    asked: null,
    accuracyPreview: true,
    mechanisms: {
      direct: { name: 'noisy binary search, direct oracle', words: 'noisy binary search, direct oracle', described: 'direct oracle' },
      binary: { name: 'noisy binary search, yes/no oracle', words: 'noisy binary search, yes/no oracle', described: 'binary oracle' },
      rr: {
        name: 'noisy binary search, randomized response',
        words: 'noisy binary search, randomized response',
        described: 'rr oracle'
      }
    },
    cliUsage: 'anomaly search: (parameters from the saved query)',
    cliMechanism: ''
  }
}

/** The spec of a release kind read back from storage (null for a kind this version does not know). */
export function releaseKindSpec(kind: string): KindSpec | null {
  return Object.prototype.hasOwnProperty.call(RELEASE_KIND_SPECS, kind) ? RELEASE_KIND_SPECS[kind as ReleaseKind] : null
}

/** The release kinds that answer a saved query of `queryKind`, the one of the same name first. */
export function releaseKindsOf(queryKind: QueryKind): ReleaseKind[] {
  const kinds = RELEASE_KIND_LIST.filter((k) => RELEASE_KIND_SPECS[k].queryKind === queryKind)
  return [...kinds.filter((k) => k === queryKind), ...kinds.filter((k) => k !== queryKind)]
}

/** A mechanism recorded under any kind, by its id (null when no kind has it). */
export function mechanismSpec(id: string): MechanismSpec | null {
  for (const k of RELEASE_KIND_LIST) {
    const m = RELEASE_KIND_SPECS[k].mechanisms
    if (Object.prototype.hasOwnProperty.call(m, id)) return m[id]
  }
  return null
}

/** Compile-time: the request parameters and the answers have one variant per kind of this list, and no other. */
type Same<A, B> = [Exclude<A, B>, Exclude<B, A>] extends [never, never] ? true : never
export const paramsCoverTheKinds: Same<ReleaseParams['kind'], ReleaseKind> = true
export const answersCoverTheKinds: Same<ReleaseAnswer['kind'], ReleaseKind> = true

/**
 * The default of an exhaustive switch over kinds: `noSuchKind(x satisfies never)` (or `x.kind`) fails typecheck while a
 * kind is left out; at run time (a kind stored by a newer version) it throws naming the kind.
 */
export function noSuchKind(x: string | { kind: string }): never {
  throw new Error(`Unknown release kind "${typeof x === 'string' ? x : x.kind}"`)
}
