/**
 * The reports area through the services (as the UI calls it): preview, export as a job with progress, download in
 * headless mode, cancel, bad requests; and a report over 1,000 releases (timed, printed, not asserted: see
 * test/bench/report.bench.ts for the timing).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { JobProgress } from '../../../src-main/contract'
import type { ReportExportResult } from '../../../src-main/contract/reports'
import { createServices, type Services } from '../../../src-main/services'
import { listReleases } from '../../../src-main/services/releases/release-service'
import { openStore } from '../../../src-main/services/store/store'
import { tempWorkspace } from '../helpers'
import { populateWorkspace, settleReleases, storeExperiment } from './fixtures'
import { pdfText, renderPages, sha256 } from './helpers'
import { testPassphrase } from '../officer-fixture'

let ws: ReturnType<typeof tempWorkspace>
let services: Services

beforeAll(async () => {
  ws = tempWorkspace('qa-report-jobs-')
  const s = openStore(ws.db)
  populateWorkspace(s.db, 6)
  storeExperiment(s)
  await settleReleases(s.db)
  s.close()
  services = createServices({ mode: 'headless', dbPath: ws.db, poolSize: 1 })
})

afterAll(async () => {
  await services?.close()
  ws?.cleanup()
})

async function exportAndWait(
  req: Parameters<Services['call']>[1] & object
): Promise<{ result: ReportExportResult & { jobId: string }; progress: JobProgress[] }> {
  const progress: JobProgress[] = []
  const off = services.events.on((name, payload) => {
    if (name === 'job/progress') progress.push(payload as JobProgress)
  })
  try {
    const { jobId } = await services.call('reports/export', req as never)
    const info = await services.context.jobs.settled(jobId)
    if (info?.state !== 'done') throw new Error(`export job ${info?.state}: ${info?.error}`)
    return { result: { ...(info.result as ReportExportResult), jobId } as ReportExportResult & { jobId: string }, progress }
  } finally {
    off()
  }
}

/** What the browser's download gives: the exported file, written where the test wants it. */
async function downloadTo(svc: Services, jobId: string, dir: string): Promise<string> {
  const dl = await svc.call('reports/download', { jobId })
  const file = join(dir, `${jobId}-${dl.fileName}`)
  writeFileSync(file, Buffer.from(dl.base64, 'base64'))
  return file
}

describe('reports through the services', () => {
  it('preview returns the data, its hash and the HTML the PDF is printed from', async () => {
    const p = await services.call('reports/preview', {})
    expect(p.data.releases.length).toBe(listReleases(services.context.store.db).length)
    expect(p.html).toContain('7. Verification')
    expect(p.html).toContain(p.verification.dataSha256)
    expect(p.html).not.toMatch(/<script|https?:\/\/(?!x\b|www\.w3\.org\/2000\/svg)/i)
    expect(p.verification.ledgerVerify.ok).toBe(true)
  })

  it('exports a PDF as a job with progress, and downloads it (headless mode)', async () => {
    const { result, progress } = await exportAndWait({ format: 'pdf', pageSize: 'Letter' })
    expect(progress.length).toBeGreaterThan(0)
    expect(progress[progress.length - 1].done).toBe(progress[progress.length - 1].total)
    const file = await downloadTo(services, result.jobId, ws.dir)
    const bytes = readFileSync(file)
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-')
    expect(sha256(bytes)).toBe(result.fileSha256)
    expect((await services.call('reports/download', { jobId: result.jobId })).mimeType).toBe('application/pdf')
    expect(pdfText(file)).toContain(result.dataSha256)
  })

  it('never writes to a path the request names; the JSON download hashes to the data SHA-256', async () => {
    const out = join(ws.dir, 'svc.json')
    const r = await services.dispatch('reports/export', { format: 'json', outPath: out })
    expect(r).toMatchObject({ ok: false, error: { code: 'bad-input' } })
    expect(existsSync(out)).toBe(false)
    const { result } = await exportAndWait({ format: 'json' })
    expect(result).not.toHaveProperty('path')
    expect(sha256(readFileSync(await downloadTo(services, result.jobId, ws.dir)))).toBe(result.dataSha256)
    // The desktop's save dialog lives in the Electron shell; the services alone have none.
    expect(await services.dispatch('reports/save', { jobId: result.jobId })).toMatchObject({ ok: false, error: { code: 'use-download' } })
  })

  it('removes its exported files (officer editions hold sealed costs) when the services stop', async () => {
    const before = new Set(readdirSync(tmpdir()).filter((n) => n.startsWith('quiet-alarm-reports-')))
    const svc = createServices({ mode: 'headless', dbPath: ws.db, poolSize: 1 })
    const { jobId } = await svc.call('reports/export', {
      format: 'json',
      edition: 'officer',
      officer: 'Olga Officer',
      passphrase: testPassphrase('Olga Officer'),
      reason: 'audit'
    })
    expect((await svc.context.jobs.settled(jobId))?.state).toBe('done')
    const mine = readdirSync(tmpdir()).filter((n) => n.startsWith('quiet-alarm-reports-') && !before.has(n))
    expect(mine).toHaveLength(1)
    expect(readdirSync(join(tmpdir(), mine[0], jobId))).toHaveLength(1)
    await svc.close()
    expect(existsSync(join(tmpdir(), mine[0]))).toBe(false)
  })

  it('cancels an export', async () => {
    const { jobId } = await services.call('reports/export', { format: 'pdf' })
    expect((await services.call('jobs/cancel', { jobId })).cancelled).toBe(true)
    const info = await services.context.jobs.settled(jobId)
    expect(info?.state).toBe('cancelled')
    await expect(services.call('reports/download', { jobId })).rejects.toThrow(/cancelled/)
  })

  it('refuses bad requests with one sentence', async () => {
    const bad: Array<[unknown, RegExp]> = [
      [{ format: 'docx' }, /format must be one of/],
      [{ format: 'pdf', datasetId: 999 }, /no dataset/],
      [{ format: 'pdf', from: '2025-02-01', to: '2025-01-01' }, /period is empty/],
      [{ format: 'pdf', edition: 'officer' }, /needs the passphrase of officer "Olga Officer"/],
      [{ format: 'pdf', edition: 'officer', officer: 'Jane Doe', passphrase: 'made up' }, /"Jane Doe" is not a registered privacy officer/],
      [{ format: 'pdf', edition: 'officer', passphrase: 'a wrong guess' }, /The passphrase of officer "Olga Officer" is wrong/],
      [{ format: 'pdf', outPath: 'relative.pdf' }, /download/],
      [{ format: 'csv', table: 'nope' }, /table must be one of/]
    ]
    for (const [req, msg] of bad) {
      const r = await services.dispatch('reports/export', req)
      expect(r.ok, JSON.stringify(req)).toBe(false)
      if (!r.ok) expect(r.error.message).toMatch(msg)
    }
    const dl = await services.dispatch('reports/download', { jobId: 'nope' })
    expect(dl.ok).toBe(false)
  })
})

describe('a report over 1,000 releases', () => {
  it('is produced (PDF and CSV), with every release in it', async () => {
    const big = tempWorkspace('qa-report-big-')
    const s = openStore(big.db)
    const t0 = performance.now()
    populateWorkspace(s.db, 1000)
    await settleReleases(s.db)
    s.close()
    const t1 = performance.now()
    const svc = createServices({ mode: 'headless', dbPath: big.db, poolSize: 1 })
    try {
      const started = performance.now()
      const { jobId } = await svc.call('reports/export', { format: 'pdf' })
      const info = await svc.context.jobs.settled(jobId)
      const pdfMs = performance.now() - started
      expect(info?.state, info?.error ?? '').toBe('done')
      const result = info!.result as ReportExportResult
      const pdf = await downloadTo(svc, jobId, big.dir)
      const c0 = performance.now()
      const csv = await svc.call('reports/export', { format: 'csv', table: 'releases' })
      const csvInfo = await svc.context.jobs.settled(csv.jobId)
      const csvMs = performance.now() - c0
      const n = listReleases(svc.context.store.db).length
      expect(n).toBeGreaterThanOrEqual(1000)
      expect(result.releases).toBe(n)
      expect(csvInfo?.state).toBe('done')
      expect(pdfText(pdf)).toContain(`Releases in period ${n}`)
      const rows =
        readFileSync(await downloadTo(svc, csv.jobId, big.dir), 'utf8')
          .trim()
          .split('\r\n').length - 1
      expect(rows).toBe(n)
      renderPages(pdf, 'test-results/report-pages', 'large', 3)
      process.stdout.write(
        `1,000-release report: fixture ${((t1 - t0) / 1000).toFixed(1)} s; PDF ${(pdfMs / 1000).toFixed(2)} s (${(result.bytes / 1e6).toFixed(2)} MB); releases CSV ${(csvMs / 1000).toFixed(2)} s\n`
      )
    } finally {
      await svc.close()
      big.cleanup()
    }
  })
})
