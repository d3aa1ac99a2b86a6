import { useMemo, useState } from 'react'
import type { ChartData, ChartOptions } from 'chart.js'
import type { ReleaseAnswer, ThresholdDecision } from '../../../../src-main/contract'
import { ChartView, type ChartKind } from '../../components/Chart'
import { formatCount, formatThreshold } from '../../format'
import { decisionChartShape, shownKey } from './decisionChart'
import { flagMeaning, flaggedWords } from './verdictDefinition'
import { shownKeyPart } from '../../../../src-main/contract/shown-values'
import { ScrollRegion } from '../../components/ScrollRegion'

export const FLAGGED = '#b42318'
export const CLEAR = '#9fb0c8'
/** Table rows drawn at a time (a release may ask about very many predicates). */
const TABLE_PAGE = 500

const show = (v: string | number | null) => (v === null ? 'empty' : String(shownKeyPart(v)))

type ThresholdReleaseAnswer = Extract<ReleaseAnswer, { kind: 'threshold' }>

/**
 * A threshold release: how many predicates were flagged, each predicate's released decision against its (public)
 * threshold as a chart, and the table of every predicate. No count and no noisy value exists in the answer to show.
 */
export function ThresholdAnswer(props: { answer: ThresholdReleaseAnswer }) {
  const a = props.answer
  const flagged = a.flagged.length
  // Reference thresholds are computed from this dataset's own counts: their values are data and are not released.
  const withheld = a.decisions?.some((d) => d.threshold === null) ?? false
  return (
    <div className="stack-tight" data-testid="threshold-answer">
      <p className="answer-line" data-testid="flagged-summary">
        <strong>
          {formatCount(flagged)} of {formatCount(a.predicates)}
        </strong>{' '}
        {a.groupBy.join(' × ')} groups flagged.{' '}
        <span className="hint" data-testid="flag-meaning">
          {flagMeaning(a.tolerance)}
        </span>
      </p>
      {a.thresholdText && (
        <p className="hint" data-testid="threshold-source">
          Thresholds: {a.thresholdText}
          {withheld ? ' (computed from this dataset, so their values are not released)' : ' (query parameters, public)'}. Compared with:{' '}
          {a.countText ?? 'the count'}. Only the decisions are released, never a count.
        </p>
      )}
      {a.decisions ? (
        <>
          {withheld ? (
            <p className="hint" data-testid="threshold-withheld">
              No chart against the thresholds: they come from this dataset&apos;s own counts in the reference period, so only the decisions are shown.
            </p>
          ) : (
            <DecisionChart decisions={a.decisions} groupBy={a.groupBy} countText={a.countText} tolerance={a.tolerance} />
          )}
          {a.groupBy.length > 1 && flagged > 0 && <FlaggedPerFirstColumn answer={a} />}
          <DecisionsTable decisions={a.decisions} groupBy={a.groupBy} tolerance={a.tolerance} />
        </>
      ) : (
        <>
          <p className="hint">This release was answered before thresholds were kept with the decisions: only the flagged groups are listed.</p>
          <FlaggedTable answer={a} />
        </>
      )}
    </div>
  )
}

function DecisionChart(props: { decisions: ThresholdDecision[]; groupBy: string[]; countText?: string; tolerance?: number }) {
  const shape = useMemo(() => decisionChartShape(props.decisions), [props.decisions])
  const strip = shape.mode === 'strip'
  const data = useMemo(
    () =>
      ({
        labels: shape.bars.map((b) => b.short),
        datasets: [
          {
            label: flaggedWords(props.tolerance),
            data: shape.bars.map((b) => (b.flagged ? b.threshold : null)),
            backgroundColor: FLAGGED,
            grouped: false,
            minBarLength: 2,
            ...(strip ? { barPercentage: 1, categoryPercentage: 1 } : {})
          },
          {
            label: 'not flagged',
            data: shape.bars.map((b) => (b.flagged ? null : b.threshold)),
            backgroundColor: CLEAR,
            grouped: false,
            minBarLength: 2,
            ...(strip ? { barPercentage: 1, categoryPercentage: 1 } : {})
          }
        ]
      }) as ChartData<ChartKind>,
    [shape, strip, props.tolerance]
  )
  const bars = shape.bars
  const options: ChartOptions<ChartKind> = {
    plugins: {
      legend: { position: 'bottom' },
      tooltip: {
        callbacks: {
          title: (items) => (items[0] ? (bars[items[0].dataIndex]?.label ?? '') : ''),
          label: (item) => {
            const b = bars[item.dataIndex]
            return b ? `threshold ${formatThreshold(b.threshold)} · ${b.flagged ? 'flagged' : 'not flagged'}` : ''
          }
        }
      }
    },
    scales: {
      x: strip
        ? {
            ticks: { display: false },
            grid: { display: false },
            title: { display: true, text: `${formatCount(shape.total)} predicates, sorted by threshold` }
          }
        : {
            ticks: { autoSkip: false, maxRotation: 60, minRotation: 0, font: { size: 11 } },
            title: { display: true, text: props.groupBy.join(' / ') }
          },
      y: { beginAtZero: true, grace: '5%', title: { display: true, text: 'threshold' } }
    }
  }
  const flaggedCount = props.decisions.filter((d) => d.flagged).length
  return (
    <figure className="chart-figure" data-testid="threshold-chart" data-mode={shape.mode} data-bars={shape.bars.length}>
      <figcaption>
        <strong>Decisions against the thresholds</strong>{' '}
        <span className="hint">
          — {strip ? 'one thin bar per predicate at its threshold, sorted by threshold' : 'one bar per predicate at its threshold'} (
          {props.countText ?? 'count'}), red when flagged
        </span>
      </figcaption>
      <ChartView
        type="bar"
        data={data}
        options={options}
        label={`${flaggedCount} of ${props.decisions.length} predicates flagged; bar height is each predicate's threshold`}
        height={strip ? 220 : 280}
      />
      {shape.bars.length < shape.total && (
        <p className="hint" data-testid="threshold-chart-note">
          The chart draws {formatCount(shape.bars.length)} of the {formatCount(shape.total)} predicates, evenly spaced in threshold order; the table
          below lists every one.
        </p>
      )}
    </figure>
  )
}

function FlaggedPerFirstColumn(props: { answer: ThresholdReleaseAnswer }) {
  const a = props.answer
  const byFirst = useMemo(() => {
    const m = new Map<string, { flagged: number; asked: number }>()
    for (const d of a.decisions ?? []) {
      const k = show(shownKey(d)[0])
      const e = m.get(k) ?? { flagged: 0, asked: 0 }
      e.asked++
      if (d.flagged) e.flagged++
      m.set(k, e)
    }
    return [...m.entries()]
  }, [a.decisions])
  if (byFirst.length < 2 || byFirst.length > 60) return null
  const data = {
    labels: byFirst.map(([k]) => k),
    datasets: [
      { label: 'flagged', data: byFirst.map(([, e]) => e.flagged), backgroundColor: FLAGGED },
      { label: 'not flagged', data: byFirst.map(([, e]) => e.asked - e.flagged), backgroundColor: CLEAR }
    ]
  } as ChartData<ChartKind>
  const options: ChartOptions<ChartKind> = {
    plugins: { legend: { position: 'bottom' } },
    scales: { x: { stacked: true }, y: { stacked: true, beginAtZero: true, ticks: { precision: 0 }, title: { display: true, text: 'predicates' } } }
  }
  return (
    <figure className="chart-figure narrow-chart">
      <figcaption>Decisions per {a.groupBy[0]}</figcaption>
      <ChartView type="bar" data={data} options={options} label={`Flagged and not flagged predicates per ${a.groupBy[0]}`} height={180} />
    </figure>
  )
}

function DecisionsTable(props: { decisions: ThresholdDecision[]; groupBy: string[]; tolerance?: number }) {
  const [onlyFlagged, setOnlyFlagged] = useState(false)
  const [limit, setLimit] = useState(TABLE_PAGE)
  const rows = useMemo(() => (onlyFlagged ? props.decisions.filter((d) => d.flagged) : props.decisions), [props.decisions, onlyFlagged])
  const shown = rows.slice(0, limit)
  return (
    <div className="stack-tight">
      <div className="button-row">
        <label className="check">
          <input type="checkbox" checked={onlyFlagged} onChange={(e) => setOnlyFlagged(e.target.checked)} data-testid="decisions-only-flagged" />
          Only the flagged groups
        </label>
        <span className="hint">
          {formatCount(rows.length)} {onlyFlagged ? 'flagged' : 'predicates'}
        </span>
      </div>
      {rows.length === 0 ? (
        <p className="empty-state">No group was flagged.</p>
      ) : (
        <ScrollRegion label="Decisions by predicate" short>
          <table className="compact" data-testid="decisions-table">
            <caption className="sr-only">Every predicate asked, its threshold and the released decision</caption>
            <thead>
              <tr>
                {props.groupBy.map((g) => (
                  <th key={g} scope="col">
                    {g}
                  </th>
                ))}
                <th scope="col" className="num">
                  Threshold
                </th>
                <th scope="col">Released decision</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((d, i) => (
                <tr key={i} data-flagged={d.flagged}>
                  {shownKey(d).map((v, j) => (
                    <td key={j}>{show(v)}</td>
                  ))}
                  <td className="num">{d.threshold === null ? 'not released' : formatThreshold(d.threshold)}</td>
                  <td>
                    <span className={`decision ${d.flagged ? 'flagged' : 'clear'}`}>{d.flagged ? flaggedWords(props.tolerance) : 'not flagged'}</span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      )}
      {rows.length > shown.length && (
        <div className="button-row">
          <span className="hint">
            Showing {formatCount(shown.length)} of {formatCount(rows.length)}.
          </span>
          <button type="button" className="secondary small" onClick={() => setLimit((n) => n + TABLE_PAGE)}>
            Show {formatCount(Math.min(TABLE_PAGE, rows.length - shown.length))} more
          </button>
        </div>
      )}
    </div>
  )
}

/** Releases answered before the decisions were kept: the flagged groups only. */
function FlaggedTable(props: { answer: ThresholdReleaseAnswer }) {
  const a = props.answer
  if (a.flagged.length === 0) return <p className="empty-state">No group was flagged.</p>
  return (
    <ScrollRegion label="Flagged predicates" short>
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
                <span className="decision flagged">{flaggedWords(undefined)}</span>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  )
}
