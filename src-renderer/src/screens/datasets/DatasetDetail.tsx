import { useState } from 'react'
import type { DatasetInfo } from '../../../../src-main/contract'
import { useQuery } from '../../api/hooks'
import { ErrorText } from '../../components/Fields'
import { formatCount } from '../../format'
import { href } from '../../sections'

const TYPE_LABEL = { integer: 'whole number', real: 'decimal number', text: 'text', timestamp: 'date and time' } as const
const PAGE = 20

/** One dataset: its columns with their types, and its rows page by page. */
export function DatasetDetail(props: { dataset: DatasetInfo; onClose: () => void }) {
  const [offset, setOffset] = useState(0)
  const rows = useQuery('datasets/rows', { datasetId: props.dataset.id, offset, limit: PAGE }, [props.dataset.id, offset])
  const d = props.dataset
  const total = rows.data?.total ?? d.rowCount
  return (
    <section className="panel" aria-labelledby="detail-title" data-testid="dataset-detail">
      <div className="panel-head">
        <h2 id="detail-title">{d.name}</h2>
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
        {formatCount(d.rowCount)} rows from {sourceName(d.sourceFile)} · columns:{' '}
        {d.columns.map((c, i) => (
          <span key={c.position}>
            {i > 0 && ', '}
            <code>{c.name}</code> {TYPE_LABEL[c.type]}
            {c.typeSource === 'override' ? ' (set by you)' : ''}
            {c.perPerson === false ? ' (several values per person)' : ''}
          </span>
        ))}
      </p>
      <p className="hint" data-testid="dataset-unit">
        Privacy unit:{' '}
        {d.unit.kind === 'person' ? (
          <>
            person-level: a person is identified by <code>{d.unit.column}</code> and may have many rows; guarantees and the ledger
            cover all of a person’s rows together. Cells are accounted in parallel only over columns with one value per person.
          </>
        ) : (
          <>row-level: each row is a different person; guarantees and the ledger cover one row.</>
        )}
      </p>
      <ErrorText error={rows.error} />
      <div className="table-scroll">
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
      </div>
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
    </section>
  )
}

/** The file's own name (uploads are stored under a random prefix). */
function sourceName(path: string): string {
  const base = path.split(/[\\/]/).pop() ?? path
  return base.replace(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-/, '')
}
