/**
 * "Link a file (query in place)" (issue 16), beside the import: a Parquet or CSV file becomes a dataset that DuckDB
 * reads where it lies, without a copy into the workspace. Desktop: the native dialog (the file stays where it is).
 * Headless: the file is uploaded once and kept beside the workspace on the server. Either way the page holds an opaque
 * handle, never a path (issue 15). Not an officer act: whoever links a file holds it.
 */
import { useId, useState } from 'react'
import type { DatasetInfo, FileHandle } from '../../../../src-main/contract'
import { useAction, useClient } from '../../api/hooks'
import { ErrorText, TextField } from '../../components/Fields'
import { formatCount } from '../../format'

function stripExtension(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? name
  return base.replace(/\.[^.]+$/, '') || base
}

export function LinkFilePanel(props: { onLinked: () => void }) {
  const client = useClient()
  const fieldId = useId()
  const headless = client.transport.kind === 'http'
  const [open, setOpen] = useState(false)
  const [picked, setPicked] = useState<FileHandle | null>(null)
  const [name, setName] = useState('')
  const [personColumn, setPersonColumn] = useState('')
  const [linked, setLinked] = useState<DatasetInfo | null>(null)
  const pick = useAction()
  const link = useAction()

  const chosen = (f: FileHandle) => {
    setPicked(f)
    setLinked(null)
    setName(stripExtension(f.fileName))
  }
  const onFile = (file: File | undefined) => {
    if (!file) return
    setPicked(null)
    void pick.run(async () => {
      if (!client.transport.upload) throw new Error('This window cannot upload files; use Choose file instead.')
      chosen(await client.transport.upload(file))
    })
  }
  const chooseNative = () => {
    setPicked(null)
    void pick.run(async () => {
      const { file } = await client.call('app/choose-file', {
        title: 'Choose a Parquet or CSV file to link',
        filters: [{ name: 'Parquet and CSV', extensions: ['parquet', 'pq', 'csv'] }]
      })
      if (file) chosen(file)
    })
  }

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
      <div className="row">
        {headless ? (
          <div className="field">
            <label htmlFor={fieldId}>File to link</label>
            <input
              id={fieldId}
              type="file"
              accept=".parquet,.pq,.csv,text/csv"
              onChange={(e) => {
                onFile(e.target.files?.[0])
                e.target.value = ''
              }}
              disabled={pick.busy || link.busy}
              data-testid="link-file-input"
              aria-describedby={`${fieldId}-chosen`}
            />
            <span className="field-hint" id={`${fieldId}-chosen`} data-testid="link-file-chosen">
              {pick.busy ? 'Uploading…' : picked ? `Chosen: ${picked.fileName}` : 'No file chosen yet.'}
            </span>
          </div>
        ) : (
          <button type="button" onClick={chooseNative} disabled={pick.busy || link.busy} data-testid="link-file-choose">
            Choose file…
          </button>
        )}
        <button type="button" className="secondary" onClick={() => setOpen(false)}>
          Close
        </button>
      </div>
      <ErrorText error={pick.error} testId="link-file-pick-error" />
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
                  personColumn: personColumn.trim() === '' ? null : personColumn.trim()
                })
              )
              .then((d) => {
                if (!d) return
                setLinked(d)
                setPicked(null)
                props.onLinked()
              })
          }}
        >
          <TextField label="Name of the linked dataset" value={name} onChange={setName} testId="link-file-name" required />
          <TextField
            label="Person column (optional)"
            value={personColumn}
            onChange={setPersonColumn}
            hint="The column identifying a person who may have many rows; leave empty if each row is a different person."
            testId="link-file-person-column"
          />
          <div className="button-row">
            <button type="submit" disabled={link.busy || name.trim() === ''} data-testid="link-file-submit">
              {link.busy ? 'Linking…' : 'Link file'}
            </button>
          </div>
          <ErrorText error={link.error} testId="link-file-error" />
        </form>
      )}
      {linked && (
        <p role="status" data-testid="link-file-linked">
          Linked {linked.sourceFile} as "{linked.name}" ({formatCount(linked.rowCount)} rows × {linked.columns.length} columns, queried in place).
        </p>
      )}
    </section>
  )
}
