import { useReducer } from 'react'
import type { ReportExportResult, ReportFormat, ReportTable } from '../../../src-main/contract'
import { useAction, useClient, useJob, useQuery } from '../api/hooks'
import { ErrorText, SelectField, TextField } from '../components/Fields'
import { JobPanel } from '../components/JobPanel'
import { downloadBytes } from '../download'
import { formatCount, formatDate } from '../format'
import { NoOfficerNotice, OfficerFields, useOfficers } from './ledger/OfficerFields'
import { type ReportSettings, initialReportForm, previewKey, reportFormReducer, resolveReportForm } from './reports/reportFormState'
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
  const officers = useOfficers()
  const [form, dispatch] = useReducer(reportFormReducer, initialReportForm)
  const act = useAction()
  const job = useJob(form.jobId)
  const s = form.settings
  const set = (patch: Partial<ReportSettings>) => dispatch({ type: 'settings', patch })
  const resolved = resolveReportForm(form, officers.names)
  const { preview } = form

  const doPreview = () => {
    const req = resolved.previewRequest
    if (!req) return
    const key = previewKey(form, officers.names)
    void act
      .run(async () => {
        const p = await client.call('reports/preview', req)
        dispatch({ type: 'previewed', preview: p, key })
      })
      .finally(() => dispatch({ type: 'forgetPassphrase' }))
  }
  const doExport = () => {
    const req = resolved.exportRequest
    if (!req) return
    void act
      .run(async () => {
        const r = await client.call('reports/export', req)
        dispatch({ type: 'exporting', jobId: r.jobId })
      })
      .finally(() => dispatch({ type: 'forgetPassphrase' }))
  }
  const doDownload = () =>
    void act.run(async () => {
      if (!form.jobId) return
      if (client.transport.kind === 'ipc') {
        // Desktop: the shell's save dialog writes the file; the page never names a path.
        const r = await client.call('reports/save', { jobId: form.jobId })
        dispatch({ type: 'saved', text: r.saved ? `${r.fileName} saved.` : null })
        return
      }
      const f = await client.call('reports/download', { jobId: form.jobId })
      downloadBytes(f.fileName, base64ToBytes(f.base64), f.mimeType)
      dispatch({ type: 'saved', text: `${f.fileName} (${formatCount(f.bytes)} bytes) saved to your downloads.` })
    })
  const result = job.info?.state === 'done' ? (job.info.result as ReportExportResult) : null
  const exportWhy =
    resolved.why !== null && s.edition === 'officer' && preview !== null
      ? `${resolved.why} Exporting the officer edition opens the sealed costs again (recorded).`
      : resolved.why
  const samePreview = resolved.samePreview

  return (
    <div className="stack" data-testid="screen-reports">
      <section className="panel" aria-labelledby="report-title">
        <h2 id="report-title">Audit report</h2>
        <form
          className="stack-tight"
          onSubmit={(e) => {
            e.preventDefault()
            doPreview()
          }}
        >
          <div className="row">
            <SelectField
              label="Scope"
              value={s.scope}
              onChange={(scope) => set({ scope })}
              options={[
                { value: 'all', label: 'The whole workspace' },
                ...(datasets.data ?? []).map((d) => ({ value: String(d.id), label: d.name }))
              ]}
              testId="report-scope"
            />
            <TextField
              label="From (optional)"
              value={s.from}
              onChange={(from) => set({ from })}
              placeholder="2025-01-01"
              width="narrow"
              hint="Empty: the beginning."
            />
            <TextField
              label="To (optional, exclusive)"
              value={s.to}
              onChange={(to) => set({ to })}
              placeholder="2025-04-01"
              width="narrow"
              hint="Empty: now."
            />
            <SelectField
              label="Edition"
              value={s.edition}
              onChange={(edition) => set({ edition })}
              options={[
                { value: 'analyst', label: 'Analyst (no sealed costs)' },
                { value: 'officer', label: 'Officer (with sealed ex-post costs; recorded)' }
              ]}
              testId="report-edition"
            />
          </div>
          {s.edition === 'officer' && (
            <div className="row" data-testid="report-officer">
              <NoOfficerNotice act="The officer edition" officers={officers} testId="report-no-officer" />
              <OfficerFields
                officers={officers}
                value={{ officer: s.officer, passphrase: s.passphrase }}
                onChange={(v) => set({ officer: v.officer, passphrase: v.passphrase })}
                testIdPrefix="report"
              />
              <TextField
                label="Reason for reading sealed costs (recorded)"
                value={s.reason}
                onChange={(reason) => set({ reason })}
                width="wide"
                testId="report-reason"
              />
            </div>
          )}
          <div className="button-row">
            <button
              type="submit"
              disabled={act.busy || resolved.previewRequest === null}
              title={resolved.why ?? undefined}
              data-testid="report-preview"
            >
              {act.busy && !preview ? 'Building the preview…' : 'Preview'}
            </button>
          </div>
          {resolved.why && (
            <p className="hint" data-testid="report-why">
              {resolved.why}
            </p>
          )}
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
          <p className="hint" data-testid="report-hash">
            Data SHA-256 <code>{preview.verification.dataSha256}</code>. The same scope, period and edition give the same data hash
            {s.to.trim() === '' ? (
              <>
                {' '}
                (this period ends {formatDate(preview.data.period.to)}, when you asked for the preview).{' '}
                <button
                  type="button"
                  className="button-link"
                  onClick={() => dispatch({ type: 'keepPeriod', registeredOfficers: officers.names })}
                  data-testid="report-keep-period"
                >
                  Keep this period in the form
                </button>
              </>
            ) : (
              '.'
            )}
          </p>
          <iframe className="report-frame" title="Report preview" sandbox="" srcDoc={preview.html} />
          <div className="row">
            <SelectField label="Export as" value={s.format} onChange={(format) => set({ format })} options={FORMATS} testId="report-format" />
            {s.format === 'csv' && <SelectField label="Table" value={s.table} onChange={(table) => set({ table })} options={TABLES} />}
            {s.format === 'pdf' && (
              <SelectField
                label="Page size"
                value={s.pageSize}
                onChange={(pageSize) => set({ pageSize })}
                options={[
                  { value: 'A4', label: 'A4' },
                  { value: 'Letter', label: 'Letter' }
                ]}
              />
            )}
            <div className="field actions">
              <button
                type="button"
                onClick={doExport}
                disabled={act.busy || resolved.exportRequest === null}
                title={exportWhy ?? undefined}
                data-testid="report-export"
              >
                {act.busy && preview ? 'Exporting…' : 'Export'}
              </button>
            </div>
          </div>
          {exportWhy && (
            <p className="hint" data-testid="report-export-why">
              {exportWhy}
            </p>
          )}
          {form.jobId && <JobPanel jobId={form.jobId} info={job.info} progress={job.progress} label="Writing the report" doneText="Written" />}
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
          {form.saved && <p className="ok">{form.saved}</p>}
        </section>
      )}
    </div>
  )
}
