/**
 * Benchmark: an audit report over 1,000 releases (target: <= 10 s). Builds a workspace with the release
 * service (1,000 releases of three kinds, fixtures of the report tests), then times each stage: gathering the data +
 * verification + HTML, printing the PDF with headless Chromium (cold start included), the CSV and JSON exports.
 * Run: node test/bench/run.mjs report
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openStore } from '../../src-main/services/store/store'
import { prepareReport, produceReport, resolveExport } from '../../src-main/services/reports/build-report'
import { createChromiumPrinter } from '../../src-main/services/reports/chromium-printer'
import { footerHtml } from '../../src-main/services/reports/report-html'
import { populateWorkspace, settleReleases } from '../integration/reports/fixtures'
import { report, round } from './timing'

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'qa-bench-report-'))
  try {
    const store = openStore(join(dir, 'w.sqlite'))
    const releases = Number(process.env.QA_BENCH_RELEASES ?? 1000)
    let t = performance.now()
    populateWorkspace(store.db, releases)
    const fixtureMs = performance.now() - t
    await settleReleases(store.db)

    const r = resolveExport(store, { format: 'pdf' })
    t = performance.now()
    const prepared = await prepareReport(store, r)
    const prepareMs = performance.now() - t

    t = performance.now()
    const pdf = await createChromiumPrinter().print(prepared.html, { pageSize: 'A4', footerHtml: footerHtml(prepared.data) })
    const printMs = performance.now() - t

    t = performance.now()
    const whole = await produceReport(store, r)
    const pdfTotalMs = performance.now() - t

    t = performance.now()
    await produceReport(store, { ...r, format: 'csv', table: 'releases' })
    const csvMs = performance.now() - t
    t = performance.now()
    await produceReport(store, { ...r, format: 'json' })
    const jsonMs = performance.now() - t
    store.close()
    report({
      releases: prepared.data.releases.length,
      ledgerEntries: prepared.data.ledgerEntries.length,
      fixtureSeconds: round(fixtureMs / 1000, 2),
      dataAndHtmlSeconds: round(prepareMs / 1000, 3),
      htmlBytes: prepared.html.length,
      printSeconds: round(printMs / 1000, 2),
      pdfBytes: pdf.length,
      pdfTotalSeconds: round(pdfTotalMs / 1000, 2),
      pdfTotalBytes: whole.bytes.length,
      csvReleasesSeconds: round(csvMs / 1000, 3),
      jsonSeconds: round(jsonMs / 1000, 3)
    })
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

main().catch((e) => {
  process.stderr.write(String(e?.stack ?? e) + '\n')
  process.exit(1)
})
