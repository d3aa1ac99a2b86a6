/**
 * Contract methods of the reports area: audit reports of the ledger, releases, denials and experiments, as
 * PDF (printed by Chromium from one HTML template), CSV tables or the canonical JSON of the report's data.
 *
 * Types only (plus the run-time allow-list): the renderer imports this file.
 *
 * What a report shows is exactly `ReportData`; its SHA-256 (`dataSha256`) is the SHA-256 of the canonical JSON of that
 * object (keys sorted at every level, no whitespace), which is byte for byte the `json` export. Releases show decisions
 * only (how many predicates or records were flagged), never a true count or a noisy value; the sealed ex-post costs
 * appear only in the officer edition, and reading them is recorded as an unlock audit event per release.
 */
import type { z } from 'zod'
import type { ParamValue } from './experiments'
import type {
  REPORT_EDITIONS,
  REPORT_FORMATS,
  REPORT_PAGE_SIZES,
  REPORT_TABLES,
  RequestFromSchema,
  reportExportRequestSchema,
  reportRequestSchema
} from './schemas/requests'
import type { PrivacyNotion, ReleaseStatus } from './ledger'
import type { ReleaseKind } from './release-kinds'

/** analyst: no ex-post costs. officer: with the sealed ex-post costs (each read is recorded as an unlock). */
export type ReportEdition = (typeof REPORT_EDITIONS)[number]
export type ReportFormat = (typeof REPORT_FORMATS)[number]
export type ReportTable = (typeof REPORT_TABLES)[number]
export type ReportPageSize = (typeof REPORT_PAGE_SIZES)[number]

/** Scope (a dataset or the workspace), period [from, to), edition; the officer edition's officer, reason and passphrase. */
export type ReportRequest = z.infer<typeof reportRequestSchema>

/** A report as a file: format, csv table, pdf page size. No output path: fetched with reports/download or saved through the desktop dialog. */
export type ReportExportRequest = z.infer<typeof reportExportRequestSchema>

// ---------------------------------------------------------------------------------------------------------------
// The report's data (what it shows, and what the SHA-256 covers). Epsilons are exact decimal strings (nano-epsilon).

export interface ReportCell {
  key: string
  label: string
  /** Charges on the cell and everything overlapping it, within the period / up to the end of the period. */
  inPeriodExact: string
  totalExact: string
}

export interface ReportAccount {
  notion: PrivacyNotion
  label: string
  /** The notion's own budget (an extra cap) in force at the end of the period; null: none (the budget per unit applies). */
  budgetExact: string | null
  /** Spend (max over cells of their sums) from charges in the period. */
  spentInPeriodExact: string
  /** Spend from every charge before the end of the period (what the budget is compared with). */
  spentTotalExact: string
  /** The smaller of what the notion's own budget and the budget per unit leave; null without either (denied). */
  remainingExact: string | null
  releasesInPeriod: number
  /** Cells by total spend, largest first (at most 25). */
  cells: ReportCell[]
  cellCount: number
}

export interface ReportDataset {
  datasetId: number
  datasetName: string
  /** The privacy unit: "row" or the person column's name; and in words. */
  unit: string
  unitText: string
  /** What one normal person (or row) lost: the sum over notions of each notion's spend (in the period / up to its end). */
  spentPerUnitInPeriodExact: string
  spentPerUnitTotalExact: string
  /** The budget per unit at the end of the period (without one: the sum of the notions' own budgets); null: none. */
  budgetPerUnitExact: string | null
  remainingPerUnitExact: string | null
  /** The per-notion breakdown. */
  accounts: ReportAccount[]
  /** The service: spend per analyst account (their own charges, per unit summed over notions) and their own budgets. */
  byAnalyst: ReportAnalystSpend[]
}

export interface ReportAnalystSpend {
  accountId: number
  name: string
  spentInPeriodExact: string
  spentTotalExact: string
  /** Their own budget per unit at the end of the period (the officer's, naming them); null: none, the dataset's only. */
  budgetExact: string | null
  releasesInPeriod: number
}

export interface ReportRelease {
  releaseId: number
  createdAt: string
  datasetId: number
  datasetName: string
  queryId: number
  queryName: string
  kind: ReleaseKind
  mechanism: string
  notion: PrivacyNotion
  /** The request's public parameters as recorded (accuracy, mechanism settings; no data). */
  params: Record<string, string | number | boolean | null>
  chargeExact: string
  ledgerSeq: number
  status: ReleaseStatus
  /** Released decisions only: predicates / records asked and how many were flagged (search: |S| reported). */
  asked: number | null
  flagged: number | null
  /** The first flagged predicates (records; search: the top individuals), named from their public keys, at most 12. */
  flaggedNames?: string[]
  /** Officer edition only. spentMax: the data-dependent epsilon actually spent (max over predicates; search: T x eps). */
  exPost?: { spentMax: number | null; queries: number | null; sealed: boolean }
}

export interface ReportDenial {
  auditId: number
  at: string
  actor: string
  datasetId: number | null
  datasetName: string | null
  queryId: number | null
  queryName: string | null
  notion: string | null
  requestedExact: string | null
  remainingExact: string | null
  budgetExact: string | null
}

export interface ReportUnlock {
  auditId: number
  at: string
  officer: string
  releaseId: number | null
  reason: string
}

export interface ReportLedgerEntry {
  seq: number
  at: string
  kind: 'charge' | 'budget' | 'public' | 'alarm'
  datasetId: number
  datasetName: string
  notion: PrivacyNotion | null
  amountExact: string
  cellCount: number
  releaseId: number | null
  actor: string
  description: string
  prevHash: string
  hash: string
}

export interface ReportMetricValue {
  mean: number | null
  ciLow: number | null
  ciHigh: number | null
  n: number
}

export interface ReportExperimentCell {
  index: number
  sweep: string
  workload: string
  mechanism: string
  params: Record<string, ParamValue>
  trials: number
  status: 'pending' | 'done' | 'failed'
  metrics: Record<string, ReportMetricValue>
}

export interface ReportExperiment {
  id: string
  name: string
  engine: string
  /** Always true: simulations with ground truth, seeded, never charged. */
  simulation: true
  seed: string
  status: string
  createdAt: string
  cellsTotal: number
  cellsDone: number
  metrics: Array<{ name: string; description: string }>
  cells: ReportExperimentCell[]
}

export interface ReportData {
  schema: 'quiet-alarm-report/1'
  edition: ReportEdition
  scope: { datasetId: number | null; datasetName: string | null }
  period: { from: string | null; to: string }
  /** The hash chain's head at the end of the period: the last ledger entry before `to` (seq 0 and 64 zeros if none). */
  ledgerHead: { seq: number; hash: string }
  notionsNote: string
  totals: { ledgerEntries: number; releases: number; denials: number; unlocks: number; experiments: number }
  datasets: ReportDataset[]
  releases: ReportRelease[]
  denials: ReportDenial[]
  unlocks: ReportUnlock[]
  ledgerEntries: ReportLedgerEntry[]
  experiments: ReportExperiment[]
}

/** What surrounds the data: facts at generation time, outside the hash. */
export interface ReportVerification {
  generatedAt: string
  /** SHA-256 (hex) of the canonical JSON of `ReportData`: the SHA-256 of the json export file. */
  dataSha256: string
  /** SHA-256 of each CSV table exported with the same scope, period and edition. */
  csvSha256: Record<ReportTable, string>
  /** `ledger verify` of the whole ledger at generation time. */
  ledgerVerify: { ok: boolean; entries: number; headHash: string; message: string }
  /** The CLI options that reproduce this report (scope, period, edition). */
  reproduceArgs: string
  /**
   * Officer edition: the officer's Ed25519 signature over the data's SHA-256 and a checkpoint written for the report
   * (`reportSigningText`, docs/spec/v1/ledger.md section 8), so that a report can be authenticated from itself and an
   * auditor export; null for the analyst edition.
   */
  officerSignature: ReportSignature | null
}

export interface ReportSignature {
  keyId: string
  officer: string
  checkpoint: { id: number; at: string; ledgerSeq: number; ledgerHash: string; auditId: number; auditHash: string }
  signature: string
}

/** What the officer signs for a report: its data's SHA-256 and the checkpoint it is tied to. */
export function reportSigningText(dataSha256: string, c: ReportSignature['checkpoint'], keyId: string): string {
  return `quiet-alarm/report/v1\n${dataSha256}\n${c.id}\n${c.ledgerSeq}\n${c.ledgerHash}\n${c.auditId}\n${c.auditHash}\n${keyId}`
}

export interface ReportPreview {
  data: ReportData
  verification: ReportVerification
  /** The self-contained HTML the PDF is printed from (no scripts, no network). */
  html: string
}

/** `JobInfo.result` of a finished `reports/export` job (kind "report"). */
export interface ReportExportResult {
  format: ReportFormat
  table: ReportTable | null
  fileName: string
  bytes: number
  mimeType: string
  fileSha256: string
  dataSha256: string
  releases: number
  seconds: number
}

export interface ReportMethods {
  /** The report's data, verification and HTML, for the Reports screen. The officer edition records its unlocks. */
  'reports/preview': { req: ReportRequest; res: ReportPreview }
  /** Start writing a PDF, CSV table, JSON or HTML: a job (kind "report", unit "steps") whose result is a ReportExportResult. */
  'reports/export': { req: ReportExportRequest; res: { jobId: string } }
  /** The file a finished export job wrote, as base64 (headless mode: the browser saves it as a download). */
  'reports/download': { req: RequestFromSchema<'reports/download'>; res: { fileName: string; mimeType: string; bytes: number; base64: string } }
  /**
   * Desktop: the shell shows a save dialog in the main process and writes the file a finished export job produced there
   * (saved: false when the user cancels). Headless: fails with code "use-download" (use `reports/download`).
   */
  'reports/save': { req: RequestFromSchema<'reports/save'>; res: { saved: boolean; fileName: string } }
}

export const reportsMethodNames: Record<keyof ReportMethods, true> = {
  'reports/preview': true,
  'reports/export': true,
  'reports/download': true,
  'reports/save': true
}
