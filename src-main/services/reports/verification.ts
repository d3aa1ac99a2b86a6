/**
 * The report's verification block: the SHA-256 of the canonical JSON of its data (= the SHA-256 of the json export
 * file), the SHA-256 of each CSV table, the ledger's own verification at generation time, and the CLI options that
 * reproduce the report.
 */
import { createHash } from 'node:crypto'
import type Database from 'better-sqlite3'
import { type ReportData, type ReportSignature, type ReportTable, type ReportVerification, reportSigningText } from '../../contract/reports'
import { writeCheckpoint } from '../trust/checkpoints'
import type { OfficerKey } from '../trust/officers'
import { canonicalJson } from '../chain/canonical'
import { verifyLedger } from '../ledger/verify'
import { csvText } from './csv-tables'

export const REPORT_TABLES: readonly ReportTable[] = ['ledger', 'releases', 'denials', 'experiments']

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex')
}

/** The json export: canonical JSON (keys sorted at every level, no whitespace, no trailing newline), UTF-8. */
export function reportJson(data: ReportData): string {
  return canonicalJson(data)
}

/** Quote a CLI argument for a POSIX shell when needed. */
function shellArg(s: string): string {
  return /^[A-Za-z0-9._:/=@+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`
}

export function reproduceArgs(data: ReportData): string {
  const args: string[] = []
  if (data.scope.datasetId !== null) args.push('--dataset', String(data.scope.datasetId))
  if (data.period.from !== null) args.push('--from', data.period.from)
  args.push('--to', data.period.to)
  args.push('--edition', data.edition)
  return args.map(shellArg).join(' ')
}

/** The officer signs the data's SHA-256 with a checkpoint written now (an officer act: refused on a ledger that does not verify). */
function signReport(db: Database.Database, dataSha256: string, key: OfficerKey): ReportSignature {
  const cp = writeCheckpoint(db, key)
  const checkpoint = { id: cp.id, at: cp.at, ledgerSeq: cp.ledgerSeq, ledgerHash: cp.ledgerHash, auditId: cp.auditId, auditHash: cp.auditHash }
  return { keyId: key.keyId, officer: key.name, checkpoint, signature: key.sign(reportSigningText(dataSha256, checkpoint, key.keyId)) }
}

export function buildVerification(db: Database.Database, data: ReportData, generatedAt: Date, officerKey?: OfficerKey): ReportVerification {
  const v = verifyLedger(db)
  const csvSha256 = Object.fromEntries(REPORT_TABLES.map((t) => [t, sha256Hex(csvText(data, t))])) as Record<ReportTable, string>
  const dataSha256 = sha256Hex(reportJson(data))
  return {
    generatedAt: generatedAt.toISOString(),
    dataSha256,
    csvSha256,
    ledgerVerify: { ok: v.ok, entries: v.entries, headHash: v.headHash, message: v.message },
    reproduceArgs: reproduceArgs(data),
    officerSignature: officerKey === undefined || !v.ok ? null : signReport(db, dataSha256, officerKey)
  }
}
