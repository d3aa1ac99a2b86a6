/**
 * Contract methods of the ledger area: the privacy-budget ledger, budgets, and releases (charged runs of a
 * saved query on real data).
 *
 * Types only (plus the run-time allow-list): the renderer imports this file.
 *
 * Epsilon appears twice in responses: as a number (for charts) and as an exact decimal string (`...Exact`), which is
 * what the ledger holds (whole nano-epsilon, charges rounded up, budgets rounded down).
 */
import type { z } from 'zod'
import type { Role } from './accounts'
import type {
  PRIVACY_NOTIONS,
  RequestFromSchema,
  anomalyIdentificationReleaseParamsSchema,
  anomalySearchReleaseParamsSchema,
  ledgerEntriesRequestSchema,
  ledgerReceiptSchema,
  releaseParamsSchema,
  releaseRequestSchema,
  setBudgetRequestSchema,
  thresholdReleaseParamsSchema
} from './schemas/requests'
import type { ReleaseKind } from './release-kinds'

/**
 * Privacy notions. Every notion protects a normal person (or row: the dataset's unit) with its epsilon, so a normal
 * person's loss is the sum over notions; each notion keeps its own account as a breakdown (ALGORITHMS.md section 6).
 */
export type PrivacyNotion = (typeof PRIVACY_NOTIONS)[number]

export interface LedgerEntry {
  /** Position in the chain, 1, 2, 3, ... */
  seq: number
  at: string
  /**
   * 'charge': a release spent privacy; 'budget': the privacy officer set a budget; 'public': the officer declared the
   * dataset public; 'alarm': the officer signed a continual alarm (its mode, caps and schedule).
   */
  kind: 'charge' | 'budget' | 'public' | 'alarm'
  datasetId: number
  /** The dataset's name when the entry was written (the dataset may since have been renamed or deleted). */
  datasetName: string
  /** For a budget entry, null means the budget per unit (summed over notions); otherwise that notion's own cap. */
  notion: PrivacyNotion | null
  /** The charge, or the budget's new value. */
  epsilon: number
  epsilonExact: string
  /** How many partition cells a charge touches (0 for a whole-dataset charge). */
  cellCount: number
  /** Up to 20 of the touched cells, as labels ("building = B, room = B-104"). */
  cells: string[]
  releaseId: number | null
  actor: string
  /** The service: the account whose call wrote the entry (null in the workbench, and for entries from before accounts). */
  account?: { id: number; name: string; role: Role } | null
  /** A budget entry that is one analyst account's own budget on the dataset (within the dataset's); null: the dataset's own. */
  analyst?: { id: number; name: string } | null
  /** What was charged, or the officer's reason for a budget. */
  description: string
  /** Whether an officer's key signed the entry; false: `actor` is only the name that was recorded. */
  signed?: boolean
  prevHash: string
  hash: string
  /**
   * True for entries written before privacy units existed (migration 006): "row-level accounting (before person-level
   * units)". They are kept and counted as they were; every dataset of that time is row-level.
   */
  rowLevelAccounting?: boolean
}

/** Newest first; `limit` default 100, at most 1,000. */
export type LedgerEntriesRequest = z.infer<typeof ledgerEntriesRequestSchema>

export interface CellSpend {
  /** Canonical key of the cell (JSON of column -> value; "{}" is the whole dataset). */
  key: string
  label: string
  /** Charges made on this cell itself. */
  own: number
  /** Everything a record of this cell has spent: its own charges plus those of overlapping cells and the whole dataset. */
  total: number
  totalExact: string
}

export interface NotionAccount {
  notion: PrivacyNotion
  label: string
  /** What an epsilon under this notion protects, in words. */
  meaning: string
  /** The dataset's spend under this notion: the maximum over cells of their totals (parallel composition). Part of `spentPerUnit`. */
  spent: number
  spentExact: string
  /** The notion's own budget (an extra cap set by the officer); null: none, only the budget per unit applies. */
  budget: number | null
  budgetExact: string | null
  /**
   * What this notion may still spend: the smaller of its own budget's remainder and the dataset's `remainingPerUnit`;
   * null when neither budget is set (releases under this notion are denied).
   */
  remaining: number | null
  remainingExact: string | null
  /** Releases charged under this notion. */
  releases: number
  /** Cells ordered by total, largest first (at most `cellLimit`, default 50). */
  cells: CellSpend[]
  cellCount: number
}

export interface DatasetLedger {
  datasetId: number
  datasetName: string
  /** False when the dataset was deleted (its ledger history stays). */
  exists: boolean
  /** The privacy unit (CLI/JSON contract): "row", or the name of the person column. */
  unit: string
  unitKind: 'row' | 'person'
  /** The unit in words: 'person-level (person column "person_id")' or 'row-level (each row is a different person)'. */
  unitText: string
  /**
   * What one normal unit (person or row) has lost at most: the SUM over notions of each notion's `spent` (every notion
   * protects a normal unit, so their epsilons add up). The headline figure.
   */
  spentPerUnit: number
  spentPerUnitExact: string
  /**
   * The budget one unit is held to: the officer's budget set without a notion; without one, the sum of the notions' own
   * budgets; 0 when no budget is set (releases are denied).
   */
  budgetPerUnit: number
  /** The exact decimal; null when no budget is set (`budgetPerUnitSource` "none"), as in the reports. */
  budgetPerUnitExact: string | null
  /** Where `budgetPerUnit` comes from. */
  budgetPerUnitSource: 'per-unit' | 'notion-budgets' | 'none'
  /**
   * true: an analyst account of the service reads this, and every figure in it (spent, budget, remaining, the notions'
   * accounts, cells, releases) is of their own allotment and their own charges only; absent: the dataset's.
   */
  allotment?: boolean
  /**
   * The officer's and custodian's reading in the service: how many releases on the dataset overran its public answer
   * time (answered at a later multiple of it); a count above 0 is a prompt to raise the answer time. Absent elsewhere.
   */
  overruns?: number
  /** budgetPerUnit - spentPerUnit (negative if a budget was lowered below what was spent); null when no budget is set. */
  remainingPerUnit: number | null
  remainingPerUnitExact: string | null
  /** Entries of this dataset written before privacy units existed (row-level accounting); 0 for newer workspaces. */
  rowLevelEntries: number
  /** Per-notion breakdown of `spentPerUnit`: each notion also says whom it does not protect (anomalies, non-sensitive records). */
  accounts: NotionAccount[]
  /**
   * The service: spend per analyst account (each one's own charges, per unit summed over notions) and their own budgets.
   * Every account with a charge or an own budget on the dataset; an analyst reading it sees their own row only.
   */
  byAnalyst: AnalystSpend[]
  budgetChanges: Array<{
    seq: number
    at: string
    notion: PrivacyNotion | null
    epsilonExact: string
    actor: string
    reason: string
    /** Whether an officer's key signed it; false: `actor` is only the name that was recorded. */
    signed?: boolean
    /** The analyst account whose own budget this is; null: the dataset's. */
    analyst: string | null
  }>
}

/** One analyst account's spend on a dataset: what their own charges cost one unit at most, and their own budget. */
export interface AnalystSpend {
  accountId: number
  name: string
  /** Per unit, summed over notions, over the charges this account made (the whole dataset's `spentPerUnit` counts everyone's). */
  spentPerUnit: number
  spentPerUnitExact: string
  /** Their own budget per unit (the officer's, naming them); null: none, only the dataset's binds them. */
  budgetPerUnitExact: string | null
  /** Their own budget's remainder; null without one (the dataset's remainder applies). */
  remainingPerUnitExact: string | null
  /** Charges (releases) this account made on the dataset. */
  releases: number
}

export interface LedgerSummary {
  datasets: DatasetLedger[]
  /** Said wherever notions appear together: how they add up. */
  notionsNote: string
  entries: number
  headHash: string
  /** No officer is registered and this many budgets and public declarations in force are unsigned (0 otherwise). */
  unsignedActsInForce?: number
}

export interface LedgerVerifyResult {
  ok: boolean
  /** No officer is registered and this many budgets and public declarations in force are unsigned (0 otherwise). */
  unsignedActsInForce?: number
  entries: number
  /** Hash of the last entry: write it down elsewhere to detect a rewrite of the whole chain or a cut tail later. */
  headHash: string
  /** The first entry that does not verify, and why. */
  /**
   * The first problem: at an entry (`seq`), or, with `afterLastEntry`, in no entry (the audit log, a checkpoint's audit
   * head, sealed costs, a link), reported at the ledger's last seq + 1.
   */
  firstBroken: { seq: number; reason: string; afterLastEntry?: true } | null
  /** One sentence: green or red. */
  message: string
  /**
   * Only when a head was given (`expectHead`): whether it names an entry of this ledger. A head not found is not a proven
   * rewrite (it may be mistyped or another workspace's): `ok` is false, `firstBroken` stays null unless something else broke.
   */
  headFound?: boolean
  /** Officer acts with a valid signature (budgets, public declarations, unlocks, registrations), and signed checkpoints. */
  signedActs?: number
  checkpoints?: number
  /** The last signed checkpoint: the ledger entry and audit event it covers, who signed it and when; null: none yet. */
  lastCheckpoint?: { ledgerSeq: number; auditId: number; officer: string; at: string } | null
  /** Entries and audit events written after the last checkpoint: their rewrite or removal cannot be detected from the file alone. */
  notCheckpointed?: { entries: number; auditEvents: number }
  /** Registered officers (name, key id) whose keys the signatures were checked against. */
  officers?: Array<{ name: string; keyId: string }>
}

export interface OfficerSummary {
  keyId: string
  name: string
  createdAt: string
  addedByName: string
}

/** A ledger receipt: the heads of both chains signed by an officer, for the officer to keep outside the workspace. */
export type LedgerReceipt = z.infer<typeof ledgerReceiptSchema>

export interface CheckpointResult {
  ledgerSeq: number
  ledgerHash: string
  auditId: number
  officer: string
  at: string
  /** The checkpoint as a receipt to keep elsewhere (`ledger verify --receipt` checks the workspace against it). */
  receipt: LedgerReceipt
}

/** A budget set by the officer, with a reason, signed with the officer's key (fields: schemas/requests.ts). */
export type SetBudgetRequest = z.infer<typeof setBudgetRequestSchema>

// ---------------------------------------------------------------------------------------------------------------
// Releases

/** Accuracy of a threshold-query release: the analyst states accuracy, the ledger charges the epsilon it costs. */
export type ThresholdReleaseParams = z.infer<typeof thresholdReleaseParamsSchema>

export type AnomalyIdentificationReleaseParams = z.infer<typeof anomalyIdentificationReleaseParamsSchema>

/** Anomaly search takes its parameters (epsilon per query, budget, oracle, stopping rule) from the saved query. */
export type AnomalySearchReleaseParams = z.infer<typeof anomalySearchReleaseParamsSchema>

export type ReleaseParams = z.infer<typeof releaseParamsSchema>

export type ReleaseRequest = z.infer<typeof releaseRequestSchema>

export interface ReleasePreview {
  queryId: number
  queryName: string
  datasetId: number
  datasetName: string
  kind: ReleaseKind
  notion: PrivacyNotion
  /** The charge: the mechanism's worst-case epsilon for the requested accuracy, times the sensitivity. */
  epsilon: number
  epsilonExact: string
  /** How the charge was computed, in words ("ln(1/(2 beta))/alpha = 2.996 x sensitivity 1 (each row counts once)"). */
  chargeExplained: string
  /** Cells the release would charge (0 = the whole dataset). */
  cellCount: number
  /** What one unit has lost at most, summed over notions (`spentPerUnit`), before and after this release; `budget` is the budget per unit. */
  spentBefore: number
  spentBeforeExact: string
  spentAfter: number
  spentAfterExact: string
  budget: number | null
  budgetExact: string | null
  remaining: number | null
  remainingExact: string | null
  allowed: boolean
  /** When not allowed: one sentence with requested / remaining / difference. */
  denial: string | null
  /**
   * When not allowed and something is left: the nearest accuracy that fits it ("alpha >= 3.1 fits the 0.39 left"), per
   * parameter the analyst sets; priced from the definition, the mechanism's formula and the ledger only.
   */
  fit?: { sentence: string; fits: Array<{ param: 'alpha' | 'beta' | 'epsilon'; value: number; epsilonExact: string }> } | null
  /** Threshold questions: the charge over a range of alphas around the current one (priced like this preview), for the trade-off chart. */
  tradeoff?: { param: 'alpha'; current: number; points: Array<{ value: number; epsilon: number }> } | null
  guarantee: string
  /**
   * What the guarantee will not support, said before anything is spent (from public inputs only), e.g. a tolerance (the false-positive band)
   * that reaches a public threshold: a group there may be flagged with nothing counted.
   */
  warnings?: string[]
}

/**
 * Accuracy against epsilon before anything is spent (from public inputs only): anomaly identification's error
 * probability in closed form (Construction 1), an anomaly search's chance of finding the anomaly in the top S by seeded
 * runs on the least favourable scores its thresholds allow. The x axis is the charge.
 */
export interface AccuracyPreview {
  queryId: number
  kind: 'anomaly-identification' | 'anomaly-search'
  /** 'error': the probability an answer is wrong (lower is better); 'found': the probability of finding the anomaly (higher). */
  measure: 'error' | 'found'
  /** What the y axis shows, in words. */
  valueLabel: string
  series: Array<{ name: string; points: Array<{ epsilon: number; value: number }> }>
  /** The charge of the request as asked (marked on the chart). */
  currentEpsilon: number
  /** The request's accuracy in one sentence ("At ε 3: each answer is wrong with probability at most 27%; ..."). */
  sentence: string
  /** How it was computed: "closed form (Construction 1)" or "seeded simulation: 400 runs per point, seed ..., least favourable scores". */
  method: string
}

export type ReleaseStatus = 'answered' | 'interrupted' | 'failed' | 'running'

/**
 * One predicate of a threshold release: its public part (the group, its threshold) and the released decision.
 * Thresholds are query parameters treated as public (a constant, another dataset's column, or a reference-period
 * aggregate: see docs/guide/queries.md). There is deliberately no count and no noisy value here.
 */
export interface ThresholdDecision {
  /** Key tuple in groupBy order, canonical (timestamps as ISO 8601 UTC with milliseconds: the form ledger cells hold). */
  key: Array<string | number | null>
  /**
   * The same values as the question wrote them ("2014-07-01 00:00:00" stays that text; values from a public table as
   * the catalog shows them). Absent from releases answered before this field existed: show `key` (shown-values.ts).
   */
  shown?: Array<string | number | null>
  /** e.g. "building=A, room=A-101" */
  label: string
  /**
   * The predicate's threshold, in the units counted (rows or persons), as the saved query defines it; null when the
   * threshold is computed from the dataset's own counts (a reference period): that value is data, not released.
   */
  threshold: number | null
  /**
   * The released decision: true = flagged. The guarantee supports "over its threshold, or at most `tolerance` (the
   * mechanism's false-positive band) under it", never "over its threshold" alone.
   */
  flagged: boolean
}

/** A threshold release's answer: one decision per predicate. */
export interface ThresholdAnswer {
  kind: 'threshold'
  /** Predicates asked (the predicate set is public: it comes from the thresholds or the saved query). */
  predicates: number
  /** Group-by columns as the answer names them (a column grouped by time: "hour of at"), and the flagged predicates as their key tuples in that order. */
  groupBy: string[]
  flagged: Array<Array<string | number | null>>
  /**
   * Every predicate asked, in predicate order, with its public threshold and its released decision (absent from
   * releases answered before this field existed).
   */
  decisions?: ThresholdDecision[]
  /** What the thresholds are, in words ("constant 40", "column capacity of dataset capacities", ...). */
  thresholdText?: string
  /** What is compared with the thresholds, in words ("row count", "count of distinct person_id"). */
  countText?: string
  /**
   * The mechanism's false-positive band in the units compared (2 alpha for TSLM and PPWLM, wider for DPPWLM:
   * src-worker/engine/mide/guarantee.ts): a flagged group may be this much under its threshold; one further under is
   * flagged with probability at most beta. Absent from releases answered before this field existed.
   */
  tolerance?: number
}

/** What a release shows: decisions only. Never a true count, a raw noisy value or an ex-post cost. */
export type ReleaseAnswer =
  | ThresholdAnswer
  | {
      kind: 'anomaly-identification'
      columns: string[]
      /** One released bit per queried record: "anomaly" or "normal". */
      records: Array<{ record: Array<string | number>; anomaly: boolean }>
    }
  | {
      kind: 'anomaly-search'
      /** The |S| individuals most likely to be the anomaly, most likely first. */
      top: Array<string | number>
      idColumn: string | null
      /**
       * The search's posterior probability of each of `top` (same order), snapped to `posteriorGrid` (0.01): post-processing
       * of the charged noisy answers. The rest of the posterior, the queries used and the stopping reason stay sealed.
       * Absent from releases answered before this field existed.
       */
      posterior?: number[]
      posteriorGrid?: number
      /**
       * Whether the released top posterior reaches the stopping rule's level (`decisiveAt`): only then is the first of
       * `top` a finding. An inconclusive search's ids are candidates, never a verdict. A function of the released
       * posterior only. Absent from releases answered before these fields existed.
       */
      conclusive?: boolean
      decisiveAt?: number
      /** One sentence: "Most likely the anomaly: ..., with posterior 0.93 ..." or "Inconclusive: the most likely individual has posterior 0.01 ...". */
      verdict?: string
    }
  | {
      kind: 'alarm-period'
      alarmId: number
      /** A period's answer: its index, its range [from, to) and the threshold answer on the period's rows. */
      period?: number
      from?: string
      to?: string
      threshold?: ThresholdAnswer
      /** A when-fires instance's charge: its ordinal and first period; its fires are in the alarm's history, per period. */
      instance?: number
      firstPeriod?: number
      fires?: string
    }

export interface ReleaseRecord {
  releaseId: number
  createdAt: string
  queryId: number
  queryName: string
  datasetId: number
  datasetName: string
  kind: ReleaseKind
  mechanism: string
  notion: PrivacyNotion
  epsilon: number
  epsilonExact: string
  /** The ledger entry that charged it. */
  ledgerSeq: number
  guarantee: string
  status: ReleaseStatus
  /** "answered", or e.g. "charged, no answer: interrupted". */
  statusText: string
  answer: ReleaseAnswer | null
  answeredAt: string | null
}

export interface ExPostCosts {
  releaseId: number
  notion: PrivacyNotion
  /** Charged (worst case) vs. actually spent, data-dependent. */
  chargedExact: string
  /** The maximum over predicates (threshold), or T x eps (search), or the charge (anomaly identification). */
  spentMax: number
  /** Threshold releases: epsilon actually spent per predicate (key tuple), in predicate order. */
  perPredicate?: Array<{ predicate: Array<string | number | null>; epsilon: number }>
  /** Anomaly search: queries asked. */
  queries?: number
}

export interface LedgerMethods {
  'ledger/entries': { req: LedgerEntriesRequest; res: { entries: LedgerEntry[]; total: number } }
  /** Spend per notion and per cell, budgets, remaining; for one dataset or all. */
  'ledger/summary': { req: RequestFromSchema<'ledger/summary'>; res: LedgerSummary }
  /** Recompute the hash chain and the cross-references; red with the first broken entry, or green. */
  'ledger/verify': { req: RequestFromSchema<'ledger/verify'>; res: LedgerVerifyResult }
  /** Privacy officer: set or change a budget, with a reason (a ledger entry). */
  'budgets/set': { req: SetBudgetRequest; res: { entry: LedgerEntry; account: DatasetLedger } }
  /** What the requested accuracy costs and whether it would be admitted: nothing is spent. */
  'releases/preview': { req: ReleaseRequest; res: ReleasePreview }
  /** Accuracy against epsilon for anomaly identification and search (public inputs only; a search's is simulated, seeded). */
  'releases/accuracy': { req: ReleaseRequest; res: AccuracyPreview }
  /** Charge, then answer. Denied requests throw a user error (code "denied") and spend nothing. */
  'releases/run': { req: ReleaseRequest; res: ReleaseRecord }
  'releases/list': { req: RequestFromSchema<'releases/list'>; res: ReleaseRecord[] }
  'releases/get': { req: RequestFromSchema<'releases/get'>; res: ReleaseRecord }
  /** Privacy officer: read the sealed ex-post costs of a release. The unlock is recorded as an audit event first. */
  'officer/unlock-ex-post': { req: RequestFromSchema<'officer/unlock-ex-post'>; res: ExPostCosts }
  /** The registered privacy officers (public information: names and key ids). */
  'officer/list': { req: RequestFromSchema<'officer/list'>; res: OfficerSummary[] }
  /** Privacy officer: sign the heads of the ledger and the audit log (a checkpoint). */
  'ledger/checkpoint': { req: RequestFromSchema<'ledger/checkpoint'>; res: CheckpointResult }
  /**
   * Register a privacy officer: the first one of the workspace alone, every later one added by a registered officer
   * (`by`: their name and passphrase; the registration is signed with their key). Answers the key id to keep elsewhere.
   */
  'officer/register': { req: RequestFromSchema<'officer/register'>; res: OfficerSummary & { fingerprint: string } }
}

export const ledgerMethodNames: Record<keyof LedgerMethods, true> = {
  'ledger/entries': true,
  'ledger/summary': true,
  'ledger/verify': true,
  'budgets/set': true,
  'releases/preview': true,
  'releases/accuracy': true,
  'releases/run': true,
  'releases/list': true,
  'releases/get': true,
  'officer/unlock-ex-post': true,
  'officer/list': true,
  'ledger/checkpoint': true,
  'officer/register': true
}
