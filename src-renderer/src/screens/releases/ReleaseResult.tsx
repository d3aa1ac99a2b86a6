import { type ReactElement, useMemo } from 'react'
import { notionName } from '../ledger/notions'
import type { ChartData, ChartOptions } from 'chart.js'
import type { ReleaseAnswer, ReleaseKind, ReleaseRecord } from '../../../../src-main/contract'
import { ReleaseBadge } from '../../components/Badges'
import { ChartView, type ChartKind } from '../../components/Chart'
import { useReveal } from '../../components/reveal'
import { formatDate, formatExact, mechanismName } from '../../format'
import { href } from '../../sections'
import { SearchAnswer } from './SearchAnswer'
import { CLEAR, FLAGGED, ThresholdAnswer } from './ThresholdAnswer'
import { ScrollRegion } from '../../components/ScrollRegion'

/** One released answer: decisions only (never counts, noisy values or ex-post costs), its guarantee, its charge. */
export function ReleaseResult(props: { release: ReleaseRecord }) {
  const r = props.release
  const reveal = useReveal<HTMLElement>(r.releaseId)
  return (
    <section ref={reveal} className="panel release-band" aria-labelledby={`release-${r.releaseId}-title`} data-testid="release-result">
      <div className="panel-head">
        <h2 id={`release-${r.releaseId}-title`}>
          Release {r.releaseId}: {r.queryName}
        </h2>
        <ReleaseBadge />
      </div>
      <p>
        On <strong>{r.datasetName}</strong> with {mechanismName(r.mechanism)} · charged <strong>ε {formatExact(r.epsilonExact)}</strong> under{' '}
        {notionName(r.notion)} ·{' '}
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
      {r.answer && <AnswerView answer={r.answer} />}
    </section>
  )
}

type AnswerOf<K extends ReleaseKind> = Extract<ReleaseAnswer, { kind: K }>

/** The view of each kind's answer: a kind without one is a type error here. */
const ANSWER_VIEWS: { [K in ReleaseKind]: (props: { answer: AnswerOf<K> }) => ReactElement } = {
  threshold: ThresholdAnswer,
  'anomaly-identification': AiqAnswer,
  'anomaly-search': SearchAnswer,
  'alarm-period': AlarmPeriodAnswer
}

/** An alarm's release: a period's threshold answer, or a when-fires instance's charge (its fires are in the alarm's history). */
function AlarmPeriodAnswer(props: { answer: AnswerOf<'alarm-period'> }) {
  const a = props.answer
  if (a.threshold)
    return (
      <div className="stack-tight" data-testid="alarm-period-answer">
        <p className="answer-line">
          Alarm {a.alarmId}, period {a.from ? formatDate(a.from) : '?'} to {a.to ? formatDate(a.to) : '?'}
        </p>
        <ThresholdAnswer answer={a.threshold} />
      </div>
    )
  return (
    <p className="answer-line" data-testid="alarm-period-answer">
      Alarm {a.alarmId}: when-fires instance {a.instance ?? '?'}; its fires are in the alarm's history.
    </p>
  )
}

function AnswerView<K extends ReleaseKind>(props: { answer: AnswerOf<K> }) {
  const View = ANSWER_VIEWS[props.answer.kind] as ((props: { answer: AnswerOf<K> }) => ReactElement) | undefined
  // An answer of a kind this version does not know (recorded by a newer one) says so rather than showing nothing.
  if (View === undefined) return <p className="muted">This answer's kind ({String(props.answer.kind)}) is not shown by this version of the app.</p>
  return <View answer={props.answer} />
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
      <ScrollRegion label="Released answer per record" short>
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
      </ScrollRegion>
    </div>
  )
}
