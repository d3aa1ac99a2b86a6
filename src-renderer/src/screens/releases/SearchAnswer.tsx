import { useMemo } from 'react'
import type { ChartData, ChartOptions } from 'chart.js'
import type { ReleaseAnswer } from '../../../../src-main/contract'
import { ChartView, type ChartKind } from '../../components/Chart'
import { formatProbability } from '../../format'
import { shownKeyPart } from '../../../../src-main/contract/shown-values'

const TOP = '#0f6e6e'
const REST = '#7fb7b2'

type SearchReleaseAnswer = Extract<ReleaseAnswer, { kind: 'anomaly-search' }>

/**
 * An anomaly search release: its verdict, then the top-S, most likely first, with their posterior probabilities
 * (released snapped to 0.01) as a chart and a table. An inconclusive search shows no id as a finding. The questions asked
 * and why the search stopped are sealed for the privacy officer.
 */
export function SearchAnswer(props: { answer: SearchReleaseAnswer }) {
  const a = props.answer
  const name = (t: string | number) => (a.idColumn ? String(shownKeyPart(t)) : `row ${String(t)}`)
  const posterior = a.posterior && a.posterior.length === a.top.length ? a.posterior : null
  const grid = a.posteriorGrid ?? 0.01
  if (a.conclusive === false && posterior) return <InconclusiveAnswer answer={a} posterior={posterior} grid={grid} name={name} />
  return (
    <div className="stack-tight" data-testid="search-answer" data-conclusive={a.conclusive === undefined ? 'unknown' : String(a.conclusive)}>
      {a.verdict && (
        <p className="answer-line" data-testid="search-verdict">
          <strong>{a.verdict}</strong>
        </p>
      )}
      <p className="answer-line">
        The <strong>{a.top.length}</strong> {a.idColumn ? `${a.idColumn} values` : 'rows'} most likely to be the anomaly, most likely first
        {posterior ? ', with the probability the search gives each:' : ':'}
      </p>
      {posterior ? (
        <div className="two-col">
          <PosteriorChart labels={a.top.map(name)} posterior={posterior} grid={grid} />
          <div className="stack-tight">
            <table className="compact" data-testid="posterior-table">
              <caption className="sr-only">Top candidates and their posterior probabilities</caption>
              <thead>
                <tr>
                  <th scope="col" className="num">
                    Rank
                  </th>
                  <th scope="col">{a.idColumn ?? 'Row'}</th>
                  <th scope="col" className="num">
                    Posterior
                  </th>
                </tr>
              </thead>
              <tbody>
                {a.top.map((t, i) => (
                  <tr key={i}>
                    <td className="num">{i + 1}</td>
                    <td>
                      <strong>{name(t)}</strong>
                    </td>
                    <td className="num">{formatProbability(posterior[i])}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            {posterior.every((p) => p === 0) && (
              <p className="notice warn" data-testid="posterior-flat">
                Every shown probability rounds to 0.00: the search did not single anyone out. A larger budget or a larger ε per question asks more, or
                sharper, questions.
              </p>
            )}
            <p className="hint" data-testid="posterior-note">
              Together the top {a.top.length} hold{' '}
              {formatProbability(
                Math.min(
                  1,
                  posterior.reduce((x, y) => x + y, 0)
                )
              )}{' '}
              of the probability. Probabilities are rounded to {grid}; how many questions were asked and why the search stopped stay sealed (officer
              view).
            </p>
          </div>
        </div>
      ) : (
        <>
          <ol className="top-list">
            {a.top.map((t, i) => (
              <li key={i}>
                <strong>{name(t)}</strong>
              </li>
            ))}
          </ol>
          <p className="hint notice" data-testid="posterior-unavailable">
            This release was answered before posterior probabilities were released: only the ranking is shown.
          </p>
        </>
      )}
    </div>
  )
}

/**
 * A search that ended undecided: the verdict says so, the posterior is a chart by rank, and no id is shown as a finding
 * (the candidates are behind a disclosure that says they are not one).
 */
function InconclusiveAnswer(props: { answer: SearchReleaseAnswer; posterior: number[]; grid: number; name: (t: string | number) => string }) {
  const a = props.answer
  const ranks = props.posterior.map((_, i) => rankLabel(i + 1))
  return (
    <div className="stack-tight" data-testid="search-answer" data-conclusive="false">
      <p className="notice warn" role="status" data-testid="search-verdict">
        <strong>{a.verdict ?? 'Inconclusive.'}</strong> The search used its budget before its stopping rule was met: nobody is identified.
      </p>
      <PosteriorChart labels={ranks} posterior={props.posterior} grid={props.grid} />
      <p className="hint">
        Bars are ranks, not people: the {a.top.length} most likely carry{' '}
        {formatProbability(
          Math.min(
            1,
            props.posterior.reduce((x, y) => x + y, 0)
          )
        )}{' '}
        of the probability together (rounded to {props.grid}). A larger budget asks more questions.
      </p>
      <details data-testid="search-candidates">
        <summary>Show the candidates anyway (not a finding)</summary>
        <p className="hint">
          These {a.idColumn ? `${a.idColumn} values` : 'rows'} are where the search stood when it stopped; the posterior says it could not tell them
          from the rest.
        </p>
        <ol className="top-list">
          {a.top.map((t, i) => (
            <li key={i}>
              {props.name(t)} — {formatProbability(props.posterior[i])}
            </li>
          ))}
        </ol>
      </details>
    </div>
  )
}

function rankLabel(n: number): string {
  const suffix = n % 100 >= 11 && n % 100 <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th')
  return `${n}${suffix} most likely`
}

/** Short axis labels: a time on a whole minute ("2014-11-02 01:00:00", or an older answer's ISO form) reads "2014-11-02 01:00" (the table keeps the full name). */
function axisLabel(l: string): string {
  return l.replace(/^(\d{4}-\d\d-\d\d)[T ](\d\d:\d\d)(:00)?(\.000)?Z?$/, '$1 $2')
}

function PosteriorChart(props: { labels: string[]; posterior: number[]; grid: number }) {
  const data = useMemo(
    () =>
      ({
        labels: props.labels.map(axisLabel),
        datasets: [
          {
            label: 'posterior probability',
            data: props.posterior,
            backgroundColor: props.posterior.map((_, i) => (i === 0 ? TOP : REST)),
            minBarLength: 2
          }
        ]
      }) as ChartData<ChartKind>,
    [props.labels, props.posterior]
  )
  const options: ChartOptions<ChartKind> = {
    plugins: {
      legend: { display: false },
      tooltip: { callbacks: { label: (item) => `posterior ${formatProbability(Number(item.raw))}` } }
    },
    scales: {
      y: { min: 0, max: 1, ticks: { stepSize: 0.2 }, title: { display: true, text: 'posterior probability' } },
      x: { ticks: { autoSkip: false, maxRotation: 45 } }
    }
  }
  return (
    <figure className="chart-figure" data-testid="posterior-chart">
      <figcaption>
        <strong>Posterior of the top {props.labels.length}</strong>
      </figcaption>
      <ChartView
        type="bar"
        data={data}
        options={options}
        label={`Posterior probability of each of the top ${props.labels.length}: ${props.labels.map((l, i) => `${l} ${formatProbability(props.posterior[i])}`).join(', ')}`}
        height={220}
      />
    </figure>
  )
}
