import { useState } from 'react'
import type { DatasetInfo, LedgerSummary } from '../../../../src-main/contract'
import { useAction, useClient } from '../../api/hooks'
import { ErrorText } from '../../components/Fields'
import { formatCount, formatDate, formatExact } from '../../format'
import { href } from '../../sections'
import { PublicBadge, SourceBadge } from './DatasetDetail'
import { notionName } from '../ledger/notions'
import { ScrollRegion } from '../../components/ScrollRegion'
import { useMay } from '../../api/who'

/** Spend and budget per notion, in words; "no budget" says what to do. */
export function SpendSummary(props: { summary: LedgerSummary | null; datasetId: number; summaryError?: string | null }) {
  if (props.summaryError) return <span className="hint">Spend not available: {props.summaryError}</span>
  const d = props.summary?.datasets.find((x) => x.datasetId === props.datasetId)
  if (!props.summary) return <span className="hint">…</span>
  const shown = d?.accounts.filter((a) => a.budget !== null || a.spent > 0) ?? []
  if (!d || (d.budgetPerUnitSource === 'none' && shown.length === 0))
    return (
      <span className="hint">
        No budget set: releases are denied until a privacy officer sets one in the <a href={href('ledger')}>Ledger</a>.
      </span>
    )
  const unit = d.unitKind === 'person' ? 'person' : 'row'
  return (
    <ul className="spend-list">
      <li data-testid={`spend-per-unit-${d.datasetId}`}>
        <strong className={d.budgetPerUnitSource !== 'none' && d.spentPerUnit > d.budgetPerUnit ? 'over-budget' : undefined}>
          ε {formatExact(d.spentPerUnitExact)} spent per {unit} of{' '}
          {d.budgetPerUnitSource === 'none' ? 'no budget' : formatExact(d.budgetPerUnitExact)}
        </strong>
      </li>
      {shown.map((a) => (
        <li key={a.notion} data-testid={`spend-notion-${a.notion}`}>
          ε {formatExact(a.spentExact)}{' '}
          <span className="hint">
            under {notionName(a.notion)}
            {a.budgetExact === null ? '' : `, own budget ${formatExact(a.budgetExact)}`}
          </span>
        </li>
      ))}
    </ul>
  )
}

export function Catalog(props: {
  datasets: DatasetInfo[]
  summary: LedgerSummary | null
  summaryError: string | null
  selected: number | null
  onSelect: (id: number | null) => void
  onChanged: () => void
}) {
  const client = useClient()
  const [renaming, setRenaming] = useState<{ id: number; name: string } | null>(null)
  const [deleting, setDeleting] = useState<number | null>(null)
  const act = useAction()
  // Only what the caller may do is offered (the custodian renames and deletes).
  const mayRename = useMay('datasets/rename')
  const mayDelete = useMay('datasets/delete')

  if (props.datasets.length === 0) {
    return (
      <section className="panel empty-state" data-testid="catalog-empty">
        <h2>Catalog</h2>
        <p>No datasets yet. Import a CSV or TSV file above; it appears here with its row count, columns, budget and spend.</p>
      </section>
    )
  }
  return (
    <section className="panel" aria-labelledby="catalog-title" data-testid="catalog">
      <h2 id="catalog-title">Catalog</h2>
      <ScrollRegion label="Datasets in the catalog">
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col" className="num">
                Rows
              </th>
              <th scope="col">Columns</th>
              <th scope="col">Budget and spend</th>
              <th scope="col">Imported</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {props.datasets.map((d) => (
              <tr key={d.id} data-testid={`dataset-row-${d.name}`} className={props.selected === d.id ? 'selected' : undefined}>
                <td>
                  {renaming?.id === d.id ? (
                    <form
                      className="inline-form"
                      onSubmit={(e) => {
                        e.preventDefault()
                        void act
                          .run(() => client.call('datasets/rename', { datasetId: d.id, name: renaming.name.trim() }))
                          .then((r) => {
                            if (r) {
                              setRenaming(null)
                              props.onChanged()
                            }
                          })
                      }}
                    >
                      <input
                        aria-label={`New name for ${d.name}`}
                        value={renaming.name}
                        onChange={(e) => setRenaming({ id: d.id, name: e.target.value })}
                        autoFocus
                        data-testid="rename-input"
                      />
                      <button type="submit">Save</button>
                      <button type="button" className="secondary" onClick={() => setRenaming(null)}>
                        Cancel
                      </button>
                    </form>
                  ) : (
                    <>
                      <strong>{d.name}</strong> <PublicBadge dataset={d} /> <SourceBadge dataset={d} />
                      <div className="hint" data-testid={`dataset-unit-${d.name}`}>
                        {d.unit.kind === 'person' ? `unit: person (${d.unit.column})` : 'unit: row'}
                      </div>
                    </>
                  )}
                </td>
                <td className="num">
                  {d.source === 'linked-postgres' || d.source === 'linked-clickhouse' || d.rowCount === undefined ? '—' : formatCount(d.rowCount)}
                  {(d.source === 'linked-postgres' || d.source === 'linked-clickhouse') && <div className="hint">not counted</div>}
                  {d.rowCount === undefined && <div className="hint">private: not shown</div>}
                  {(d.skippedRows ?? 0) > 0 && <div className="hint">{formatCount(d.skippedRows ?? 0)} skipped</div>}
                </td>
                <td className="cols-cell" title={d.columns.map((c) => `${c.name} (${c.type})`).join(', ')}>
                  {d.columns.length}:{' '}
                  {d.columns
                    .slice(0, 4)
                    .map((c) => c.name)
                    .join(', ')}
                  {d.columns.length > 4 ? ', …' : ''}
                </td>
                <td>
                  <SpendSummary summary={props.summary} summaryError={props.summaryError} datasetId={d.id} />
                </td>
                <td>{formatDate(d.createdAt)}</td>
                <td className="actions-cell">
                  {deleting === d.id ? (
                    <span className="confirm" role="group" aria-label={`Confirm deleting ${d.name}`}>
                      <span>Delete the data and its saved queries? The ledger keeps its history.</span>
                      <button
                        type="button"
                        className="danger"
                        onClick={() =>
                          void act
                            .run(() => client.call('datasets/delete', { datasetId: d.id }))
                            .then((r) => {
                              setDeleting(null)
                              if (r) {
                                if (props.selected === d.id) props.onSelect(null)
                                props.onChanged()
                              }
                            })
                        }
                      >
                        Delete
                      </button>
                      <button type="button" className="secondary" onClick={() => setDeleting(null)}>
                        Keep
                      </button>
                    </span>
                  ) : (
                    <span className="button-row">
                      <button type="button" className="secondary" onClick={() => props.onSelect(d.id)} aria-label={`Open ${d.name}`}>
                        Open
                      </button>
                      {mayRename && (
                        <button
                          type="button"
                          className="secondary"
                          onClick={() => setRenaming({ id: d.id, name: d.name })}
                          aria-label={`Rename ${d.name}`}
                        >
                          Rename
                        </button>
                      )}
                      {mayDelete && (
                        <button type="button" className="secondary danger-text" onClick={() => setDeleting(d.id)} aria-label={`Delete ${d.name}`}>
                          Delete
                        </button>
                      )}
                    </span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollRegion>
      <ErrorText error={act.error} testId="catalog-error" />
    </section>
  )
}
