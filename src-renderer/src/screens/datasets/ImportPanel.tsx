/**
 * Pick a file -> preview with inferred (editable) types -> import with progress and Cancel -> result with a bad-row report.
 * Headless: the file field uploads the file to the service. Desktop: the shell's native dialog. Either way the page gets
 * an opaque handle to the file, never a path (issue 15).
 */
import { useEffect, useId, useRef, useState } from 'react'
import type { ColumnType, FileHandle, ImportResult, JobProgress, PreviewFileResponse } from '../../../../src-main/contract'
import { useAction, useClient, useJob } from '../../api/hooks'
import { ErrorText, SelectField, TextField } from '../../components/Fields'
import { JobPanel } from '../../components/JobPanel'
import { ProgressBar } from '../../components/ProgressBar'
import { formatCount } from '../../format'
import { BadRowReport } from './BadRowReport'
import { likelyPersonColumn } from '../queries/columnDefaultsDefinition'

const TYPES: Array<{ value: ColumnType; label: string }> = [
  { value: 'integer', label: 'Whole number' },
  { value: 'real', label: 'Decimal number' },
  { value: 'text', label: 'Text' },
  { value: 'timestamp', label: 'Date and time' }
]

type Picked = FileHandle

function stripExtension(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? name
  return base.replace(/\.[^.]+$/, '') || base
}

export function ImportPanel(props: { onImported: () => void }) {
  const client = useClient()
  const fileFieldId = useId()
  const headless = client.transport.kind === 'http'
  const [picked, setPicked] = useState<Picked | null>(null)
  const [upload, setUpload] = useState<{ sent: number; total: number; startedMs: number } | null>(null)
  const [preview, setPreview] = useState<PreviewFileResponse | null>(null)
  const [types, setTypes] = useState<Record<string, ColumnType>>({})
  const [name, setName] = useState('')
  const [onBadRow, setOnBadRow] = useState<'abort' | 'skip'>('abort')
  /** The privacy unit: '' = each row is a different person (row-level), else the person column's name. */
  const [personColumn, setPersonColumn] = useState('')
  const [jobId, setJobId] = useState<string | null>(null)
  const pick = useAction()
  const start = useAction()
  const job = useJob(jobId)
  const result = job.info?.state === 'done' ? (job.info.result as ImportResult) : null

  // Counts picks, so that a test (or a screen reader) can tell a new preview from the previous one.
  const [picks, setPicks] = useState(0)
  const reset = () => {
    setPicks((n) => n + 1)
    setPicked(null)
    setPreview(null)
    setTypes({})
    setJobId(null)
    setUpload(null)
  }

  const previewFile = async (p: Picked) => {
    setPicked(p)
    setName(stripExtension(p.fileName))
    const pv = await client.call('datasets/preview-file', { fileId: p.fileId, rows: 8 })
    setPreview(pv)
    setTypes(Object.fromEntries(pv.columns.map((c) => [c.name, c.inferredType])))
  }

  const onFile = (file: File | undefined) => {
    if (!file) return
    reset()
    void pick
      .run(async () => {
        if (!client.transport.upload) throw new Error('This window cannot upload files; use Choose file instead.')
        const startedMs = Date.now()
        setUpload({ sent: 0, total: file.size, startedMs })
        const up = await client.transport.upload(file, (sent, total) => setUpload({ sent, total, startedMs }))
        setUpload(null)
        await previewFile(up)
      })
      .finally(() => setUpload(null))
  }

  const chooseNative = () => {
    reset()
    void pick.run(async () => {
      const { file } = await client.call('app/choose-file', {
        title: 'Choose a CSV or TSV file to import',
        filters: [{ name: 'CSV and TSV', extensions: ['csv', 'tsv', 'txt'] }]
      })
      if (file) await previewFile(file)
    })
  }

  const doImport = () => {
    if (!picked || !preview) return
    const overrides = Object.fromEntries(
      preview.columns.filter((c) => types[c.name] && types[c.name] !== c.inferredType).map((c) => [c.name, types[c.name]])
    )
    void start.run(async () => {
      const { jobId } = await client.call('datasets/import', {
        fileId: picked.fileId,
        name: name.trim(),
        delimiter: preview.delimiter,
        types: overrides,
        onBadRow,
        reportBadRows: 50,
        ...(personColumn !== '' && preview.columns.some((c) => c.name === personColumn) ? { personColumn } : {})
      })
      setJobId(jobId)
    })
  }

  const likelyPerson = preview ? likelyPersonColumn(preview.columns.map((c) => ({ name: c.name, type: types[c.name] ?? c.inferredType }))) : null
  const importing = jobId !== null && (job.info === null || job.info.state === 'running' || job.info.state === 'queued')
  const finished = job.info?.state === 'done'
  const onImported = useRef(props.onImported)
  onImported.current = props.onImported
  useEffect(() => {
    if (finished) onImported.current()
  }, [finished])

  return (
    <section className="panel" aria-labelledby="import-title" data-testid="import-panel" data-picks={picks}>
      <h2 id="import-title">Import a file</h2>
      <p className="hint">
        A CSV or TSV file with a header row. It stays on this machine: the data is copied into the workspace, nothing is released.
      </p>
      <div className="row">
        {headless ? (
          <div className="field">
            <label htmlFor={fileFieldId}>File to import</label>
            <input
              id={fileFieldId}
              type="file"
              accept=".csv,.tsv,.txt,text/csv,text/tab-separated-values"
              onChange={(e) => {
                onFile(e.target.files?.[0])
                // Clear the field so that picking the same file again (e.g. after fixing it) is a new pick.
                e.target.value = ''
              }}
              disabled={importing}
              data-testid="import-file"
              aria-describedby={`${fileFieldId}-chosen`}
            />
            {/* The field is cleared after each pick (so that the same file can be picked again): say what was chosen. */}
            <span className="field-hint" id={`${fileFieldId}-chosen`} data-testid="import-chosen">
              {upload
                ? 'Uploading…'
                : picked
                  ? `Chosen: ${picked.fileName.split(/[\\/]/).pop()}`
                  : 'Pick a file: its first rows and their types are shown before anything is imported.'}
            </span>
          </div>
        ) : (
          <button type="button" onClick={chooseNative} disabled={importing} data-testid="import-choose">
            Choose file…
          </button>
        )}
      </div>
      {upload && <ProgressBar label="Uploading to the service" progress={uploadProgress(upload)} />}
      {pick.error && (
        <p className="error" role="alert" data-testid="import-pick-error" data-pick={picks}>
          {pick.error}
        </p>
      )}

      {preview && picked && !finished && (
        <div className="stack-tight" data-testid="import-preview" data-pick={picks}>
          <h3>Preview of {picked.fileName.split(/[\\/]/).pop()}</h3>
          <p className="hint">
            {formatCount(preview.fileBytes)} bytes · delimiter {delimiterName(preview.delimiter)} · types inferred from the first{' '}
            {formatCount(preview.inferredFromRows)} rows; change a type if it is wrong.
          </p>
          <div className="table-scroll">
            <table className="preview-table">
              <thead>
                <tr>
                  {preview.columns.map((c) => (
                    <th key={c.position} scope="col">
                      <div className="col-name">{c.name}</div>
                      <select
                        aria-label={`Type of column ${c.name}`}
                        value={types[c.name] ?? c.inferredType}
                        onChange={(e) => setTypes({ ...types, [c.name]: e.target.value as ColumnType })}
                        data-testid={`type-${c.name}`}
                      >
                        {TYPES.map((t) => (
                          <option key={t.value} value={t.value}>
                            {t.label}
                            {t.value === c.inferredType ? ' (inferred)' : ''}
                          </option>
                        ))}
                      </select>
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {preview.rows.map((r, i) => (
                  <tr key={i}>
                    {preview.columns.map((c, j) => (
                      <td key={c.position}>{r[j] ?? ''}</td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {preview.badRows.length > 0 && (
            <div className="notice warn" data-testid="preview-bad-rows">
              <strong>The preview already has {preview.badRows.length === 1 ? 'a bad row' : `${preview.badRows.length} bad rows`}.</strong> Fix the
              file, or import with “Skip bad rows” to leave them out.
              <BadRowReport rows={preview.badRows} total={preview.badRows.length} />
            </div>
          )}
          <form
            className="row"
            onSubmit={(e) => {
              e.preventDefault()
              doImport()
            }}
          >
            <TextField label="Dataset name" value={name} onChange={setName} testId="import-name" required />
            <SelectField
              label="Bad rows"
              value={onBadRow}
              onChange={setOnBadRow}
              options={[
                { value: 'abort', label: 'Stop at the first bad row (nothing is stored)' },
                { value: 'skip', label: 'Skip bad rows and list them' }
              ]}
              testId="import-bad-rows"
            />
            <SelectField
              label="Privacy unit (who is protected)"
              value={personColumn}
              onChange={setPersonColumn}
              options={[
                { value: '', label: 'Each row is a different person (row-level)' },
                ...preview.columns.map((c) => ({ value: c.name, label: `A person is identified by “${c.name}” (person-level)` }))
              ]}
              testId="import-unit"
            />
            <div className="field actions">
              <button type="submit" disabled={importing || start.busy || name.trim() === ''} data-testid="import-start">
                Import
              </button>
            </div>
          </form>
          {name.trim() === '' && (
            <p className="hint" data-testid="import-why">
              Give the dataset a name to import it.
            </p>
          )}
          {personColumn === '' && likelyPerson && (
            <p className="hint" data-testid="import-unit-hint">
              “{likelyPerson}” looks like it names a person: if one person can have many rows, choose it as the privacy unit so that each person (not
              each row) is protected.
            </p>
          )}
          <ErrorText error={start.error} testId="import-error" />
        </div>
      )}

      {jobId && <JobPanel jobId={jobId} info={job.info} progress={job.progress} label={`Importing ${name || 'file'}`} doneText="Imported" />}
      {result && (
        <div className="notice ok-box" data-testid="import-result">
          <p>
            <strong>
              {formatCount(result.dataset.rowCount)} rows imported as “{result.dataset.name}”
            </strong>{' '}
            ({result.dataset.columns.length} columns, {formatCount(result.bytes)} bytes in {result.seconds.toFixed(1)} s).
            {result.badRowCount > 0 ? ` ${formatCount(result.badRowCount)} bad rows were skipped:` : ' No bad rows.'}
          </p>
          {result.badRowCount > 0 && <BadRowReport rows={result.badRows} total={result.badRowCount} />}
        </div>
      )}
    </section>
  )
}

/** The upload as a progress in bytes, with its rate and time left. */
function uploadProgress(u: { sent: number; total: number; startedMs: number }): JobProgress {
  const seconds = Math.max(1e-3, (Date.now() - u.startedMs) / 1000)
  const rate = u.sent / seconds
  return {
    jobId: '',
    kind: 'upload',
    done: u.sent,
    total: u.total,
    unit: 'bytes',
    rate,
    etaSeconds: rate > 0 ? Math.max(0, u.total - u.sent) / rate : null
  }
}

function delimiterName(d: string): string {
  return d === ',' ? 'comma' : d === '\t' ? 'tab' : d === ';' ? 'semicolon' : 'bar'
}
