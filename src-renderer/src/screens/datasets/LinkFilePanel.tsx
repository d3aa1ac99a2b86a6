/**
 * "Link a file (query in place)", beside the import: a Parquet or CSV file becomes a dataset that DuckDB
 * reads where it lies, without a copy into the workspace. Desktop: the native dialog (the file stays where it is).
 * Headless: the file is uploaded once and kept beside the workspace on the server. Either way the page holds an opaque
 * handle, never a path. Linking is the privacy officer's act, said on the card before anything is chosen: the officer
 * signs what the link reads (the path, the columns, the unit, the real file it leads to), so a link rewritten in the
 * workspace is refused at use. Once chosen, the file's columns and first rows are shown and the privacy unit is one of
 * its columns (a detected person column preselected, with the reason) or row-level. The form (and the registered
 * officers it reads) mounts when the card is opened.
 */
import { useReducer, useState } from 'react'
import type { CountedDatasetInfo } from '../../../../src-main/contract'
import { useAction, useClient } from '../../api/hooks'
import { ErrorText, TextField } from '../../components/Fields'
import { FilePicker } from '../../components/FilePicker'
import { baseName } from '../../components/fileName'
import { PrivacyUnitField } from '../../components/PrivacyUnitField'
import { formatCount } from '../../format'
import { NoOfficerNotice, type OfficerInput, OfficerFields, officerWhy, useOfficers } from '../ledger/OfficerFields'
import { initialLinkFileForm, linkFileFormReducer, resolveLinkFileForm } from './linkFileFormState'
import { ScrollRegion } from '../../components/ScrollRegion'

/** The card's first words, the same as the PostgreSQL card's: who links, and with what. */
export const LINK_FILE_WHO = 'For the privacy officer: the link is signed with the officer’s key (name and passphrase).'

export function LinkFilePanel(props: { onLinked: () => void }) {
  const [open, setOpen] = useState(false)
  return (
    <section className="panel" aria-labelledby="link-file-title" data-testid="link-file-panel">
      <h2 id="link-file-title">Link a file (query in place)</h2>
      <p className="hint" data-testid="link-file-who">
        <strong>{LINK_FILE_WHO}</strong> A large Parquet or CSV file need not be imported: linked, it stays a file and each release reads only
        aggregates of it (DuckDB).
      </p>
      {open ? (
        <LinkFileForm onLinked={props.onLinked} onClose={() => setOpen(false)} />
      ) : (
        <button type="button" className="secondary" onClick={() => setOpen(true)} data-testid="link-file-open">
          Link a file (query in place)
        </button>
      )}
    </section>
  )
}

function LinkFileForm(props: { onLinked: () => void; onClose: () => void }) {
  const client = useClient()
  const headless = client.transport.kind === 'http'
  const [form, dispatch] = useReducer(linkFileFormReducer, initialLinkFileForm)
  const [linked, setLinked] = useState<CountedDatasetInfo | null>(null)
  const link = useAction()
  const officers = useOfficers()
  const [act, setAct] = useState<OfficerInput>({ officer: '', passphrase: '' })
  const resolved = resolveLinkFileForm(form)
  const why = resolved.why ?? officerWhy(officers, act)
  const { picked, preview } = form
  const submit = () => {
    const request = resolved.request
    if (!request || why !== null) return
    void link
      .run(() => client.call('datasets/link-file', { ...request, officer: officers.name(act.officer), passphrase: act.passphrase }))
      .then((d) => {
        setAct({ ...act, passphrase: '' })
        if (!d) return
        setLinked(d)
        dispatch({ type: 'linked' })
        props.onLinked()
      })
  }
  return (
    <div className="stack-tight" data-testid="link-file-form" data-picks={form.picks}>
      <p className="hint">
        {headless
          ? 'The file is uploaded once and kept beside the workspace on the server; releases read it in place, it is not copied into the workspace.'
          : 'The file stays where it is; releases read it there. Moving or changing its columns later stops releases until it is linked again.'}
      </p>
      <NoOfficerNotice act="Linking a file" officers={officers} testId="link-file-no-officer" />
      <FilePicker
        label="File to link"
        accept=".parquet,.pq,.csv,text/csv"
        dialog={{ title: 'Choose a Parquet or CSV file to link', filters: [{ name: 'Parquet and CSV', extensions: ['parquet', 'pq', 'csv'] }] }}
        chosen={picked}
        emptyHint="No file chosen yet: its columns and first rows are shown before anything is linked."
        disabled={link.busy}
        testIdPrefix="link-file"
        pickKey={form.picks}
        onPick={() => {
          dispatch({ type: 'pick' })
          setLinked(null)
          link.setError(null)
        }}
        onPicked={async (file) => {
          const pv = await client.call('datasets/link-file-preview', { fileId: file.fileId })
          dispatch({ type: 'previewed', file, preview: pv })
        }}
      />
      <div className="button-row">
        <button type="button" className="secondary" onClick={props.onClose}>
          Close
        </button>
      </div>
      {picked && preview && (
        <div className="stack-tight" data-testid="link-file-preview" data-pick={form.picks}>
          <h3>Columns of {baseName(picked.fileName)}</h3>
          <p className="hint">
            {preview.format === 'parquet' ? 'Parquet' : 'CSV'} · {preview.columns.length} columns · the first {formatCount(preview.rows.length)} rows.
          </p>
          <ScrollRegion label="First rows of the file">
            <table className="preview-table">
              <thead>
                <tr>
                  {preview.columns.map((c) => (
                    <th key={c.name} scope="col">
                      <div className="col-name">{c.name}</div>
                      <div className="hint">{TYPE_NAMES[c.type]}</div>
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {preview.rows.map((r, i) => (
                  <tr key={i}>
                    {preview.columns.map((c, j) => (
                      <td key={c.name}>{r[j] ?? ''}</td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </ScrollRegion>
          <form
            className="stack"
            onSubmit={(e) => {
              e.preventDefault()
              submit()
            }}
          >
            <TextField
              label="Name of the linked dataset"
              value={form.name}
              onChange={(name) => dispatch({ type: 'name', name })}
              testId="link-file-name"
              required
            />
            <PrivacyUnitField
              columns={resolved.columns}
              value={form.personColumn}
              onChange={(personColumn) => dispatch({ type: 'unit', personColumn })}
              reason={resolved.unitReason}
              testId="link-file-person-column"
            />
            {resolved.unitSuggestion && (
              <p className="hint" data-testid="link-file-unit-hint">
                {resolved.unitSuggestion}
              </p>
            )}
            <div className="row">
              <OfficerFields officers={officers} value={act} onChange={setAct} testIdPrefix="link-file" />
            </div>
            {why !== null && officers.names.length > 0 && (
              <p className="hint" data-testid="link-file-why">
                {why}
              </p>
            )}
            <div className="button-row">
              <button type="submit" disabled={link.busy || why !== null} data-testid="link-file-submit">
                {link.busy ? 'Linking…' : 'Link file'}
              </button>
            </div>
            <ErrorText error={link.error} testId="link-file-error" />
          </form>
        </div>
      )}
      {linked && (
        <p role="status" data-testid="link-file-linked">
          Linked {linked.sourceFile} as "{linked.name}" ({formatCount(linked.rowCount)} rows × {linked.columns.length} columns, queried in place;
          signed by the officer).
        </p>
      )}
    </div>
  )
}

const TYPE_NAMES = { integer: 'whole number', real: 'decimal number', text: 'text', timestamp: 'date and time' } as const
