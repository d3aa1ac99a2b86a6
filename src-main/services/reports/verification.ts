/**
 * The report's verification block: the SHA-256 of the canonical JSON of its data (= the SHA-256 of the json export
 * file), the SHA-256 of each CSV table, the ledger's own verification at generation time, and the CLI options that
 * reproduce the report.
 */
import { createHash } from 'node:crypto'
import type Database from 'better-sqlite3'
import type { ReportData, ReportTable, ReportVerification } from '../../contract/reports'
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

export function buildVerification(db: Database.Database, data: ReportData, generatedAt: Date): ReportVerification {
  const v = verifyLedger(db)
  const csvSha256 = Object.fromEntries(REPORT_TABLES.map((t) => [t, sha256Hex(csvText(data, t))])) as Record<ReportTable, string>
  return {
    generatedAt: generatedAt.toISOString(),
    dataSha256: sha256Hex(reportJson(data)),
    csvSha256,
    ledgerVerify: { ok: v.ok, entries: v.entries, headHash: v.headHash, message: v.message },
    reproduceArgs: reproduceArgs(data)
  }
}
