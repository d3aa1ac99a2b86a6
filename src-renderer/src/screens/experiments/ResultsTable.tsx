import { useMemo, useState } from 'react'
import type { ExperimentDetail, MetricSummary } from '../../../../src-main/contract'
import { formatNumber } from '../../format'
import { sweepsOf } from './chartData'
import { clean } from './chartLook'
import { ScrollRegion } from '../../components/ScrollRegion'

const PAGE = 25

function cell(m: MetricSummary | undefined) {
  if (!m || m.mean === null) return <span className="hint">—</span>
  return (
    <>
      {formatNumber(clean(m.mean), 3)}
      {m.ciLow !== null && m.ciHigh !== null && (
        <span className="ci">
          {' '}
          [{formatNumber(clean(m.ciLow), 3)}, {formatNumber(clean(m.ciHigh), 3)}]
        </span>
      )}
    </>
  )
}

/** Every cell with each metric's mean and 95% CI, a page at a time (a sweep can have hundreds of cells). */
export function ResultsTable(props: { detail: ExperimentDetail }) {
  const [page, setPage] = useState(0)
  const varying = useMemo(() => [...new Set(sweepsOf(props.detail.cells).flatMap((v) => v.varying))], [props.detail.cells])
  const cells = props.detail.cells
  const pages = Math.max(1, Math.ceil(cells.length / PAGE))
  const p = Math.min(page, pages - 1)
  const shown = cells.slice(p * PAGE, p * PAGE + PAGE)
  const multiSweep = new Set(cells.map((c) => c.sweep)).size > 1
  return (
    <section className="panel" aria-labelledby="results-title" data-testid="results-table">
      <h2 id="results-title">Results</h2>
      <ScrollRegion label="Results per cell">
        <table className="compact">
          <thead>
            <tr>
              {multiSweep && <th scope="col">Sweep</th>}
              <th scope="col">Workload</th>
              <th scope="col">Mechanism</th>
              {varying.map((k) => (
                <th key={k} scope="col">
                  {k}
                </th>
              ))}
              <th scope="col">Status</th>
              {props.detail.metrics.map((m) => (
                <th key={m.name} scope="col" title={m.description}>
                  {m.name}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {shown.map((c) => (
              <tr key={c.index}>
                {multiSweep && <td>{c.sweep}</td>}
                <td>{c.workload}</td>
                <td>{c.mechanism}</td>
                {varying.map((k) => (
                  <td key={k} className="num">
                    {c.params[k] === undefined ? '' : String(c.params[k])}
                  </td>
                ))}
                <td>
                  {c.status === 'failed' ? (
                    <span className="error" title={c.error ?? ''}>
                      failed
                    </span>
                  ) : (
                    c.status
                  )}
                </td>
                {props.detail.metrics.map((m) => (
                  <td key={m.name} className="num">
                    {c.status === 'done' ? cell(c.metrics?.[m.name]) : ''}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollRegion>
      {pages > 1 && (
        <div className="pager">
          <button type="button" className="secondary" disabled={p === 0} onClick={() => setPage(p - 1)}>
            Previous
          </button>
          <span>
            Cells {p * PAGE + 1}–{Math.min(cells.length, p * PAGE + PAGE)} of {cells.length}
          </span>
          <button type="button" className="secondary" disabled={p >= pages - 1} onClick={() => setPage(p + 1)}>
            Next
          </button>
        </div>
      )}
    </section>
  )
}
