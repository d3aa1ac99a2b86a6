/**
 * "Connect to ClickHouse", beside "Connect to PostgreSQL": an HTTP(S) URL without a password (the password is read
 * from the server's environment, CLICKHOUSE_PASSWORD or a variable ending in CLICKHOUSE_PASSWORD), "Test connection"
 * lists the tables the user can see (local or Distributed), a table picker, the privacy unit among the table's
 * columns (with where a Distributed table's per-person stage runs), and "Link" makes it a dataset queried where it
 * lives. Both are the privacy officer's acts (the server's password goes to the URL's host; the link is signed): the
 * officer's name and passphrase go with each call, the passphrase is cleared after the link.
 */
import { useState } from 'react'
import type { ClickHouseTable, DatasetInfo } from '../../../../src-main/contract'
import { useAction, useClient } from '../../api/hooks'
import { ErrorText, SelectField, TextField } from '../../components/Fields'
import { PrivacyUnitField } from '../../components/PrivacyUnitField'
import { NoOfficerNotice, OfficerFields, type OfficerInput, officerWhy, useOfficers } from '../ledger/OfficerFields'

const tableKey = (t: ClickHouseTable) => `${t.database}.${t.table}`

/** Where a Distributed table's per-person stage runs for this person column (both exact; null for a local table or row-level). */
export function shardingNote(t: ClickHouseTable, personColumn: string): string | null {
  if (t.engine !== 'Distributed' || personColumn === '') return null
  return t.shardedBy.includes(personColumn)
    ? `Sharded by ${personColumn}: all of a person's rows are on one shard, so each shard counts its own persons.`
    : `Not sharded by ${personColumn}: a person's rows may lie on several shards, so their counts are merged first (exact, slower).`
}

export function ClickHousePanel(props: { onLinked: () => void }) {
  const [open, setOpen] = useState(false)
  if (open) return <ClickHouseConnect onLinked={props.onLinked} onClose={() => setOpen(false)} />
  return (
    <section className="panel" aria-labelledby="ch-title" data-testid="clickhouse-panel">
      <h2 id="ch-title">Connect to ClickHouse</h2>
      <p className="hint">
        Link a table of your ClickHouse, local or Distributed over shards: it stays there, and releases read only aggregates of it (read-only, with a
        time limit). For the privacy officer: the server&apos;s password is used, so the link is signed with the officer&apos;s key.
      </p>
      <button type="button" className="secondary" onClick={() => setOpen(true)} data-testid="clickhouse-open">
        Connect to ClickHouse
      </button>
    </section>
  )
}

/** The open panel: mounted when opened, so the registered officers are read then (one may have been set up meanwhile). */
function ClickHouseConnect(props: { onLinked: () => void; onClose: () => void }) {
  const client = useClient()
  const officers = useOfficers()
  const [url, setUrl] = useState('')
  const [passwordEnv, setPasswordEnv] = useState('')
  const [cred, setCred] = useState<OfficerInput>({ officer: '', passphrase: '' })
  const [tables, setTables] = useState<ClickHouseTable[] | null>(null)
  const [table, setTable] = useState('')
  const [name, setName] = useState('')
  // The dataset's name follows the table chosen until the user types one.
  const [nameTyped, setNameTyped] = useState(false)
  const [personColumn, setPersonColumn] = useState('')
  const [linked, setLinked] = useState<DatasetInfo | null>(null)
  const test = useAction()
  const link = useAction()
  const why = officerWhy(officers, cred)
  const chosen = tables?.find((t) => tableKey(t) === table) ?? null
  const connection = () => ({
    url: url.trim(),
    ...(passwordEnv.trim() ? { passwordEnv: passwordEnv.trim() } : {}),
    ...(officers.name(cred.officer) ? { officer: officers.name(cred.officer) } : {}),
    passphrase: cred.passphrase
  })

  return (
    <section className="panel" aria-labelledby="ch-title" data-testid="clickhouse-panel">
      <h2 id="ch-title">Connect to ClickHouse</h2>
      <NoOfficerNotice act="Linking a ClickHouse table" officers={officers} testId="clickhouse-no-officer" />
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault()
          setTables(null)
          setLinked(null)
          void test
            .run(() => client.call('datasets/clickhouse-tables', connection()))
            .then((r) => {
              if (!r) return
              setTables(r.tables)
              const first = r.tables[0]
              setTable(first ? tableKey(first) : '')
              setPersonColumn('')
              if (first && !nameTyped) setName(first.table)
            })
        }}
      >
        <TextField
          label="ClickHouse URL"
          value={url}
          onChange={(v) => {
            setUrl(v)
            setTables(null)
          }}
          placeholder="http://reader@localhost:8123"
          hint="The HTTP(S) address and the user, without a password: the password is read from the app's environment (CLICKHOUSE_PASSWORD) and never stored."
          testId="clickhouse-url"
          width="wide"
          required
        />
        <TextField
          label="ClickHouse password variable (optional, on the server)"
          value={passwordEnv}
          onChange={setPasswordEnv}
          placeholder="CLICKHOUSE_PASSWORD"
          hint="The name of an environment variable ending in CLICKHOUSE_PASSWORD, e.g. HR_CLICKHOUSE_PASSWORD."
          testId="clickhouse-password-env"
        />
        <OfficerFields officers={officers} value={cred} onChange={setCred} testIdPrefix="clickhouse" />
        <div className="button-row">
          <button type="submit" disabled={test.busy || url.trim() === '' || why !== null} title={why ?? undefined} data-testid="clickhouse-test">
            {test.busy ? 'Testing…' : 'Test connection'}
          </button>
          <button type="button" className="secondary" onClick={props.onClose}>
            Close
          </button>
        </div>
        <ErrorText error={test.error} testId="clickhouse-test-error" />
      </form>
      {tables && tables.length === 0 && <p data-testid="clickhouse-no-tables">Connected, but this user sees no table.</p>}
      {tables && tables.length > 0 && (
        <form
          className="stack"
          onSubmit={(e) => {
            e.preventDefault()
            void link
              .run(() =>
                client.call('datasets/link-clickhouse', {
                  ...connection(),
                  name: name.trim(),
                  table,
                  personColumn: personColumn.trim() === '' ? null : personColumn.trim()
                })
              )
              .then((d) => {
                if (!d) return
                setCred({ ...cred, passphrase: '' })
                setLinked(d)
                props.onLinked()
              })
          }}
        >
          <p data-testid="clickhouse-connected">Connected: {tables.length === 1 ? 'one table' : `${tables.length} tables`} this user can see.</p>
          <SelectField
            label="ClickHouse table"
            value={table}
            options={tables.map((t) => ({ value: tableKey(t), label: `${tableKey(t)} (${t.engine})` }))}
            onChange={(key) => {
              setTable(key)
              setPersonColumn('')
              const t = tables.find((x) => tableKey(x) === key)
              if (t && !nameTyped) setName(t.table)
            }}
            testId="clickhouse-table"
            width="wide"
          />
          <TextField
            label="Name of the linked dataset"
            value={name}
            onChange={(v) => {
              setName(v)
              setNameTyped(true)
            }}
            testId="clickhouse-name"
            required
          />
          <PrivacyUnitField
            columns={chosen ? chosen.columns.map((c) => ({ name: c })) : null}
            value={personColumn}
            onChange={setPersonColumn}
            reason={chosen ? shardingNote(chosen, personColumn) : null}
            testId="clickhouse-person-column"
          />
          <div className="button-row">
            <button
              type="submit"
              disabled={link.busy || name.trim() === '' || table === '' || why !== null}
              title={why ?? undefined}
              data-testid="clickhouse-link"
            >
              {link.busy ? 'Linking…' : 'Link'}
            </button>
          </div>
          <ErrorText error={link.error} testId="clickhouse-link-error" />
        </form>
      )}
      {linked && (
        <p role="status" data-testid="clickhouse-linked">
          Linked {linked.sourceFile} as &quot;{linked.name}&quot; ({linked.columns.length} columns as declared; rows not counted; signed by the
          officer).
        </p>
      )}
    </section>
  )
}
