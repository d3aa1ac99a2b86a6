import { useMemo } from 'react'
import type { SavedQuery } from '../../../../src-main/contract'
import { useQuery } from '../../api/hooks'
import { ErrorText } from '../../components/Fields'
import { Loading } from '../../components/Loading'
import { formatDate } from '../../format'
import { href } from '../../sections'
import { queryVersionRows } from './queryVersionsDefinition'

/**
 * The versions of a saved question, newest first: when each was saved, what it changed, and the releases that ran it
 * (each links to its answer). `queryVersionRows` (queryVersionsDefinition.ts, pure) does the shaping.
 */
export function QueryVersions(props: { query: SavedQuery }) {
  const q = props.query
  const versions = useQuery('queries/versions', { queryId: q.id }, [q.id])
  const releases = useQuery('releases/list', { datasetId: q.datasetId }, [q.datasetId, q.id])
  const rows = useMemo(() => (versions.data && releases.data ? queryVersionRows(versions.data, releases.data) : null), [versions.data, releases.data])
  return (
    <section className="stack-tight" aria-labelledby={`versions-${q.id}`} data-testid="query-versions">
      <h3 id={`versions-${q.id}`}>Versions of “{q.name}”</h3>
      <ErrorText error={versions.error ?? releases.error} />
      {rows === null && (versions.loading || releases.loading) && <Loading what="the versions" />}
      {rows && (
        <table className="compact">
          <caption className="sr-only">Each version of the question and the releases that ran it</caption>
          <thead>
            <tr>
              <th scope="col">Version</th>
              <th scope="col">Saved</th>
              <th scope="col">Change</th>
              <th scope="col">Releases that ran it</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.id} data-testid={`query-version-${r.version}`}>
                <td>
                  {r.version}
                  {r.id === q.id ? ' (this one)' : ''}
                </td>
                <td>{formatDate(r.createdAt)}</td>
                <td>{r.changed === '' ? 'first saved' : r.changed}</td>
                <td>
                  {r.releases.length === 0
                    ? 'none'
                    : r.releases.map((x, i) => (
                        <span key={x.releaseId}>
                          {i > 0 ? ', ' : ''}
                          <a href={href('releases', String(x.releaseId))} title={`${formatDate(x.createdAt)} · ${x.statusText}`}>
                            #{x.releaseId}
                          </a>
                        </span>
                      ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  )
}
