import { useEffect, useState } from 'react'
import { budgetName, notionName } from './notions'
import { useQuery } from '../../api/hooks'
import { ErrorText } from '../../components/Fields'
import { Loading } from '../../components/Loading'
import { useReveal } from '../../components/reveal'
import { formatCount, formatDate, formatExact } from '../../format'
import { href } from '../../sections'
import { actedBy } from '../../../../src-main/contract/officer-acts'
import { ScrollRegion } from '../../components/ScrollRegion'

const PAGE = 25

/** The timeline of ledger entries, newest first. `highlight` marks one entry (a link from a release). */
export function EntriesTable(props: { datasetId: number | null; highlight: number | null; version: number }) {
  const [offset, setOffset] = useState(0)
  const q = useQuery('ledger/entries', { datasetId: props.datasetId ?? undefined, limit: PAGE, offset }, [props.datasetId, offset, props.version])
  // Each dataset's unit names its budget ("budget per person" or "budget per row").
  const datasets = useQuery('datasets/list', {}, [props.version])
  const unitOf = (datasetId: number) => datasets.data?.find((d) => d.id === datasetId)?.unit.kind ?? null
  const total = q.data?.total ?? 0
  // A link to one entry opens the page that holds it (newest first: entry n is the (total - n)th) and scrolls to it.
  const shown = props.highlight !== null && (q.data?.entries.some((e) => e.seq === props.highlight) ?? false)
  useEffect(() => {
    if (props.highlight === null || !q.data || shown || props.datasetId !== null) return
    const want = Math.floor(Math.max(0, q.data.total - props.highlight) / PAGE) * PAGE
    if (want !== offset) setOffset(want)
  }, [props.highlight, props.datasetId, q.data, shown, offset])
  const reveal = useReveal<HTMLTableRowElement>(shown ? props.highlight : null)
  return (
    <section className="panel" aria-labelledby="entries-title" data-testid="ledger-entries">
      <h2 id="entries-title">Entries</h2>
      <ErrorText error={q.error} />
      {q.data === null && q.loading && <Loading what="the ledger entries" />}
      {q.data && q.data.entries.length === 0 && (
        <p className="empty-state">
          The ledger is empty. Every release is charged here before it is answered; budgets set by the officer appear here too.
        </p>
      )}
      {q.data && q.data.entries.length > 0 && (
        <ScrollRegion label="Ledger entries">
          <table className="compact">
            <thead>
              <tr>
                <th scope="col" className="num">
                  #
                </th>
                <th scope="col">When</th>
                <th scope="col">Kind</th>
                <th scope="col">Dataset</th>
                <th scope="col">Notion</th>
                <th scope="col" className="num">
                  ε
                </th>
                <th scope="col">Cells</th>
                <th scope="col">What, and who</th>
              </tr>
            </thead>
            <tbody>
              {q.data.entries.map((e) => (
                <tr
                  key={e.seq}
                  ref={e.seq === props.highlight ? reveal : undefined}
                  id={`entry-${e.seq}`}
                  className={e.seq === props.highlight ? 'selected' : undefined}
                  data-testid={`ledger-entry-${e.seq}`}
                >
                  <td className="num">{e.seq}</td>
                  <td>
                    {/* Date and time on two lines, each kept whole: the column stays narrow and the description gets the room. */}
                    {formatDate(e.at)
                      .split(', ')
                      .map((part, i) => (
                        <span key={i} className="nowrap block">
                          {part}
                        </span>
                      ))}
                  </td>
                  <td>{e.kind === 'public' ? 'declared public' : e.kind}</td>
                  <td>{e.datasetName}</td>
                  <td>{e.notion ? notionName(e.notion) : e.kind === 'budget' ? budgetName(unitOf(e.datasetId)) : '–'}</td>
                  <td className="num">{e.kind === 'public' ? '–' : formatExact(e.epsilonExact)}</td>
                  <td title={e.cells.join('\n')}>
                    {e.kind !== 'charge' ? '–' : e.cellCount === 0 ? 'whole dataset' : `${formatCount(e.cellCount)} cells`}
                  </td>
                  <td className="wrap entries-what">
                    {e.description}
                    {e.rowLevelAccounting && <span className="hint"> (row-level accounting (before person-level units))</span>}
                    {e.releaseId !== null && (
                      <>
                        {' '}
                        <a href={href('releases', e.releaseId)}>release {e.releaseId}</a>
                      </>
                    )}
                    {/* Who: on its own line under what (a column of its own squeezed the description at 1024 px). */}
                    <span className="hint block-line">{actedBy(e)}</span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      )}
      {total > PAGE && (
        <div className="pager">
          <button type="button" className="secondary" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
            Newer
          </button>
          <span>
            Entries {offset + 1}–{Math.min(total, offset + PAGE)} of {total}
          </span>
          <button type="button" className="secondary" disabled={offset + PAGE >= total} onClick={() => setOffset(offset + PAGE)}>
            Older
          </button>
        </div>
      )}
    </section>
  )
}
