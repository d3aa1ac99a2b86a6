/**
 * CSV tables of a report: ledger entries, releases, denials, experiment results. Each is a pure function of
 * `ReportData`, so a table exported later with the same scope, period and edition is byte for byte the same (its
 * SHA-256 is printed in the report).
 *
 * Format (documented in docs/guide/reports.md): written by the services' one CSV writer, `../platform/csv.ts` (RFC 4180, CRLF,
 * formula neutralisation).
 */
import type { ReportData, ReportTable } from '../../contract/reports'
import { type CsvValue, toCsv } from '../platform/csv'

/** "alpha=1; beta=0.05" (keys sorted): the public parameters of a release in one field. */
export function paramsText(p: Record<string, unknown>): string {
  return Object.keys(p)
    .sort()
    .map((k) => `${k}=${p[k] === null ? 'none' : String(p[k])}`)
    .join('; ')
}

export const CSV_HEADERS: Record<ReportTable, readonly string[]> = {
  ledger: [
    'seq',
    'at',
    'kind',
    'dataset_id',
    'dataset',
    'notion',
    'epsilon',
    'cell_count',
    'release_id',
    'actor',
    'description',
    'prev_hash',
    'hash'
  ],
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
  denials: [
    'audit_id',
    'at',
    'actor',
    'dataset_id',
    'dataset',
    'query_id',
    'query',
    'notion',
    'requested_epsilon',
    'remaining_epsilon',
    'budget_epsilon'
  ],
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
          const prefix: CsvValue[] = [
            'simulation',
            x.id,
            x.name,
            x.engine,
            x.seed,
            x.status,
            c.index,
            c.sweep,
            c.workload,
            c.mechanism,
            paramsText(c.params),
            c.trials,
            c.status
          ]
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
