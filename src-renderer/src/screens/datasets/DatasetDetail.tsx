import { useReveal } from '../../components/reveal'
import { useState } from 'react'
import type { DatasetInfo } from '../../../../src-main/contract'
import { useAction, useClient, useQuery } from '../../api/hooks'
import { ErrorText, TextField } from '../../components/Fields'
import { Loading } from '../../components/Loading'
import { formatCount } from '../../format'
import { href } from '../../sections'
import { NO_OFFICER_WHY, NoOfficerNotice, OfficerFields, officerWhy, useOfficers } from '../ledger/OfficerFields'
import { ScrollRegion } from '../../components/ScrollRegion'

const TYPE_LABEL = { integer: 'whole number', real: 'decimal number', text: 'text', timestamp: 'date and time' } as const
const PAGE = 20

/**
 * One dataset: its columns with their types, whether it is public, and (public datasets only) its rows page by page. The
 * rows of a private dataset are what releases protect: they are never requested. The privacy officer may declare it public.
 */
export function DatasetDetail(props: { dataset: DatasetInfo; onClose: () => void; onChanged: () => void }) {
  const [offset, setOffset] = useState(0)
  const d = props.dataset
  const rows = useQuery('datasets/rows', d.public ? { datasetId: d.id, offset, limit: PAGE } : null, [d.id, d.public, offset])
  const total = rows.data?.total ?? d.rowCount ?? 0
  const reveal = useReveal<HTMLElement>(d.id)
  return (
    <section ref={reveal} className="panel" aria-labelledby="detail-title" data-testid="dataset-detail">
      <div className="panel-head">
        <h2 id="detail-title">
          {d.name} <PublicBadge dataset={d} /> <SourceBadge dataset={d} />
        </h2>
        <span className="button-row">
          <a className="button-link" href={href('queries', d.id)}>
            Ask a question about it
          </a>
          <button type="button" className="secondary" onClick={props.onClose}>
            Close
          </button>
        </span>
      </div>
      <p className="hint">
        {d.source === 'linked-postgres'
          ? `Rows not counted, in the linked PostgreSQL relation ${d.sourceFile}, queried where it lives`
          : d.source === 'linked-clickhouse'
            ? `Rows not counted, in the linked ClickHouse table ${d.sourceFile}, queried where it lives`
            : d.rowCount === undefined
              ? `Private: its number of rows is not shown to analysts; from ${sourceName(d.sourceFile)}`
              : `${formatCount(d.rowCount)} rows from ${sourceName(d.sourceFile)}`}{' '}
        · columns:{' '}
        {d.columns.map((c, i) => (
          <span key={c.position}>
            {i > 0 && ', '}
            <code>{c.name}</code> {TYPE_LABEL[c.type]}
            {c.typeSource === 'override' ? ' (set by you)' : ''}
            {c.perPerson === true ? ' (one value per person, declared)' : ''}
          </span>
        ))}
      </p>
      <p className="hint" data-testid="dataset-unit">
        Privacy unit:{' '}
        {d.unit.kind === 'person' ? (
          <>
            person-level: a person is identified by <code>{d.unit.column}</code> and may have many rows; guarantees and the ledger cover all of a
            person’s rows together. Cells are accounted in parallel only over columns with one value per person.
          </>
        ) : (
          <>row-level: each row is a different person; guarantees and the ledger cover one row.</>
        )}
      </p>
      {d.public ? (
        <>
          <p className="hint" data-testid="dataset-public-note">
            Public: the privacy officer declared it public, so its rows can be browsed and its values may supply group lists, thresholds and lists of
            individuals for releases on other datasets.
          </p>
          <ErrorText error={rows.error} />
          {rows.loading && <Loading what={`rows ${formatCount(offset + 1)} to ${formatCount(offset + PAGE)}`} testId="rows-loading" />}
          <ScrollRegion label={`Rows of ${d.name}`}>
            <table>
              <caption className="sr-only">Rows of {d.name}</caption>
              <thead>
                <tr>
                  <th scope="col" className="num">
                    #
                  </th>
                  {d.columns.map((c) => (
                    <th key={c.position} scope="col">
                      {c.name}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {rows.data?.rows.map((r, i) => (
                  <tr key={offset + i}>
                    <td className="num hint">{formatCount(offset + i + 1)}</td>
                    {r.map((v, j) => (
                      <td key={j} className={typeof v === 'number' ? 'num' : undefined}>
                        {v === null ? <span className="hint">empty</span> : String(v)}
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </ScrollRegion>
          <div className="pager">
            <button type="button" className="secondary" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
              Previous
            </button>
            <span>
              Rows {formatCount(Math.min(total, offset + 1))}–{formatCount(Math.min(total, offset + PAGE))} of {formatCount(total)}
            </span>
            <button type="button" className="secondary" disabled={offset + PAGE >= total} onClick={() => setOffset(offset + PAGE)}>
              Next
            </button>
          </div>
        </>
      ) : (
        <>
          <p className="notice" data-testid="dataset-private-note">
            The rows of “{d.name}” are private and are not shown: only datasets the privacy officer declared public can be browsed.
          </p>
          <DeclarePublic dataset={d} onDeclared={props.onChanged} />
        </>
      )}
    </section>
  )
}

/** The file's own name (uploads are stored under a random prefix). */
function sourceName(path: string): string {
  const base = path.split(/[\\/]/).pop() ?? path
  return base.replace(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-/, '')
}

/** "public" or "private", as a badge. */
/** A linked dataset is queried where it lives (a file, a database table): the catalog says so, with where. */
export function SourceBadge(props: { dataset: DatasetInfo }) {
  const d = props.dataset
  if (d.source === undefined || d.source === 'imported') return null
  const what =
    d.source === 'linked-file'
      ? 'linked file'
      : d.source === 'linked-postgres'
        ? 'linked PostgreSQL'
        : d.source === 'linked-clickhouse'
          ? 'linked ClickHouse'
          : `linked ${String(d.source).replace(/^linked-/, '')}`
  return (
    <span
      className="badge linked"
      title={`Queried in place: ${d.sourceFile} (not copied into the workspace)`}
      data-testid={`dataset-source-${d.name}`}
    >
      {what}
    </span>
  )
}

export function PublicBadge(props: { dataset: DatasetInfo }) {
  return props.dataset.public ? (
    <span className="badge public" data-testid={`dataset-public-${props.dataset.name}`}>
      public
    </span>
  ) : (
    <span className="badge private" data-testid={`dataset-public-${props.dataset.name}`}>
      private
    </span>
  )
}

/**
 * The privacy officer's act: declare the dataset public, with a reason, signed with a registered officer's key (the
 * passphrase unlocks it; never stored). A ledger entry, final.
 */
function DeclarePublic(props: { dataset: DatasetInfo; onDeclared: () => void }) {
  const client = useClient()
  const act = useAction()
  const officers = useOfficers()
  const [open, setOpen] = useState(false)
  const [reason, setReason] = useState('')
  const [cred, setCred] = useState({ officer: '', passphrase: '' })
  const why =
    officers.loaded && officers.names.length === 0
      ? NO_OFFICER_WHY
      : reason.trim().length < 3
        ? 'Give the reason (a few words); it is recorded in the ledger.'
        : officerWhy(officers, cred)
  if (!open) {
    return (
      <div className="button-row">
        <button type="button" className="secondary" onClick={() => setOpen(true)} data-testid="declare-public-open">
          Declare public…
        </button>
        <span className="hint">For the privacy officer, when the data is not about people (e.g. room capacities, a calendar, a published list).</span>
      </div>
    )
  }
  return (
    <form
      className="officer panel stack-tight"
      data-testid="declare-public-form"
      aria-labelledby="declare-public-title"
      onSubmit={(e) => {
        e.preventDefault()
        if (why) return
        void act
          .run(() =>
            client.call('datasets/declare-public', {
              datasetId: props.dataset.id,
              reason: reason.trim(),
              officer: officers.name(cred.officer),
              passphrase: cred.passphrase
            })
          )
          .then((r) => {
            setCred((c) => ({ ...c, passphrase: '' }))
            if (r) {
              setOpen(false)
              props.onDeclared()
            }
          })
      }}
    >
      <h3 id="declare-public-title">Declare “{props.dataset.name}” public</h3>
      <p className="hint" data-testid="declare-public-explained">
        Its values may then reach releases without noise (as group lists, thresholds and lists of individuals) and its rows can be browsed by every
        analyst. The declaration is recorded in the ledger with your reason, signed with your key, and cannot be undone.
      </p>
      <ErrorText error={officers.error} />
      <NoOfficerNotice act="Declaring a dataset public" officers={officers} />
      <div className="row">
        <TextField
          label="Reason (recorded)"
          value={reason}
          onChange={setReason}
          width="wide"
          testId="declare-public-reason"
          placeholder="e.g. room capacities from the published fire-safety plan"
        />
        <OfficerFields officers={officers} value={cred} onChange={setCred} testIdPrefix="declare-public" />
        <div className="field actions">
          <span className="button-row">
            <button
              type="submit"
              disabled={why !== null || act.busy}
              title={why ?? undefined}
              aria-describedby={why ? 'declare-public-why' : undefined}
              data-testid="declare-public-submit"
            >
              {act.busy ? 'Signing the declaration…' : 'Declare public'}
            </button>
            <button type="button" className="secondary" onClick={() => setOpen(false)}>
              Cancel
            </button>
          </span>
        </div>
      </div>
      {why && (
        <p className="hint todo" id="declare-public-why" data-testid="declare-public-why">
          {why}
        </p>
      )}
      <ErrorText error={act.error} testId="declare-public-error" />
    </form>
  )
}
