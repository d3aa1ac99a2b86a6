import { useMemo } from 'react'
import type { ChartData, ChartOptions } from 'chart.js'
import type { ReleaseAnswer, ReleaseRecord } from '../../../../src-main/contract'
import { ReleaseBadge } from '../../components/Badges'
import { ChartView, type ChartKind } from '../../components/Chart'
import { formatCount, formatDate, formatExact } from '../../format'
import { href } from '../../sections'

const FLAGGED = '#b42318'
const CLEAR = '#9fb0c8'

const show = (v: string | number | null) => (v === null ? 'empty' : String(v))

/** One released answer: decisions only (never counts, noisy values or ex-post costs), its guarantee, its charge. */
export function ReleaseResult(props: { release: ReleaseRecord }) {
  const r = props.release
  return (
    <section className="panel release-band" aria-labelledby={`release-${r.releaseId}-title`} data-testid="release-result">
      <div className="panel-head">
        <h2 id={`release-${r.releaseId}-title`}>
          Release {r.releaseId}: {r.queryName}
        </h2>
        <ReleaseBadge />
      </div>
      <p>
        On <strong>{r.datasetName}</strong> with {r.mechanism} · charged <strong>ε {formatExact(r.epsilonExact)}</strong> under {r.notion} ·{' '}
        <a href={href('ledger', r.ledgerSeq)} data-testid="release-ledger-link">
          ledger entry {r.ledgerSeq}
        </a>{' '}
        · {formatDate(r.createdAt)}
      </p>
      <p className="guarantee">{r.guarantee}</p>
      {r.status !== 'answered' && (
        <p className="error" role="alert">
          {r.statusText}
        </p>
      )}
      {r.answer?.kind === 'threshold' && <ThresholdAnswer answer={r.answer} />}
      {r.answer?.kind === 'anomaly-identification' && <AiqAnswer answer={r.answer} />}
      {r.answer?.kind === 'anomaly-search' && <SearchAnswer answer={r.answer} />}
    </section>
  )
}

function ThresholdAnswer(props: { answer: Extract<ReleaseAnswer, { kind: 'threshold' }> }) {
  const a = props.answer
  const flagged = a.flagged.length
  const byFirst = useMemo(() => {
    const m = new Map<string, number>()
    for (const f of a.flagged) m.set(show(f[0]), (m.get(show(f[0])) ?? 0) + 1)
    return [...m.entries()]
  }, [a.flagged])
  const overall = useMemo(
    () =>
      ({
        labels: ['decisions'],
        datasets: [
          { label: 'over threshold (flagged)', data: [flagged], backgroundColor: FLAGGED },
          { label: 'not flagged', data: [a.predicates - flagged], backgroundColor: CLEAR }
        ]
      }) as ChartData<ChartKind>,
    [flagged, a.predicates]
  )
  const overallOptions: ChartOptions<ChartKind> = {
    indexAxis: 'y',
    plugins: { legend: { position: 'bottom' } },
    scales: { x: { stacked: true, beginAtZero: true, max: a.predicates, title: { display: true, text: 'predicates' } }, y: { stacked: true, display: false } }
  }
  const grouped = useMemo(
    () =>
      ({
        labels: byFirst.map(([k]) => k),
        datasets: [{ label: `flagged predicates per ${a.groupBy[0]}`, data: byFirst.map(([, n]) => n), backgroundColor: FLAGGED }]
      }) as ChartData<ChartKind>,
    [byFirst, a.groupBy]
  )
  const groupedOptions: ChartOptions<ChartKind> = {
    plugins: { legend: { display: false } },
    scales: { y: { beginAtZero: true, ticks: { precision: 0 }, title: { display: true, text: 'flagged' } } }
  }
  return (
    <div className="stack-tight" data-testid="threshold-answer">
      <p className="answer-line" data-testid="flagged-summary">
        <strong>
          {formatCount(flagged)} of {formatCount(a.predicates)}
        </strong>{' '}
        {a.groupBy.join(' × ')} groups flagged as over their threshold.
      </p>
      <div className="two-col">
        <figure className="chart-figure">
          <figcaption>Decisions against the thresholds</figcaption>
          <ChartView type="bar" data={overall} options={overallOptions} label={`${flagged} of ${a.predicates} predicates flagged`} height={120} />
        </figure>
        {a.groupBy.length > 1 && byFirst.length > 0 && (
          <figure className="chart-figure">
            <figcaption>Flagged groups per {a.groupBy[0]}</figcaption>
            <ChartView type="bar" data={grouped} options={groupedOptions} label={`Flagged groups per ${a.groupBy[0]}`} height={160} />
          </figure>
        )}
      </div>
      {flagged === 0 ? (
        <p className="empty-state">No group was flagged.</p>
      ) : (
        <div className="table-scroll short">
          <table className="compact" data-testid="flagged-table">
            <caption className="sr-only">Flagged predicates</caption>
            <thead>
              <tr>
                {a.groupBy.map((g) => (
                  <th key={g} scope="col">
                    {g}
                  </th>
                ))}
                <th scope="col">Decision</th>
              </tr>
            </thead>
            <tbody>
              {a.flagged.map((f, i) => (
                <tr key={i}>
                  {f.map((v, j) => (
                    <td key={j}>{show(v)}</td>
                  ))}
                  <td>
                    <span className="decision flagged">over threshold</span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  )
}

function AiqAnswer(props: { answer: Extract<ReleaseAnswer, { kind: 'anomaly-identification' }> }) {
  const a = props.answer
  const anomalies = a.records.filter((r) => r.anomaly).length
  const data = useMemo(
    () =>
      ({
        labels: a.records.map((r) => r.record.join(', ')),
        datasets: [
          {
            label: 'released answer (1 = anomaly)',
            data: a.records.map((r) => (r.anomaly ? 1 : 0)),
            backgroundColor: a.records.map((r) => (r.anomaly ? FLAGGED : CLEAR))
          }
        ]
      }) as ChartData<ChartKind>,
    [a.records]
  )
  const options: ChartOptions<ChartKind> = {
    plugins: { legend: { display: false } },
    scales: { y: { min: 0, max: 1, ticks: { stepSize: 1, callback: (v) => (v === 1 ? 'anomaly' : v === 0 ? 'normal' : '') } } }
  }
  return (
    <div className="stack-tight" data-testid="aiq-answer">
      <p className="answer-line">
        <strong>
          {anomalies} of {a.records.length}
        </strong>{' '}
        records asked about are answered “anomaly”.
      </p>
      {a.records.length <= 60 && <ChartView type="bar" data={data} options={options} label="Released answer per record" height={160} />}
      <div className="table-scroll short">
        <table className="compact">
          <thead>
            <tr>
              {a.columns.map((c) => (
                <th key={c} scope="col">
                  {c}
                </th>
              ))}
              <th scope="col">Released answer</th>
            </tr>
          </thead>
          <tbody>
            {a.records.map((r, i) => (
              <tr key={i}>
                {r.record.map((v, j) => (
                  <td key={j}>{String(v)}</td>
                ))}
                <td>
                  <span className={`decision ${r.anomaly ? 'flagged' : 'clear'}`}>{r.anomaly ? 'anomaly' : 'normal'}</span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  )
}

function SearchAnswer(props: { answer: Extract<ReleaseAnswer, { kind: 'anomaly-search' }> }) {
  const a = props.answer
  return (
    <div className="stack-tight" data-testid="search-answer">
      <p className="answer-line">
        The <strong>{a.top.length}</strong> {a.idColumn ? `${a.idColumn} values` : 'rows'} most likely to be the anomaly, most likely first:
      </p>
      <ol className="top-list">
        {a.top.map((t, i) => (
          <li key={i}>
            <strong>{a.idColumn ? String(t) : `row ${String(t)}`}</strong>
          </li>
        ))}
      </ol>
      <p className="hint notice" data-testid="posterior-unavailable">
        The posterior chart is not available yet: the service releases the ranking but not the posterior probabilities.
      </p>
    </div>
  )
}
