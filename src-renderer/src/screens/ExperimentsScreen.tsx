import { useQuery } from '../api/hooks'
import { ErrorText } from '../components/Fields'
import { Loading } from '../components/Loading'
import { formatCount, formatDate } from '../format'
import { href } from '../sections'
import { ExperimentView } from './experiments/ExperimentView'
import { SpecBuilder } from './experiments/SpecBuilder'
import type { ScreenProps } from '.'

export function ExperimentsScreen(props: ScreenProps) {
  const list = useQuery('experiments/list', {})
  const experiments = list.data?.experiments ?? []
  const selected = props.param
  return (
    <div className="stack" data-testid="screen-experiments">
      {selected ? (
        <>
          <p>
            <a href={href('experiments')}>← All experiments and new experiment</a>
          </p>
          <ExperimentView
            key={selected}
            experimentId={selected}
            onChanged={list.reload}
            onDeleted={() => {
              list.reload()
              window.location.hash = href('experiments')
            }}
          />
        </>
      ) : (
        <>
          <SpecBuilder onStarted={(id) => (window.location.hash = href('experiments', id))} />
          <section className="panel" aria-labelledby="exp-list-title" data-testid="experiment-list">
            <h2 id="exp-list-title">Experiments in this workspace</h2>
            <ErrorText error={list.error} />
            {list.data === null && list.loading && <Loading what="the experiments" />}
            {list.data && experiments.length === 0 && (
              <p className="empty-state">No experiments yet. Pick a paper figure above, shrink the trials if you are in a hurry, and start it.</p>
            )}
            {experiments.length > 0 && (
              <table>
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Engine</th>
                    <th scope="col">Status</th>
                    <th scope="col" className="num">
                      Cells
                    </th>
                    <th scope="col">Updated</th>
                  </tr>
                </thead>
                <tbody>
                  {experiments.map((e) => (
                    <tr key={e.id}>
                      <td>
                        <a href={href('experiments', e.id)}>{e.name}</a> <span className="badge simulation">Simulation</span>
                      </td>
                      <td>{e.engine}</td>
                      <td>{e.status}</td>
                      <td className="num">
                        {formatCount(e.cellsDone)} / {formatCount(e.cellsTotal)}
                      </td>
                      <td>{formatDate(e.updatedAt)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
        </>
      )}
    </div>
  )
}
