import { useQuery } from '../api/hooks'
import { ErrorText } from '../components/Fields'
import { Loading } from '../components/Loading'
import { formatDate, formatExact, mechanismName } from '../format'
import { href } from '../sections'
import { ReleaseResult } from './releases/ReleaseResult'
import type { ScreenProps } from '.'

/** Every released answer; `#/releases/<id>` opens one. */
export function ReleasesScreen(props: ScreenProps) {
  const list = useQuery('releases/list', {})
  const id = props.param && /^\d+$/.test(props.param) ? Number(props.param) : null
  const one = useQuery('releases/get', id === null ? null : { releaseId: id }, [id])
  const releases = list.data ?? []
  return (
    <div className="stack" data-testid="screen-releases">
      {id !== null && (
        <>
          <ErrorText error={one.error} />
          {one.data === null && one.loading && <Loading what={`release ${id}`} />}
          {one.data && <ReleaseResult release={one.data} />}
        </>
      )}
      <section className="panel" aria-labelledby="releases-title">
        <h2 id="releases-title">All releases</h2>
        <ErrorText error={list.error} />
        {list.data === null && list.loading && <Loading what="the releases" />}
        {list.data && releases.length === 0 && (
          <p className="empty-state">
            Nothing released yet. Define a question in <a href={href('queries')}>Queries</a>, check its price and release it; the answer appears here.
          </p>
        )}
        {releases.length > 0 && (
          <table className="compact" data-testid="releases-table">
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col">Query</th>
                <th scope="col">Dataset</th>
                <th scope="col">Mechanism</th>
                <th scope="col" className="num">
                  Charged ε
                </th>
                <th scope="col">Status</th>
                <th scope="col">When</th>
              </tr>
            </thead>
            <tbody>
              {releases.map((r) => (
                <tr key={r.releaseId} className={r.releaseId === id ? 'selected' : undefined}>
                  <td>
                    <a href={href('releases', r.releaseId)}>{r.releaseId}</a>
                  </td>
                  <td>
                    <a href={href('releases', r.releaseId)}>{r.queryName}</a> <span className="badge release">Released</span>
                  </td>
                  <td>{r.datasetName}</td>
                  <td>{mechanismName(r.mechanism)}</td>
                  <td className="num">{formatExact(r.epsilonExact)}</td>
                  <td>{r.statusText}</td>
                  <td>{formatDate(r.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </div>
  )
}
