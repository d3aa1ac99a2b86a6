/**
 * Producing a report: validate the request -> gather the data -> verification -> the chosen output (PDF printed from
 * the HTML template, a CSV table, the canonical JSON, or the HTML itself) -> write it atomically (temp file + rename).
 * Shared by the `reports/*` handlers (as a job) and the `report` CLI command.
 */
import type { ReleaseView } from '../releases/release-service'
import { closeSync, constants, accessSync, existsSync, fsyncSync, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import type {
  ReportData,
  ReportEdition,
  ReportExportRequest,
  ReportFormat,
  ReportPageSize,
  ReportRequest,
  ReportTable,
  ReportVerification
} from '../../contract/reports'
import { CancelledError, UserError } from '../platform/errors'
import type { PdfPrinter } from '../platform/handler-types'
import type { Store } from '../store/store'
import { createChromiumPrinter } from './chromium-printer'
import { csvText } from './csv-tables'
import { type Period, resolvePeriod } from './period'
import { findDataset, gatherReportData } from './report-data'
import { footerHtml, renderReportHtml } from './report-html'
import { REPORT_TABLES, buildVerification, reportJson, sha256Hex } from './verification'
import { type OfficerKey, unlockOfficer } from '../trust/officers'

export const FORMATS: readonly ReportFormat[] = ['pdf', 'csv', 'json', 'html']
export const EDITIONS: readonly ReportEdition[] = ['analyst', 'officer']
export const PAGE_SIZES: readonly ReportPageSize[] = ['A4', 'Letter']

export interface ResolvedRequest {
  datasetId: number | null
  period: Period
  edition: ReportEdition
  officer?: string
  reason?: string
  /** Officer edition: the officer's key, unlocked with the passphrase when the request is resolved (the passphrase is not kept). */
  officerKey?: OfficerKey
}

export interface ResolvedExport extends ResolvedRequest {
  format: ReportFormat
  table: ReportTable
  pageSize: ReportPageSize
}

function oneOf<T extends string>(name: string, v: unknown, allowed: readonly T[], fallback: T): T {
  if (v === undefined || v === null) return fallback
  if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) {
    throw new UserError(`${name} must be one of ${allowed.join(', ')} (got "${String(v).slice(0, 30)}")`)
  }
  return v as T
}

function optText(name: string, v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined
  if (typeof v !== 'string') throw new UserError(`${name} must be text`)
  return v
}

/** Checks a request as it comes from a transport (types included) and fixes the period. */
export function resolveRequest(store: Store, req: ReportRequest, now = new Date()): ResolvedRequest {
  let datasetId: number | null = null
  if (req.datasetId !== undefined && req.datasetId !== null) {
    if (typeof req.datasetId !== 'number' || !Number.isInteger(req.datasetId)) throw new UserError('datasetId must be a whole number')
    datasetId = findDataset(store.db, req.datasetId).id
  }
  const period = resolvePeriod(optText('from', req.from), optText('to', req.to), now)
  const edition = oneOf('edition', req.edition, EDITIONS, 'analyst')
  const officer = optText('officer', req.officer)?.trim()
  const reason = optText('reason', req.reason)?.trim()
  if (edition === 'officer') {
    if (officer !== undefined && officer.length > 100) throw new UserError('The officer name is too long (at most 100 characters)')
    if (reason !== undefined && reason.length > 500) throw new UserError('The reason is too long (at most 500 characters)')
    // The sealed costs open only with a registered officer's key: the passphrase is checked here, before any job starts.
    const officerKey = unlockOfficer(store.db, { officer, passphrase: typeof req.passphrase === 'string' ? req.passphrase : undefined })
    return { datasetId, period, edition, officer: officerKey.name, reason, officerKey }
  }
  return { datasetId, period, edition, officer, reason }
}

export function resolveExport(store: Store, req: ReportExportRequest, now = new Date()): ResolvedExport {
  const format = oneOf('format', req.format, FORMATS, 'pdf')
  if (req.format === undefined) throw new UserError(`format is required: one of ${FORMATS.join(', ')}`)
  const table = oneOf('table', req.table, REPORT_TABLES, 'ledger')
  const pageSize = oneOf('pageSize', req.pageSize, PAGE_SIZES, 'A4')
  return { ...resolveRequest(store, req, now), format, table, pageSize }
}

/** Refuses before any work when the output path cannot be written (missing folder, a folder, no permission). */
export function checkWritable(path: string): void {
  const dir = dirname(path)
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UserError(`Cannot write ${path}: the folder ${dir} does not exist`, 'bad-output')
  if (existsSync(path) && statSync(path).isDirectory()) throw new UserError(`Cannot write ${path}: it is a folder; give a file name`, 'bad-output')
  try {
    accessSync(dir, constants.W_OK)
    if (existsSync(path)) accessSync(path, constants.W_OK)
  } catch {
    throw new UserError(`Cannot write ${path}: permission denied; choose another file`, 'bad-output')
  }
}

/** Write to a temporary file next to the target and rename it at the end: the target is complete or untouched. */
export function writeAtomically(path: string, bytes: Uint8Array | string): void {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${Date.now()}.tmp`)
  try {
    const fd = openSync(tmp, 'w', 0o600)
    try {
      const buf = typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes
      let off = 0
      while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off)
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    renameSync(tmp, path)
  } catch (e) {
    rmSync(tmp, { force: true })
    if (e instanceof UserError) throw e
    throw new UserError(`Cannot write ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, 'bad-output')
  }
}

export const MIME: Record<ReportFormat, string> = {
  pdf: 'application/pdf',
  csv: 'text/csv; charset=utf-8',
  json: 'application/json',
  html: 'text/html; charset=utf-8'
}

export function reportFileName(r: ResolvedExport, data: ReportData): string {
  const scope =
    data.scope.datasetId === null
      ? 'workspace'
      : (data.scope.datasetName ?? `dataset-${data.scope.datasetId}`).replace(/[^A-Za-z0-9._-]+/g, '-').slice(0, 40)
  const day = data.period.to.slice(0, 10)
  const what = r.format === 'csv' ? r.table : 'report'
  return `quiet-alarm-${what}-${scope}-${r.edition}-${day}.${r.format}`
}

export interface ProducedReport {
  data: ReportData
  verification: ReportVerification
  bytes: Uint8Array
  fileName: string
  mimeType: string
}

export interface ProduceOptions {
  printer?: PdfPrinter
  signal?: AbortSignal
  /** Progress in steps out of 100. */
  onProgress?: (done: number, total: number) => void
  now?: Date
  /** How releases are shown (the service hides an answer until its recorded time); default: as stored. */
  releaseView?: ReleaseView
}

/** Data, verification and HTML (the preview, and the first half of every export). */
export async function prepareReport(
  store: Store,
  r: ResolvedRequest,
  o: ProduceOptions = {}
): Promise<{ data: ReportData; verification: ReportVerification; html: string }> {
  const data = await gatherReportData(store, {
    datasetId: r.datasetId,
    period: r.period,
    edition: r.edition,
    officer: r.officer,
    officerKey: r.officerKey,
    reason: r.reason,
    signal: o.signal,
    releaseView: o.releaseView,
    onProgress: (done, total) => o.onProgress?.(Math.round(5 + (total === 0 ? 60 : (60 * done) / total)), 100)
  })
  if (o.signal?.aborted) throw new CancelledError()
  const verification = buildVerification(store.db, data, o.now ?? new Date(), r.officerKey)
  o.onProgress?.(75, 100)
  const html = renderReportHtml(data, verification)
  o.onProgress?.(80, 100)
  return { data, verification, html }
}

export async function produceReport(store: Store, r: ResolvedExport, o: ProduceOptions = {}): Promise<ProducedReport> {
  o.onProgress?.(0, 100)
  const { data, verification, html } = await prepareReport(store, r, o)
  if (o.signal?.aborted) throw new CancelledError()
  let bytes: Uint8Array
  switch (r.format) {
    case 'pdf': {
      const printer = o.printer ?? createChromiumPrinter({ signal: o.signal })
      bytes = await printer.print(html, { pageSize: r.pageSize, footerHtml: footerHtml(data) })
      break
    }
    case 'csv':
      bytes = Buffer.from(csvText(data, r.table), 'utf8')
      break
    case 'json':
      bytes = Buffer.from(reportJson(data), 'utf8')
      break
    case 'html':
      bytes = Buffer.from(html, 'utf8')
      break
  }
  if (o.signal?.aborted) throw new CancelledError()
  o.onProgress?.(100, 100)
  return { data, verification, bytes, fileName: reportFileName(r, data), mimeType: MIME[r.format] }
}

export { sha256Hex }
