/**
 * Pick a file -> preview with inferred (editable) types -> the privacy unit (a person column found by its name is
 * preselected, with the reason) and the columns with one value per person -> import with progress and Cancel -> result
 * with a bad-row report. The form is one value changed by a reducer (importFormState.ts); the page holds an opaque
 * handle to the file, never a path.
 */
import { useEffect, useReducer, useRef } from 'react'
import type { ColumnType, ImportResult } from '../../../../src-main/contract'
import { useAction, useClient, useJob } from '../../api/hooks'
import { ErrorText, SelectField, TextField } from '../../components/Fields'
import { FilePicker } from '../../components/FilePicker'
import { baseName } from '../../components/fileName'
import { JobPanel } from '../../components/JobPanel'
import { PrivacyUnitField } from '../../components/PrivacyUnitField'
import { formatCount } from '../../format'
import { BadRowReport } from './BadRowReport'
import { importFormReducer, initialImportForm, resolveImportForm } from './importFormState'
import { ScrollRegion } from '../../components/ScrollRegion'
import { useWho } from '../../api/who'

const TYPES: Array<{ value: ColumnType; label: string }> = [
  { value: 'integer', label: 'Whole number' },
  { value: 'real', label: 'Decimal number' },
  { value: 'text', label: 'Text' },
  { value: 'timestamp', label: 'Date and time' }
]

export function ImportPanel(props: { onImported: () => void }) {
  const client = useClient()
  const who = useWho()
  const [form, dispatch] = useReducer(importFormReducer, initialImportForm)
  const start = useAction()
  const job = useJob(form.jobId)
  const result = job.info?.state === 'done' ? (job.info.result as ImportResult) : null
  const resolved = resolveImportForm(form)
  const { preview, picked } = form
  const importing = form.jobId !== null && (job.info === null || job.info.state === 'running' || job.info.state === 'queued')
  const finished = job.info?.state === 'done'

  const doImport = () => {
    const request = resolved.request
    if (!request) return
    void start.run(async () => {
      const { jobId } = await client.call('datasets/import', request)
      dispatch({ type: 'started', jobId })
    })
  }

  const onImported = useRef(props.onImported)
  onImported.current = props.onImported
  useEffect(() => {
    if (finished) onImported.current()
  }, [finished])

  return (
    <section className="panel" aria-labelledby="import-title" data-testid="import-panel" data-picks={form.picks}>
      <h2 id="import-title">Import a file</h2>
      <p className="hint">
        {who.kind === 'account'
          ? 'A CSV or TSV file with a header row. It is uploaded to the service’s host and copied into its workspace; nothing is released.'
          : 'A CSV or TSV file with a header row. It stays on this machine: the data is copied into the workspace, nothing is released.'}
      </p>
      <FilePicker
        label="File to import"
        accept=".csv,.tsv,.txt,text/csv,text/tab-separated-values"
        dialog={{ title: 'Choose a CSV or TSV file to import', filters: [{ name: 'CSV and TSV', extensions: ['csv', 'tsv', 'txt'] }] }}
        chosen={picked}
        emptyHint="Pick a file: its first rows and their types are shown before anything is imported."
        disabled={importing}
        testIdPrefix="import"
        pickKey={form.picks}
        onPick={() => dispatch({ type: 'pick' })}
        onPicked={async (file) => {
          const pv = await client.call('datasets/preview-file', { fileId: file.fileId, rows: 8 })
          dispatch({ type: 'previewed', file, preview: pv })
        }}
      />

      {preview && picked && !finished && (
        <div className="stack-tight" data-testid="import-preview" data-pick={form.picks}>
          <h3>Preview of {baseName(picked.fileName)}</h3>
          <p className="hint">
            {formatCount(preview.fileBytes)} bytes · delimiter {delimiterName(preview.delimiter)} · types inferred from the first{' '}
            {formatCount(preview.inferredFromRows)} rows; change a type if it is wrong.
          </p>
          <ScrollRegion label="First rows of the file, with their types">
            <table className="preview-table">
              <thead>
                <tr>
                  {preview.columns.map((c) => (
                    <th key={c.position} scope="col">
                      <div className="col-name">{c.name}</div>
                      <select
                        aria-label={`Type of column ${c.name}`}
                        value={form.types[c.name] ?? c.inferredType}
                        onChange={(e) => dispatch({ type: 'columnType', column: c.name, columnType: e.target.value as ColumnType })}
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
          </ScrollRegion>
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
            <TextField label="Dataset name" value={form.name} onChange={(name) => dispatch({ type: 'name', name })} testId="import-name" required />
            <SelectField
              label="Bad rows"
              value={form.onBadRow}
              onChange={(onBadRow) => dispatch({ type: 'onBadRow', onBadRow })}
              options={[
                { value: 'abort', label: 'Stop at the first bad row (nothing is stored)' },
                { value: 'skip', label: 'Skip bad rows and list them' }
              ]}
              testId="import-bad-rows"
            />
            <PrivacyUnitField
              columns={resolved.columns}
              value={form.personColumn}
              onChange={(personColumn) => dispatch({ type: 'unit', personColumn })}
              reason={resolved.unitReason}
              testId="import-unit"
            />
            {resolved.perPersonOptions.length > 0 && (
              <fieldset className="field full" data-testid="import-per-person">
                <legend>Columns with one value per person (optional)</legend>
                <p className="field-hint">
                  Tick a column only if each person has a single value in it over the whole file (a home building, a department). A question grouped
                  by such columns charges each person once instead of once per group, so it costs far less; the import checks every row and stops if a
                  person has two values.
                </p>
                <div className="checks">
                  {resolved.perPersonOptions.map((c) => (
                    <label key={c} className="check">
                      <input
                        type="checkbox"
                        checked={form.perPerson.includes(c)}
                        onChange={(e) => dispatch({ type: 'perPerson', column: c, on: e.target.checked })}
                        data-testid={`per-person-${c}`}
                      />
                      {c}
                    </label>
                  ))}
                </div>
              </fieldset>
            )}
            <div className="field actions">
              <button type="submit" disabled={importing || start.busy || resolved.request === null} data-testid="import-start">
                {start.busy ? 'Starting…' : 'Import'}
              </button>
            </div>
          </form>
          {resolved.why && (
            <p className="hint" data-testid="import-why">
              {resolved.why}
            </p>
          )}
          {resolved.unitSuggestion && (
            <p className="hint" data-testid="import-unit-hint">
              {resolved.unitSuggestion}
            </p>
          )}
          <ErrorText error={start.error} testId="import-error" />
        </div>
      )}

      {form.jobId && (
        <JobPanel jobId={form.jobId} info={job.info} progress={job.progress} label={`Importing ${form.name || 'file'}`} doneText="Imported" />
      )}
      {result && (
        <div className="notice ok-box" data-testid="import-result">
          <p>
            <strong>
              {formatCount(result.dataset.rowCount)} rows imported as “{result.dataset.name}”
            </strong>{' '}
            ({result.dataset.columns.length} columns, {formatCount(result.bytes)} bytes in {result.seconds.toFixed(1)} s;{' '}
            {result.dataset.unit.kind === 'person' ? `unit: person, by “${result.dataset.unit.column}”` : 'unit: row'}).
            {result.badRowCount > 0 ? ` ${formatCount(result.badRowCount)} bad rows were skipped:` : ' No bad rows.'}
          </p>
          {result.badRowCount > 0 && <BadRowReport rows={result.badRows} total={result.badRowCount} />}
        </div>
      )}
    </section>
  )
}

function delimiterName(d: string): string {
  return d === ',' ? 'comma' : d === '\t' ? 'tab' : d === ';' ? 'semicolon' : 'bar'
}
