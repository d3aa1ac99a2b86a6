/**
 * "Connect to PostgreSQL": a connection URL without a password (the password is read from the server's
 * environment, PGPASSWORD or a variable ending in PGPASSWORD), "Test connection" lists the tables and views the role
 * may read, a table picker, the privacy unit, and "Link" makes it a dataset queried where it lives. Both are the
 * privacy officer's acts (the server's password goes to the URL's host; the link is signed): the officer's name and
 * passphrase go with each call and the passphrase is cleared after the link.
 */
import { useState } from 'react'
import type { DatasetInfo, PostgresRelation } from '../../../../src-main/contract'
import { useAction, useClient, useQuery } from '../../api/hooks'
import { ErrorText, SelectField, TextField } from '../../components/Fields'

const relationKey = (r: PostgresRelation) => `${r.schema}.${r.table}`

export function PostgresPanel(props: { onLinked: () => void }) {
  const client = useClient()
  const [open, setOpen] = useState(false)
  const [url, setUrl] = useState('')
  const [passwordEnv, setPasswordEnv] = useState('')
  const [relations, setRelations] = useState<PostgresRelation[] | null>(null)
  const [table, setTable] = useState('')
  const [name, setName] = useState('')
  const [personColumn, setPersonColumn] = useState('')
  const [linked, setLinked] = useState<DatasetInfo | null>(null)
  const [officer, setOfficer] = useState('')
  const [passphrase, setPassphrase] = useState('')
  const officers = useQuery('officer/list', {}, [open])
  const registered = officers.data ?? []
  // One registered officer: theirs is the only key that can sign, so the name is filled in.
  const officerName = officer || (registered.length === 1 ? registered[0].name : '')
  const test = useAction()
  const link = useAction()
  const connection = () => ({
    url: url.trim(),
    ...(passwordEnv.trim() ? { passwordEnv: passwordEnv.trim() } : {}),
    ...(officerName.trim() ? { officer: officerName.trim() } : {}),
    passphrase
  })

  if (!open) {
    return (
      <section className="panel" aria-labelledby="pg-title" data-testid="postgres-panel">
        <h2 id="pg-title">Connect to PostgreSQL</h2>
        <p className="hint">
          Link a table or view of your PostgreSQL: it stays there, and releases read only aggregates of it (read-only, with a time limit). For the
          privacy officer: the server&apos;s password is used, so the link is signed with the officer&apos;s key.
        </p>
        <button type="button" className="secondary" onClick={() => setOpen(true)} data-testid="postgres-open">
          Connect to PostgreSQL
        </button>
      </section>
    )
  }
  return (
    <section className="panel" aria-labelledby="pg-title" data-testid="postgres-panel">
      <h2 id="pg-title">Connect to PostgreSQL</h2>
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault()
          setRelations(null)
          setLinked(null)
          void test
            .run(() => client.call('datasets/postgres-relations', connection()))
            .then((r) => {
              if (!r) return
              setRelations(r.relations)
              const first = r.relations[0]
              setTable(first ? relationKey(first) : '')
              if (first && name === '') setName(first.table)
            })
        }}
      >
        <TextField
          label="Connection URL"
          value={url}
          onChange={(v) => {
            setUrl(v)
            setRelations(null)
          }}
          placeholder="postgresql://reader@localhost:5432/hr"
          hint="Without a password: the password is read from the app's environment (PGPASSWORD) and never stored."
          testId="postgres-url"
          width="wide"
          required
        />
        <TextField
          label="Password variable (optional, on the server)"
          value={passwordEnv}
          onChange={setPasswordEnv}
          placeholder="PGPASSWORD"
          hint="The name of an environment variable ending in PGPASSWORD, e.g. HR_PGPASSWORD."
          testId="postgres-password-env"
        />
        <TextField label="Officer" value={officerName} onChange={setOfficer} testId="postgres-officer" />
        <div className="field narrow">
          <label htmlFor="postgres-passphrase">Officer&apos;s passphrase</label>
          <input
            id="postgres-passphrase"
            type="password"
            autoComplete="current-password"
            value={passphrase}
            onChange={(e) => setPassphrase(e.target.value)}
            data-testid="postgres-passphrase"
          />
        </div>
        <div className="button-row">
          <button type="submit" disabled={test.busy || url.trim() === '' || passphrase === ''} data-testid="postgres-test">
            {test.busy ? 'Testing…' : 'Test connection'}
          </button>
          <button type="button" className="secondary" onClick={() => setOpen(false)}>
            Close
          </button>
        </div>
        <ErrorText error={test.error} testId="postgres-test-error" />
      </form>
      {relations && relations.length === 0 && <p data-testid="postgres-no-tables">Connected, but this role may read no table or view.</p>}
      {relations && relations.length > 0 && (
        <form
          className="stack"
          onSubmit={(e) => {
            e.preventDefault()
            void link
              .run(() =>
                client.call('datasets/link-postgres', {
                  ...connection(),
                  name: name.trim(),
                  table,
                  personColumn: personColumn.trim() === '' ? null : personColumn.trim()
                })
              )
              .then((d) => {
                if (!d) return
                setPassphrase('')
                setLinked(d)
                props.onLinked()
              })
          }}
        >
          <p data-testid="postgres-connected">
            Connected: {relations.length === 1 ? 'one table or view' : `${relations.length} tables and views`} this role may read.
          </p>
          <SelectField
            label="Table or view"
            value={table}
            options={relations.map((r) => ({ value: relationKey(r), label: `${relationKey(r)} (${r.kind})` }))}
            onChange={setTable}
            testId="postgres-table"
            width="wide"
          />
          <TextField label="Name of the linked dataset" value={name} onChange={setName} testId="postgres-name" required />
          <TextField
            label="Its person column (optional)"
            value={personColumn}
            onChange={setPersonColumn}
            hint="The column identifying a person who may have many rows; leave empty if each row is a different person."
            testId="postgres-person-column"
          />
          <div className="button-row">
            <button type="submit" disabled={link.busy || name.trim() === '' || table === '' || passphrase === ''} data-testid="postgres-link">
              {link.busy ? 'Linking…' : 'Link'}
            </button>
          </div>
          <ErrorText error={link.error} testId="postgres-link-error" />
        </form>
      )}
      {linked && (
        <p role="status" data-testid="postgres-linked">
          Linked {linked.sourceFile} as "{linked.name}" ({linked.columns.length} columns as declared; rows not counted; signed by the officer).
        </p>
      )}
    </section>
  )
}
