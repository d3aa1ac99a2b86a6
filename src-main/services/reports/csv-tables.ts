/**
 * CSV tables of a report: ledger entries, releases, denials, experiment results. Each is a pure function of
 * `ReportData`, so a table exported later with the same scope, period and edition is byte for byte the same (its
 * SHA-256 is printed in the report).
 *
 * Format (documented in README "Audit reports"): RFC 4180 (comma, CRLF line ends, fields with comma, quote, CR or LF quoted,
 * quotes doubled), UTF-8 without BOM, one header row. Text fields that a spreadsheet could run as a formula (starting
 * with = + - @ TAB or CR), and text fields starting with an apostrophe, get one apostrophe in front; a reader removes one
 * leading apostrophe from a text field to get the value back. Numbers, and text that is a plain decimal ("-0.25"), are
 * never prefixed.
 * Empty field = null.
 */
import type { ReportData, ReportTable } from '../../contract/reports'

export type CsvValue = string | number | boolean | null | undefined

/** Numbers as numbers; text neutralised against formula injection. */
export function csvField(v: CsvValue): string {
  if (v === null || v === undefined) return ''
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : ''
  if (typeof v === 'boolean') return v ? 'true' : 'false'
  let s = v
  // A plain decimal such as "-0.25" is a number to a spreadsheet, not a formula: left as it is.
  if (/^[=+\-@\t\r']/.test(s) && !/^-?\d+(\.\d+)?$/.test(s)) s = `'${s}`
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s
}

/** The inverse of the text neutralisation, for readers (and the tests). */
export function unneutralise(field: string): string {
  return field.startsWith("'") ? field.slice(1) : field
}

export function toCsv(header: readonly string[], rows: CsvValue[][]): string {
  const lines = [header.map(csvField).join(',')]
  for (const r of rows) lines.push(r.map(csvField).join(','))
  return lines.join('\r\n') + '\r\n'
}

/** "alpha=1; beta=0.05" (keys sorted): the public parameters of a release in one field. */
export function paramsText(p: Record<string, unknown>): string {
  return Object.keys(p)
    .sort()
    .map((k) => `${k}=${p[k] === null ? 'none' : String(p[k])}`)
    .join('; ')
}

export const CSV_HEADERS: Record<ReportTable, readonly string[]> = {
  ledger: ['seq', 'at', 'kind', 'dataset_id', 'dataset', 'notion', 'epsilon', 'cell_count', 'release_id', 'actor', 'description', 'prev_hash', 'hash'],
  releases: [
    'release_id',
    'created_at',
    'dataset_id',
    'dataset',
    'query_id',
    'query',
    'kind',
    'mechanism',
    'notion',
    'params',
    'charge_epsilon',
    'ledger_seq',
    'status',
    'asked',
    'flagged'
  ],
  denials: ['audit_id', 'at', 'actor', 'dataset_id', 'dataset', 'query_id', 'query', 'notion', 'requested_epsilon', 'remaining_epsilon', 'budget_epsilon'],
  experiments: [
    'kind',
    'experiment_id',
    'experiment',
    'engine',
    'base_seed',
    'status',
    'cell',
    'sweep',
    'workload',
    'mechanism',
    'params',
    'trials',
    'cell_status',
    'metric',
    'n',
    'mean',
    'ci_low',
    'ci_high'
  ]
}

/** Officer edition only: appended to the releases table. */
export const OFFICER_RELEASE_COLUMNS = ['ex_post_epsilon', 'ex_post_queries', 'ex_post_sealed'] as const

export function csvTable(data: ReportData, table: ReportTable): { header: string[]; rows: CsvValue[][] } {
  switch (table) {
    case 'ledger':
      return {
        header: [...CSV_HEADERS.ledger],
        rows: data.ledgerEntries.map((e) => [
          e.seq,
          e.at,
          e.kind,
          e.datasetId,
          e.datasetName,
          e.notion ?? (e.kind === 'budget' ? 'all' : null),
          e.amountExact,
          e.cellCount,
          e.releaseId,
          e.actor,
          e.description,
          e.prevHash,
          e.hash
        ])
      }
    case 'releases': {
      const officer = data.edition === 'officer'
      return {
        header: [...CSV_HEADERS.releases, ...(officer ? OFFICER_RELEASE_COLUMNS : [])],
        rows: data.releases.map((r) => [
          r.releaseId,
          r.createdAt,
          r.datasetId,
          r.datasetName,
          r.queryId,
          r.queryName,
          r.kind,
          r.mechanism,
          r.notion,
          paramsText(r.params),
          r.chargeExact,
          r.ledgerSeq,
          r.status,
          r.asked,
          r.flagged,
          ...(officer ? [r.exPost?.spentMax ?? null, r.exPost?.queries ?? null, r.exPost?.sealed ?? false] : [])
        ])
      }
    }
    case 'denials':
      return {
        header: [...CSV_HEADERS.denials],
        rows: data.denials.map((d) => [
          d.auditId,
          d.at,
          d.actor,
          d.datasetId,
          d.datasetName,
          d.queryId,
          d.queryName,
          d.notion,
          d.requestedExact,
          d.remainingExact,
          d.budgetExact
        ])
      }
    case 'experiments': {
      const rows: CsvValue[][] = []
      for (const x of data.experiments) {
        for (const c of x.cells) {
          const prefix: CsvValue[] = ['simulation', x.id, x.name, x.engine, x.seed, x.status, c.index, c.sweep, c.workload, c.mechanism, paramsText(c.params), c.trials, c.status]
          const names = x.metrics.map((m) => m.name).filter((n) => c.metrics[n] !== undefined)
          if (names.length === 0) rows.push([...prefix, null, null, null, null, null])
          for (const n of names) {
            const m = c.metrics[n]
            rows.push([...prefix, n, m.n, m.mean, m.ciLow, m.ciHigh])
          }
        }
      }
      return { header: [...CSV_HEADERS.experiments], rows }
    }
  }
}

export function csvText(data: ReportData, table: ReportTable): string {
  const t = csvTable(data, table)
  return toCsv(t.header, t.rows)
}
