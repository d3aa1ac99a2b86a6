/**
 * "Link a file (query in place)", beside the import: a Parquet or CSV file becomes a dataset that DuckDB
 * reads where it lies, without a copy into the workspace. Desktop: the native dialog (the file stays where it is).
 * Headless: the file is uploaded once and kept beside the workspace on the server. Either way the page holds an opaque
 * handle, never a path. Linking is the privacy officer's act: the officer signs what the link reads (the path, the
 * columns, the unit, the real file it leads to), so a link rewritten in the workspace is refused at use.
 */
import { useState } from 'react'
import type { CountedDatasetInfo, FileHandle } from '../../../../src-main/contract'
import { useAction, useClient } from '../../api/hooks'
import { ErrorText, TextField } from '../../components/Fields'
import { FilePicker } from '../../components/FilePicker'
import { stripExtension } from '../../components/fileName'
import { PrivacyUnitField } from '../../components/PrivacyUnitField'
import { formatCount } from '../../format'
import { NoOfficerNotice, type OfficerInput, OfficerFields, officerWhy, useOfficers } from '../ledger/OfficerFields'

export function LinkFilePanel(props: { onLinked: () => void }) {
  const client = useClient()
  const headless = client.transport.kind === 'http'
  const [open, setOpen] = useState(false)
  const [picked, setPicked] = useState<FileHandle | null>(null)
  const [name, setName] = useState('')
  const [personColumn, setPersonColumn] = useState('')
  const [linked, setLinked] = useState<CountedDatasetInfo | null>(null)
  const link = useAction()
  const officers = useOfficers()
  const [act, setAct] = useState<OfficerInput>({ officer: '', passphrase: '' })
  const why = officerWhy(officers, act)

  if (!open) {
    return (
      <section className="panel" aria-labelledby="link-file-title" data-testid="link-file-panel">
        <h2 id="link-file-title">Link a file (query in place)</h2>
        <p className="hint">
          A large Parquet or CSV file need not be imported: linked, it stays a file and each release reads only aggregates of it (DuckDB).
        </p>
        <button type="button" className="secondary" onClick={() => setOpen(true)} data-testid="link-file-open">
          Link a file (query in place)
        </button>
      </section>
    )
  }
  return (
    <section className="panel" aria-labelledby="link-file-title" data-testid="link-file-panel">
      <h2 id="link-file-title">Link a file (query in place)</h2>
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
        emptyHint="No file chosen yet."
        disabled={link.busy}
        testIdPrefix="link-file"
        onPick={() => {
          setPicked(null)
          setLinked(null)
        }}
        onPicked={(f) => {
          setPicked(f)
          setName(stripExtension(f.fileName))
        }}
      />
      <div className="button-row">
        <button type="button" className="secondary" onClick={() => setOpen(false)}>
          Close
        </button>
      </div>
      {picked && (
        <form
          className="stack"
          onSubmit={(e) => {
            e.preventDefault()
            void link
              .run(() =>
                client.call('datasets/link-file', {
                  fileId: picked.fileId,
                  name: name.trim(),
                  personColumn: personColumn.trim() === '' ? null : personColumn.trim(),
                  ...(officers.name(act.officer) ? { officer: officers.name(act.officer) } : {}),
                  passphrase: act.passphrase
                })
              )
              .then((d) => {
                setAct({ ...act, passphrase: '' })
                if (!d) return
                setLinked(d)
                setPicked(null)
                props.onLinked()
              })
          }}
        >
          <TextField label="Name of the linked dataset" value={name} onChange={setName} testId="link-file-name" required />
          <PrivacyUnitField columns={null} value={personColumn} onChange={setPersonColumn} testId="link-file-person-column" />
          <OfficerFields officers={officers} value={act} onChange={setAct} testIdPrefix="link-file" />
          {why !== null && officers.names.length > 0 && <p className="hint">{why}</p>}
          <div className="button-row">
            <button type="submit" disabled={link.busy || name.trim() === '' || why !== null} data-testid="link-file-submit">
              {link.busy ? 'Linking…' : 'Link file'}
            </button>
          </div>
          <ErrorText error={link.error} testId="link-file-error" />
        </form>
      )}
      {linked && (
        <p role="status" data-testid="link-file-linked">
          Linked {linked.sourceFile} as "{linked.name}" ({formatCount(linked.rowCount)} rows × {linked.columns.length} columns, queried in place;
          signed by the officer).
        </p>
      )}
    </section>
  )
}
