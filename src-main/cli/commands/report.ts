/**
 * `report --db PATH --format pdf|csv|json|html --out FILE [--dataset D] [--from T] [--to T] [--edition analyst|officer]
 *  [--officer NAME] [--reason TEXT] [--page-size a4|letter] [--table ledger|releases|denials|experiments]`
 *
 * The audit report of the ledger, releases, denials and experiments. Bad input (unknown dataset, from >= to, an
 * unwritable --out, a bad format...) exits 2 with one line and writes nothing: the file is written to a temporary name
 * next to --out and renamed at the end.
 */
import { resolve } from 'node:path'
import type { ReportFormat, ReportTable } from '../../contract/reports'
import { REPORT_TABLES, checkWritable, findDataset, produceReport, resolveExport, sha256Hex, writeAtomically } from '../../services/local'
import { openWorkspace } from '../workspace'
import { type CliCommand, UsageError, choice, optString, reqString } from '../command'
import { readPassphrase } from '../passphrase'

const FORMATS = ['pdf', 'csv', 'json', 'html'] as const

export const reportCommand: CliCommand = {
  name: 'report',
  required: () => ['format', 'out'],
  summary: 'Audit report of the ledger, releases, denials and experiments (PDF, CSV table, or JSON with its SHA-256)',
  usage:
    'report --db PATH --format pdf|csv|json|html --out FILE [--dataset D] [--from T] [--to T] [--edition analyst|officer] ' +
    '[--officer NAME] [--reason TEXT] [--page-size a4|letter] [--table ledger|releases|denials|experiments]',
  options: {
    db: { type: 'string', description: 'workspace database file', defaultText: '$QUIET_ALARM_DB or the user data directory' },
    format: { type: 'string', description: 'pdf, csv (one table, see --table), json (the report data; its SHA-256 is the one in the PDF) or html' },
    out: { type: 'string', description: 'file to write (written to a temporary name and renamed when complete)' },
    dataset: { type: 'string', description: 'dataset id or name', defaultText: 'the whole workspace' },
    from: { type: 'string', description: 'start of the period, ISO 8601 (inclusive; without a zone = UTC)', defaultText: 'the beginning' },
    to: { type: 'string', description: 'end of the period, ISO 8601 (exclusive)', defaultText: 'now' },
    edition: {
      type: 'string',
      description: 'analyst (no ex-post costs) or officer (with the sealed ex-post costs; each unlock is recorded)',
      defaultText: 'analyst'
    },
    officer: {
      type: 'string',
      description: 'officer edition: the registered officer who unlocks the sealed costs (recorded)',
      defaultText: 'the only registered officer'
    },
    'passphrase-file': {
      type: 'string',
      description: "officer edition: a file whose first line is the officer's passphrase",
      defaultText: '$QUIET_ALARM_PASSPHRASE, else a prompt'
    },
    reason: { type: 'string', description: 'officer edition: why (recorded)', defaultText: 'audit report (officer edition)' },
    'page-size': { type: 'string', description: 'pdf: a4 or letter', defaultText: 'a4' },
    table: { type: 'string', description: 'csv: ledger, releases, denials or experiments', defaultText: 'ledger' }
  },
  async run(values, _positionals, ctx) {
    const format = choice('format', reqString(values, 'format'), FORMATS) as ReportFormat
    const out = resolve(ctx.cwd, reqString(values, 'out'))
    const edition = choice('edition', optString(values, 'edition') ?? 'analyst', ['analyst', 'officer'] as const)
    const pageSizeRaw = choice('page-size', (optString(values, 'page-size') ?? 'a4').toLowerCase(), ['a4', 'letter'] as const)
    const tableRaw = optString(values, 'table')
    if (tableRaw !== undefined && format !== 'csv') throw new UsageError('--table applies to --format csv only')
    const table = choice('table', tableRaw ?? 'ledger', REPORT_TABLES) as ReportTable
    const officer = optString(values, 'officer')
    if (edition !== 'officer' && officer !== undefined) throw new UsageError('--officer applies to --edition officer only')
    checkWritable(out)
    // The officer edition opens the sealed costs with the officer's key: the passphrase is read first.
    const passphrase = edition === 'officer' ? await readPassphrase(values, ctx, { label: "The privacy officer's passphrase" }) : undefined

    const started = Date.now()
    const store = openWorkspace(values, ctx.cwd, { create: false, readOnly: true })
    try {
      const datasetRaw = optString(values, 'dataset')
      const datasetId = datasetRaw === undefined ? undefined : findDataset(store.db, datasetRaw).id
      const r = resolveExport(store, {
        format,
        table,
        pageSize: pageSizeRaw === 'letter' ? 'Letter' : 'A4',
        datasetId,
        from: optString(values, 'from'),
        to: optString(values, 'to'),
        edition,
        officer,
        passphrase,
        reason: optString(values, 'reason')
      })
      let lastStep = -1
      const produced = await produceReport(store, r, {
        onProgress: (done) => {
          const step = Math.floor(done / 25)
          if (step !== lastStep) {
            lastStep = step
            ctx.progress(`report: ${done}%`)
          }
        }
      })
      writeAtomically(out, produced.bytes)
      // The officer's signature over the data's SHA-256, beside the file (the data itself is the canonical JSON hashed).
      const sig = produced.verification.officerSignature
      const sigFile = sig === null ? null : `${out}.signature.json`
      if (sig !== null)
        writeAtomically(
          sigFile!,
          JSON.stringify(
            {
              v: 1,
              kind: 'quiet-alarm/report-signature',
              dataSha256: produced.verification.dataSha256,
              ledgerHead: produced.data.ledgerHead,
              ...sig
            },
            null,
            2
          ) + '\n'
        )
      const seconds = (Date.now() - started) / 1000
      const d = produced.data
      const json = {
        out,
        format,
        table: format === 'csv' ? table : null,
        edition,
        bytes: produced.bytes.length,
        fileSha256: sha256Hex(produced.bytes),
        dataSha256: produced.verification.dataSha256,
        period: d.period,
        datasetId: d.scope.datasetId,
        releases: d.totals.releases,
        denials: d.totals.denials,
        ledgerEntries: d.totals.ledgerEntries,
        experiments: d.totals.experiments,
        ledgerHead: d.ledgerHead,
        ledgerVerified: produced.verification.ledgerVerify.ok,
        signature: sigFile,
        seconds
      }
      const what = format === 'csv' ? `${table} table (CSV)` : format.toUpperCase()
      const text = [
        `Wrote ${out} (${produced.bytes.length.toLocaleString('en-US')} bytes): ${what}, ${edition} edition, ${d.totals.releases} releases, ${d.totals.denials} denials, ${d.totals.experiments} experiments.`,
        `Period ${d.period.from ?? 'beginning'} .. ${d.period.to}; ledger head at its end: entry ${d.ledgerHead.seq} ${d.ledgerHead.hash}`,
        `Report data SHA-256: ${produced.verification.dataSha256}`,
        ...(sig === null
          ? []
          : [
              `Signed by officer "${sig.officer}" with checkpoint ${sig.checkpoint.id} (entry ${sig.checkpoint.ledgerSeq}); the signature is in ${sigFile}`
            ]),
        produced.verification.ledgerVerify.message
      ].join('\n')
      return { json, text }
    } finally {
      store.close()
    }
  }
}
