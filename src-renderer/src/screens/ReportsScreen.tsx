import { useState } from 'react'
import type { ReportExportResult, ReportFormat, ReportPreview, ReportRequest, ReportTable } from '../../../src-main/contract'
import { useAction, useClient, useJob, useQuery } from '../api/hooks'
import { ErrorText, SelectField, TextField } from '../components/Fields'
import { JobPanel } from '../components/JobPanel'
import { downloadBytes } from '../download'
import { formatCount, formatDate } from '../format'
import type { ScreenProps } from '.'

const FORMATS: Array<{ value: ReportFormat; label: string }> = [
  { value: 'pdf', label: 'PDF' },
  { value: 'csv', label: 'CSV table' },
  { value: 'json', label: 'JSON (the hashed data)' },
  { value: 'html', label: 'HTML' }
]
const TABLES: Array<{ value: ReportTable; label: string }> = [
  { value: 'ledger', label: 'Ledger entries' },
  { value: 'releases', label: 'Releases' },
  { value: 'denials', label: 'Denials' },
  { value: 'experiments', label: 'Experiments (simulations)' }
]

function base64ToBytes(b64: string): Uint8Array {
  const bin = atob(b64)
  const out = new Uint8Array(bin.length)
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i)
  return out
}

/** Scope, period and edition -> preview -> export as PDF, CSV, JSON or HTML (a job with progress, then a download). */
export function ReportsScreen(_props: ScreenProps) {
  const client = useClient()
  const datasets = useQuery('datasets/list', {})
  const [scope, setScope] = useState('all')
  const [from, setFrom] = useState('')
  const [to, setTo] = useState('')
  const [edition, setEdition] = useState<'analyst' | 'officer'>('analyst')
  const [officer, setOfficer] = useState('')
  const [reason, setReason] = useState('')
  const [format, setFormat] = useState<ReportFormat>('pdf')
  const [table, setTable] = useState<ReportTable>('ledger')
  const [pageSize, setPageSize] = useState<'A4' | 'Letter'>('A4')
  const [preview, setPreview] = useState<ReportPreview | null>(null)
  const [jobId, setJobId] = useState<string | null>(null)
  const [saved, setSaved] = useState<string | null>(null)
  const act = useAction()
  const job = useJob(jobId)

  const request = (): ReportRequest => {
    const r: ReportRequest = { edition }
    if (scope !== 'all') r.datasetId = Number(scope)
    if (from.trim()) r.from = from.trim()
    if (to.trim()) r.to = to.trim()
    if (edition === 'officer') {
      r.officer = officer.trim()
      r.reason = reason.trim()
    }
    return r
  }
  const officerMissing = edition === 'officer' && (officer.trim() === '' || reason.trim() === '')

  // The export is the previewed report (issue 17): same settings and the same end of period, so the same data and SHA-256.
  const [previewedWith, setPreviewedWith] = useState<string | null>(null)
  const samePreview = preview !== null && previewedWith === JSON.stringify(request())
  const doPreview = () =>
    void act.run(async () => {
      const req = request()
      const p = await client.call('reports/preview', req)
      setPreview(p)
      setPreviewedWith(JSON.stringify(req))
      setJobId(null)
    })
  const doExport = () =>
    void act.run(async () => {
      setSaved(null)
      const req = samePreview && preview ? { ...request(), to: preview.data.period.to } : request()
      const r = await client.call('reports/export', {
        ...req,
        format,
        table: format === 'csv' ? table : undefined,
        pageSize: format === 'pdf' ? pageSize : undefined
      })
      setJobId(r.jobId)
    })
  const doDownload = () =>
    void act.run(async () => {
      if (!jobId) return
      if (client.transport.kind === 'ipc') {
        // Desktop: the shell's save dialog writes the file; the page never names a path.
        const s = await client.call('reports/save', { jobId })
        setSaved(s.saved ? `${s.fileName} saved.` : null)
        return
      }
      const f = await client.call('reports/download', { jobId })
      downloadBytes(f.fileName, base64ToBytes(f.base64), f.mimeType)
      setSaved(`${f.fileName} (${formatCount(f.bytes)} bytes) saved to your downloads.`)
    })
  const result = job.info?.state === 'done' ? (job.info.result as ReportExportResult) : null

  return (
    <div className="stack" data-testid="screen-reports">
      <section className="panel" aria-labelledby="report-title">
        <h2 id="report-title">Audit report</h2>
        <form
          className="stack-tight"
          onSubmit={(e) => {
            e.preventDefault()
            if (!officerMissing) doPreview()
          }}
        >
          <div className="row">
            <SelectField
              label="Scope"
              value={scope}
              onChange={setScope}
              options={[
                { value: 'all', label: 'The whole workspace' },
                ...(datasets.data ?? []).map((d) => ({ value: String(d.id), label: d.name }))
              ]}
              testId="report-scope"
            />
            <TextField label="From (optional)" value={from} onChange={setFrom} placeholder="2025-01-01" width="narrow" hint="Empty: the beginning." />
            <TextField label="To (optional, exclusive)" value={to} onChange={setTo} placeholder="2025-04-01" width="narrow" hint="Empty: now." />
            <SelectField
              label="Edition"
              value={edition}
              onChange={setEdition}
              options={[
                { value: 'analyst', label: 'Analyst (no sealed costs)' },
                { value: 'officer', label: 'Officer (with sealed ex-post costs; recorded)' }
              ]}
              testId="report-edition"
            />
          </div>
          {edition === 'officer' && (
            <div className="row">
              <TextField label="Officer" value={officer} onChange={setOfficer} width="narrow" />
              <TextField label="Reason for reading sealed costs (recorded)" value={reason} onChange={setReason} width="wide" />
            </div>
          )}
          <div className="button-row">
            <button type="submit" disabled={act.busy || officerMissing} data-testid="report-preview">
              Preview
            </button>
          </div>
        </form>
        <ErrorText error={act.error} testId="report-error" />
      </section>

      {preview && (
        <section className="panel" aria-labelledby="report-preview-title" data-testid="report-preview-panel">
          <h2 id="report-preview-title">Preview</h2>
          <p>
            {preview.data.scope.datasetName ?? 'Whole workspace'} ·{' '}
            {preview.data.period.from ? formatDate(preview.data.period.from) : 'from the beginning'} to {formatDate(preview.data.period.to)} ·{' '}
            {preview.data.edition} edition · {preview.data.totals.ledgerEntries} ledger entries, {preview.data.totals.releases} releases,{' '}
            {preview.data.totals.denials} denials, {preview.data.totals.experiments} experiments (simulations).
          </p>
          <p className={preview.verification.ledgerVerify.ok ? 'ok' : 'error'}>{preview.verification.ledgerVerify.message}</p>
          <p className="hint">
            Data SHA-256 <code>{preview.verification.dataSha256}</code> · reproduce with <code>{preview.verification.reproduceArgs}</code>
          </p>
          <iframe className="report-frame" title="Report preview" sandbox="" srcDoc={preview.html} />
          <div className="row">
            <SelectField label="Export as" value={format} onChange={setFormat} options={FORMATS} testId="report-format" />
            {format === 'csv' && <SelectField label="Table" value={table} onChange={setTable} options={TABLES} />}
            {format === 'pdf' && (
              <SelectField
                label="Page size"
                value={pageSize}
                onChange={setPageSize}
                options={[
                  { value: 'A4', label: 'A4' },
                  { value: 'Letter', label: 'Letter' }
                ]}
              />
            )}
            <div className="field actions">
              <button type="button" onClick={doExport} disabled={act.busy || officerMissing} data-testid="report-export">
                Export
              </button>
            </div>
          </div>
          {jobId && <JobPanel jobId={jobId} info={job.info} progress={job.progress} label="Writing the report" doneText="Written" />}
          {!samePreview && (
            <p className="hint todo" data-testid="report-preview-stale">
              The settings changed since this preview: the export follows the settings above; preview again to see it.
            </p>
          )}
          {result && (
            <p>
              {result.fileName} · {formatCount(result.bytes)} bytes · SHA-256 <code>{result.fileSha256.slice(0, 16)}…</code> · data SHA-256{' '}
              <code data-testid="report-export-data-sha">{result.dataSha256}</code>
              {result.dataSha256 === preview.verification.dataSha256 ? ' (the previewed data)' : ' (differs from the preview)'}{' '}
              <button type="button" className="secondary" onClick={doDownload} data-testid="report-download">
                {client.transport.kind === 'ipc' ? 'Save…' : 'Download'}
              </button>
            </p>
          )}
          {saved && <p className="ok">{saved}</p>}
        </section>
      )}
    </div>
  )
}
