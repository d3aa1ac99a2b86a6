import { mkdirSync, mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ReportExportResult, ReportMethods } from '../../contract/reports'
import { UserError } from '../platform/errors'
import type { HandlerMap, ServiceContext } from '../platform/handler-types'
import { prepareReport, produceReport, resolveExport, resolveRequest, sha256Hex, writeAtomically } from './build-report'

/** Files of finished exports kept for `reports/download` (headless mode), newest last; older ones are deleted. */
const KEEP_DOWNLOADS = 20

export interface ReportsOptions {
  /** Where exports are kept until downloaded or saved (default: a private temporary folder, removed when the services close). */
  downloadDir?: string
}

/** Handlers of the reports area. */
export function reportsHandlers(ctx: ServiceContext, options: ReportsOptions = {}): HandlerMap<ReportMethods> {
  // A private folder per services instance (0700): reports may hold sealed ex-post costs.
  let privateDir: string | null = null
  const downloadRoot = () => options.downloadDir ?? (privateDir ??= mkdtempSync(join(tmpdir(), 'quiet-alarm-reports-')))
  const downloads = new Map<string, { path: string; fileName: string; mimeType: string; dir: string | null }>()
  // Officer editions hold the sealed ex-post costs: nothing stays in the temporary folder once the services stop.
  ;(ctx.onClose ??= []).push(() => {
    for (const d of downloads.values()) if (d.dir) rmSync(d.dir, { recursive: true, force: true })
    downloads.clear()
    if (privateDir) rmSync(privateDir, { recursive: true, force: true })
    privateDir = null
  })

  function remember(jobId: string, entry: { path: string; fileName: string; mimeType: string; dir: string | null }): void {
    downloads.set(jobId, entry)
    while (downloads.size > KEEP_DOWNLOADS) {
      const [oldest, old] = downloads.entries().next().value as [string, { dir: string | null }]
      downloads.delete(oldest)
      if (old.dir) rmSync(old.dir, { recursive: true, force: true })
    }
  }

  return {
    'reports/preview': async (req) => {
      const r = resolveRequest(ctx.store, req ?? {})
      return prepareReport(ctx.store, r, { releaseView: ctx.releases.view })
    },

    'reports/export': async (req) => {
      // No output path from a door: the file stays here until `reports/download` or the desktop's save dialog.
      if (req && typeof req === 'object' && 'outPath' in req) {
        throw new UserError(
          'Reports are not written to a path: download the finished export (or save it through the desktop save dialog)',
          'bad-input'
        )
      }
      const r = resolveExport(ctx.store, req ?? ({} as never))
      const what = r.format === 'csv' ? `${r.table} table (CSV)` : r.format.toUpperCase()
      const job = ctx.jobs.start('report', `Audit report, ${r.edition} edition, ${what}`, 'steps', async (jc): Promise<ReportExportResult> => {
        const started = Date.now()
        // Let the handler answer with the job id before the (synchronous) database reads begin.
        await new Promise((res) => setImmediate(res))
        const produced = await produceReport(ctx.store, r, {
          printer: ctx.pdfPrinter,
          signal: jc.signal,
          onProgress: jc.progress,
          releaseView: ctx.releases.view
        })
        const dir = join(downloadRoot(), job.jobId)
        mkdirSync(dir, { recursive: true, mode: 0o700 })
        const path = join(dir, produced.fileName)
        writeAtomically(path, produced.bytes)
        remember(job.jobId, { path, fileName: produced.fileName, mimeType: produced.mimeType, dir })
        return {
          format: r.format,
          table: r.format === 'csv' ? r.table : null,
          fileName: produced.fileName,
          bytes: produced.bytes.length,
          mimeType: produced.mimeType,
          fileSha256: sha256Hex(produced.bytes),
          dataSha256: produced.verification.dataSha256,
          releases: produced.data.releases.length,
          seconds: (Date.now() - started) / 1000
        }
      })
      return { jobId: job.jobId }
    },

    'reports/download': async (req) => {
      const jobId = typeof req?.jobId === 'string' ? req.jobId : ''
      const info = ctx.jobs.get(jobId)
      if (!info || info.kind !== 'report') throw new UserError('There is no report export with this jobId; export the report again', 'not-found')
      if (info.state !== 'done') throw new UserError(`The report export is ${info.state}; download it once it is done`, 'not-ready')
      const d = downloads.get(jobId)
      if (!d || !existsSync(d.path)) throw new UserError('The exported file is no longer available; export the report again', 'not-found')
      const bytes = readFileSync(d.path)
      return { fileName: d.fileName, mimeType: d.mimeType, bytes: bytes.length, base64: bytes.toString('base64') }
    },

    // The desktop shell answers this one itself (a save dialog in the main process, src-main/electron/main.ts).
    'reports/save': async () => {
      throw new UserError(
        ctx.mode === 'headless'
          ? 'There is no save dialog in the browser: download the report instead (reports/download)'
          : 'The save dialog is not available; restart Quiet Alarm and try again',
        'use-download'
      )
    }
  }
}
