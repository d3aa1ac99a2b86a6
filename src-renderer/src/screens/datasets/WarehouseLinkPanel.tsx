/**
 * "Connect to <engine>": a URL without a password (the password is read from the server's environment, from the
 * engine's variable or one ending in its name), "Test connection" lists what the connection may read, a table picker,
 * the privacy unit, and "Link" makes it a dataset queried where it lives. Both are the privacy officer's acts (the
 * server's password goes to the URL's host; the link is signed): the officer's name and passphrase go with each call,
 * the passphrase is cleared after the link. The form is warehouseLinkState.ts; each engine gives its words and calls.
 */
import { useReducer, useState } from 'react'
import type { DatasetInfo, LinkPostgresRequest, PostgresConnectionRequest } from '../../../../src-main/contract'
import type { Client } from '../../api/client'
import { useAction, useClient } from '../../api/hooks'
import { ErrorText, SelectField, TextField } from '../../components/Fields'
import { PrivacyUnitField } from '../../components/PrivacyUnitField'
import { NoOfficerNotice, OfficerFields, officerWhy, useOfficers } from '../ledger/OfficerFields'
import { type WarehouseTable, initialWarehouseLink, resolveWarehouseLink, warehouseLinkReducer } from './warehouseLinkState'

/** What differs between the engines: their words, and the two calls. */
export interface WarehouseEngine {
  /** The test ids' prefix ("postgres", "clickhouse"). */
  id: string
  title: string
  blurb: string
  url: { label: string; placeholder: string; hint: string }
  passwordEnv: { label: string; placeholder: string; hint: string }
  tableLabel: string
  /** "one table or view this role may read", for the count of tables listed. */
  connected: (count: number) => string
  noTables: string
  /** Named in the notice shown when no officer is registered ("Linking a ClickHouse table"). */
  act: string
  list: (client: Client, req: PostgresConnectionRequest) => Promise<WarehouseTable[]>
  link: (client: Client, req: LinkPostgresRequest) => Promise<DatasetInfo>
}

export function WarehouseLinkPanel(props: { engine: WarehouseEngine; onLinked: () => void }) {
  const { engine } = props
  const [open, setOpen] = useState(false)
  if (open) return <WarehouseConnect engine={engine} onLinked={props.onLinked} onClose={() => setOpen(false)} />
  return (
    <section className="panel" aria-labelledby={`${engine.id}-title`} data-testid={`${engine.id}-panel`}>
      <h2 id={`${engine.id}-title`}>{engine.title}</h2>
      <p className="hint">{engine.blurb}</p>
      <button type="button" className="secondary" onClick={() => setOpen(true)} data-testid={`${engine.id}-open`}>
        {engine.title}
      </button>
    </section>
  )
}

/** The open panel: mounted when opened, so the registered officers are read then (one may have been set up meanwhile). */
function WarehouseConnect(props: { engine: WarehouseEngine; onLinked: () => void; onClose: () => void }) {
  const { engine } = props
  const client = useClient()
  const officers = useOfficers()
  const [form, dispatch] = useReducer(warehouseLinkReducer, initialWarehouseLink)
  const r = resolveWarehouseLink(form, { name: officers.name(form.credentials.officer), why: officerWhy(officers, form.credentials) })
  const test = useAction()
  const link = useAction()
  const tid = (what: string) => `${engine.id}-${what}`

  return (
    <section className="panel" aria-labelledby={tid('title')} data-testid={tid('panel')}>
      <h2 id={tid('title')}>{engine.title}</h2>
      <NoOfficerNotice act={engine.act} officers={officers} testId={tid('no-officer')} />
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault()
          const connection = r.connection
          if (connection === null) return
          dispatch({ type: 'testing' })
          void test.run(() => engine.list(client, connection)).then((tables) => tables && dispatch({ type: 'listed', tables }))
        }}
      >
        <TextField
          label={engine.url.label}
          value={form.url}
          onChange={(url) => dispatch({ type: 'url', url })}
          placeholder={engine.url.placeholder}
          hint={engine.url.hint}
          testId={tid('url')}
          width="wide"
          required
        />
        <TextField
          label={engine.passwordEnv.label}
          value={form.passwordEnv}
          onChange={(passwordEnv) => dispatch({ type: 'passwordEnv', passwordEnv })}
          placeholder={engine.passwordEnv.placeholder}
          hint={engine.passwordEnv.hint}
          testId={tid('password-env')}
        />
        <OfficerFields
          officers={officers}
          value={form.credentials}
          onChange={(credentials) => dispatch({ type: 'credentials', credentials })}
          testIdPrefix={engine.id}
        />
        <div className="button-row">
          <button type="submit" disabled={test.busy || r.connection === null} title={r.testWhy ?? undefined} data-testid={tid('test')}>
            {test.busy ? 'Testing…' : 'Test connection'}
          </button>
          <button type="button" className="secondary" onClick={props.onClose}>
            Close
          </button>
        </div>
        <ErrorText error={test.error} testId={tid('test-error')} />
      </form>
      {form.tables && form.tables.length === 0 && <p data-testid={tid('no-tables')}>{engine.noTables}</p>}
      {form.tables && form.tables.length > 0 && (
        <form
          className="stack"
          onSubmit={(e) => {
            e.preventDefault()
            const req = r.link
            if (req === null) return
            void link
              .run(() => engine.link(client, req))
              .then((dataset) => {
                if (!dataset) return
                dispatch({ type: 'linked', dataset })
                props.onLinked()
              })
          }}
        >
          <p data-testid={tid('connected')}>Connected: {engine.connected(form.tables.length)}.</p>
          <SelectField
            label={engine.tableLabel}
            value={form.table}
            options={form.tables.map((t) => ({ value: t.key, label: t.label }))}
            onChange={(key) => dispatch({ type: 'table', key })}
            testId={tid('table')}
            width="wide"
          />
          <TextField
            label="Name of the linked dataset"
            value={form.name}
            onChange={(name) => dispatch({ type: 'name', name })}
            testId={tid('name')}
            required
          />
          <PrivacyUnitField
            columns={r.chosen?.columns ? r.chosen.columns.map((name) => ({ name })) : null}
            value={form.personColumn}
            onChange={(personColumn) => dispatch({ type: 'personColumn', personColumn })}
            reason={r.unitReason}
            testId={tid('person-column')}
          />
          <div className="button-row">
            <button type="submit" disabled={link.busy || r.link === null} title={r.linkWhy ?? undefined} data-testid={tid('link')}>
              {link.busy ? 'Linking…' : 'Link'}
            </button>
          </div>
          <ErrorText error={link.error} testId={tid('link-error')} />
        </form>
      )}
      {form.linked && (
        <p role="status" data-testid={tid('linked')}>
          Linked {form.linked.sourceFile} as &quot;{form.linked.name}&quot; ({form.linked.columns.length} columns as declared; rows not counted;
          signed by the officer).
        </p>
      )}
    </section>
  )
}
