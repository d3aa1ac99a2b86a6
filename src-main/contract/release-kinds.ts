/**
 * The release kinds and the query kinds, one spec each. Every list, label and text that names a kind is read from
 * here: the contract's list, the query chooser, the ledger's and the reports' words, the CLI's usage, and (by the
 * `Record<ReleaseKind, ...>` maps beside them: services/releases/kinds/index.ts, the renderer's answer views) the
 * module that prepares a kind and the view that shows its answer. Every map over kinds is keyed by `ReleaseKind`, so a
 * kind left out anywhere is a type error. Each kind's own spec is in contract/kinds/.
 *
 * Data, types and pure text functions only: the renderer imports this file.
 */
import type { QueryKind } from './datasets'
import type { ReleaseAnswer, ReleaseParams } from './ledger'
import type { NumberRange } from './release-params'
import { thresholdSpec } from './kinds/threshold'
import { anomalyIdentificationSpec } from './kinds/anomaly-identification'
import { anomalySearchSpec } from './kinds/anomaly-search'
import { alarmPeriodSpec } from './kinds/alarm-period'

/** The kinds a release request asks for (`release`, `releases/run`): each has a parameters schema and a module. */
export const REQUESTED_KIND_LIST = ['threshold', 'anomaly-identification', 'anomaly-search'] as const
export type RequestedKind = (typeof REQUESTED_KIND_LIST)[number]

/** Every release kind, in the order lists show them: the requested ones, and those an alarm makes (`alarm run-due`). */
export const RELEASE_KIND_LIST = [...REQUESTED_KIND_LIST, 'alarm-period'] as const
export type ReleaseKind = (typeof RELEASE_KIND_LIST)[number]

export interface MechanismSpec {
  /** Where the app names it ("PPWLM (in steps)"). */
  name: string
  /** In a report's parameters column, where commas read better than brackets ("PPWLM, in steps"). */
  words: string
  /** In the ledger's one-line description of a release ("PPWLM (in steps, spends less on clear cases)"). */
  described: string
}

export type AnswerOf<K extends ReleaseKind> = Extract<ReleaseAnswer, { kind: K }>
export type ParamsOf<K extends RequestedKind> = Extract<ReleaseParams, { kind: K }>

/** What the CLI hands a kind to read its options with (cli/command.ts's readers: the contract imports no CLI code). */
export interface CliReader {
  /** Refuses, naming them, when any of these options is absent. */
  require(names: readonly string[], forWhat: string): void
  string(name: string): string | undefined
  /** A required number within `range`. */
  number(name: string, range: NumberRange): number
  optionalNumber(name: string, fallback: number, range: NumberRange): number
  choice<T extends string>(name: string, fallback: T, choices: readonly T[]): T
}

/** A release's decisions as a report counts them (`named`: at most that many names). */
export interface ReportDecisions {
  asked: number | null
  flagged: number | null
  flaggedNames: string[]
}

export interface KindSpec<K extends ReleaseKind = ReleaseKind> {
  /** The saved query's kind this release runs. */
  queryKind: QueryKind
  /** Capitalised, as a line of the ledger's release text starts ("Anomaly identification"). */
  title: string
  /** Lower case, as a report names it in a narrow column ("anomaly identification"). */
  words: string
  /** Whether its preview plots accuracy against epsilon (services/releases/accuracy.ts). */
  accuracyPreview: boolean
  /** The mechanisms that answer it, by the id releases record. */
  mechanisms: Record<string, MechanismSpec>
  /** The CLI's usage for its parameters, after `release --db PATH --query ID [--preview]`. */
  cliUsage: string
  /** The CLI's text for its `--mechanism` choices (empty: it takes none). */
  cliMechanism: string
  /** Its parameters from the CLI's options; null for a kind no request asks for. */
  cliParams: K extends RequestedKind ? (cli: CliReader) => ParamsOf<K> : null
  /** Its answer in lines of text (the CLI, the ledger's release text): decisions only. */
  answerLines(answer: AnswerOf<K>): string[]
  /** Its answer as a report counts it, naming at most `named` of what it flagged. */
  reportDecisions(answer: AnswerOf<K>, named: number): ReportDecisions
  /** A report's decisions column, from the counts as text and the names (": a; b" or ""). */
  decisionsText(d: { asked: string; flagged: string; named: string }): string
  /** Its recorded parameters in words, after its mechanism's (reports); `n` reads a recorded number. */
  paramWords(n: (name: string) => number | null, mechanism: string): string[]
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

export const RELEASE_KIND_SPECS: { [K in ReleaseKind]: KindSpec<K> } = {
  threshold: thresholdSpec,
  'anomaly-identification': anomalyIdentificationSpec,
  'anomaly-search': anomalySearchSpec,
  'alarm-period': alarmPeriodSpec
}

/** The spec of a release kind read back from storage (null for a kind this version does not know). */
export function releaseKindSpec(kind: string): KindSpec | null {
  return isReleaseKind(kind) ? (RELEASE_KIND_SPECS[kind] as KindSpec) : null
}

export function isReleaseKind(kind: string): kind is ReleaseKind {
  return Object.prototype.hasOwnProperty.call(RELEASE_KIND_SPECS, kind)
}

/** A kind's spec for its own answer (the one cast the registry needs: `RELEASE_KIND_SPECS[a.kind]` is a union of specs). */
export function specOfAnswer<K extends ReleaseKind>(answer: AnswerOf<K>): KindSpec<K> {
  return RELEASE_KIND_SPECS[answer.kind as K] as unknown as KindSpec<K>
}

/** The requested kinds that answer a saved query of `queryKind`, the one of the same name first. */
export function releaseKindsOf(queryKind: QueryKind): RequestedKind[] {
  const kinds = REQUESTED_KIND_LIST.filter((k) => RELEASE_KIND_SPECS[k].queryKind === queryKind)
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

export function isRequestedKind(kind: string): kind is RequestedKind {
  return (REQUESTED_KIND_LIST as readonly string[]).includes(kind)
}

/** Compile-time: the request parameters have one variant per requested kind, the answers one per kind, and no other. */
type Same<A, B> = [Exclude<A, B>, Exclude<B, A>] extends [never, never] ? true : never
export const paramsCoverTheKinds: Same<ReleaseParams['kind'], RequestedKind> = true
export const answersCoverTheKinds: Same<ReleaseAnswer['kind'], ReleaseKind> = true
