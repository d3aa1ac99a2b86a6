import { useMemo, useState } from 'react'
import type { ChartData, ChartOptions } from 'chart.js'
import type { DatasetLedger, PrivacyNotion } from '../../../../src-main/contract'
import { ChartView, type ChartKind } from '../../components/Chart'
import { SelectField } from '../../components/Fields'
import { formatExact } from '../../format'
import { notionName } from './notions'
import { budgetLineDataset, CELL_LEGEND_LABELS } from './budgetLineDefinition'
import { tickLabelLines } from './tickLabelDefinition'

const SPENT = '#0f6e6e'
const BUDGET = '#b42318'

/**
 * The headline: what one normal person (or row) has lost at most, summed over notions, against the one budget per unit.
 * The notions beneath it are its breakdown.
 */
export function PerUnitHeadline(props: { ledger: DatasetLedger }) {
  const d = props.ledger
  const unit = d.unitKind === 'person' ? 'person' : 'row'
  const over = d.budgetPerUnitSource !== 'none' && d.spentPerUnit > d.budgetPerUnit
  const share = d.budgetPerUnit > 0 ? Math.min(1, d.spentPerUnit / d.budgetPerUnit) : d.spentPerUnit > 0 ? 1 : 0
  return (
    <div className="notice" data-testid="ledger-per-unit">
      <p>
        <strong className={over ? 'over-budget' : undefined} data-over-budget={over ? 'true' : undefined}>
          {d.allotment === true && d.budgetPerUnitSource !== 'none' ? (
            <>
              Your allotment: ε {formatExact(d.budgetPerUnitExact)}
              {d.remainingPerUnitExact !== null && <>, ε {formatExact(d.remainingPerUnitExact, 'down')} left</>} · you have spent ε{' '}
              {formatExact(d.spentPerUnitExact)} per {unit}
            </>
          ) : (
            <>
              Spent per {unit}: ε {formatExact(d.spentPerUnitExact)}
            </>
          )}
          {d.allotment === true && d.budgetPerUnitSource !== 'none' ? (
            over && <> · over your allotment: no further releases</>
          ) : d.budgetPerUnitSource === 'none' ? (
            <>
              {' '}
              · <span className="error">no budget (releases denied)</span>
            </>
          ) : (
            <>
              {' '}
              of ε {formatExact(d.budgetPerUnitExact)}
              {d.remainingPerUnitExact !== null && <>, ε {formatExact(d.remainingPerUnitExact, 'down')} left</>}
              {over && <> · over budget: no further releases</>}
            </>
          )}
        </strong>
      </p>
      {d.budgetPerUnitSource !== 'none' && (
        <progress max={1} value={share} aria-label={`Share of the budget per ${unit} spent`} data-testid="ledger-per-unit-bar" />
      )}
      <p className="hint">
        What one normal {unit} has lost at most: the sum over the notions below (every notion protects a normal {unit}, so their ε add up).
        {d.budgetPerUnitSource === 'notion-budgets' &&
          ' No budget per ' + unit + ' is set: the sum of the notions’ own budgets holds it, and only those notions may spend.'}
        {d.unitKind === 'person' &&
          ' A person’s rows may lie in many cells: cells are accounted in parallel only over columns with one value per person.'}
      </p>
      {d.rowLevelEntries > 0 && (
        <p className="hint" data-testid="ledger-row-level-note">
          {d.rowLevelEntries} {d.rowLevelEntries === 1 ? 'entry was' : 'entries were'} written before privacy units existed: row-level accounting
          (before person-level units).
        </p>
      )}
    </div>
  )
}

/** Spend per notion (bars, the breakdown of the spend per unit) against each notion's own budget, and spend per partition cell. */
export function SpendCharts(props: { ledger: DatasetLedger; notionsNote: string }) {
  const accounts = props.ledger.accounts
  const firstUsed = (accounts.find((a) => a.spent > 0) ?? accounts.find((a) => a.budget !== null) ?? accounts[0])?.notion
  const [notionChoice, setNotion] = useState<PrivacyNotion | ''>('')
  const notion = (notionChoice || firstUsed) as PrivacyNotion
  const account = accounts.find((a) => a.notion === notion)

  const notionData = useMemo(
    () =>
      ({
        labels: accounts.map((a) => notionName(a.notion)),
        datasets: [
          { label: 'spent ε', data: accounts.map((a) => a.spent), backgroundColor: SPENT },
          {
            label: 'own budget ε (extra cap)',
            data: accounts.map((a) => a.budget ?? 0),
            backgroundColor: '#f3c7c3',
            borderColor: BUDGET,
            borderWidth: 1
          }
        ]
      }) as ChartData<ChartKind>,
    [accounts]
  )
  const cells = useMemo(() => account?.cells ?? [], [account])
  // A cell's line: the notion's own budget if set, else the budget per unit.
  const limit = account?.budget ?? (props.ledger.budgetPerUnitSource === 'none' ? null : props.ledger.budgetPerUnit)
  // Many cells with few distinct spends (30 identical bars): a histogram of cells by spend says the same at a glance.
  const distinct = [...new Set(cells.map((c) => c.totalExact))]
  const histogram = cells.length > 12 && distinct.length <= Math.max(3, cells.length / 4)
  const histData = useMemo(() => {
    const bins = [...new Set(cells.map((c) => c.totalExact))].sort((a, b) => Number(a) - Number(b))
    return {
      labels: bins.map((b) => `ε ${formatExact(b)}`),
      datasets: [
        { label: 'cells spending this much (count)', data: bins.map((b) => cells.filter((c) => c.totalExact === b).length), backgroundColor: SPENT }
      ]
    } as ChartData<ChartKind>
  }, [cells])
  const cellData = useMemo(
    () =>
      ({
        labels: cells.map((c) => (c.key === '{}' ? 'whole dataset' : c.label)),
        datasets: [
          { type: 'bar', label: 'spent by a record of this cell (ε)', data: cells.map((c) => c.total), backgroundColor: SPENT, pointStyle: 'rect' },
          ...(limit != null ? [budgetLineDataset(cells.length, limit, BUDGET)] : [])
        ]
      }) as ChartData<ChartKind>,
    [cells, limit]
  )
  const barOptions: ChartOptions<ChartKind> = {
    plugins: { legend: { position: 'bottom' } },
    scales: { y: { beginAtZero: true, title: { display: true, text: 'ε' } } }
  }
  // Cell labels as short lines under their bars (never rotated over each other); the tooltip shows a label whole.
  const cellOptions: ChartOptions<ChartKind> = {
    indexAxis: 'x',
    plugins: { legend: { position: 'bottom', labels: CELL_LEGEND_LABELS } },
    scales: {
      y: { beginAtZero: true, title: { display: true, text: 'ε' } },
      x: {
        ticks: {
          autoSkip: true,
          maxRotation: 0,
          callback(value) {
            return tickLabelLines(this.getLabelForValue(Number(value)))
          }
        }
      }
    }
  }
  return (
    <div className="two-col">
      <figure className="chart-figure" data-testid="chart-notions">
        <figcaption>
          <strong>Breakdown by privacy notion</strong> <span className="hint">— {props.notionsNote}</span>
        </figcaption>
        <ChartView type="bar" data={notionData} options={barOptions} label="Spent and budget epsilon per privacy notion" height={240} />
        <ul className="notion-list">
          {accounts.map((a) => (
            <li key={a.notion}>
              <strong>{notionName(a.notion)}</strong>: ε {formatExact(a.spentExact)} spent
              {a.budgetExact !== null && <> (own budget {formatExact(a.budgetExact)})</>}
              {a.remainingExact === null ? (
                <>
                  {' '}
                  · <span className="error">no budget (releases denied)</span>
                </>
              ) : (
                <>
                  , <span className={Number(a.remainingExact) < 0 ? 'over-budget' : undefined}>{formatExact(a.remainingExact, 'down')} left</span>
                </>
              )}{' '}
              · {a.releases} release{a.releases === 1 ? '' : 's'}
              <div className="hint">Protects {a.meaning}.</div>
            </li>
          ))}
        </ul>
      </figure>
      <figure className="chart-figure" data-testid="chart-cells">
        <figcaption>
          <strong>Spend per partition cell</strong>{' '}
          <span className="hint">
            — under one notion, a record’s spend is its cell’s own charges plus those of overlapping cells; the notion’s spend is the largest. Cells
            are kept only where a person lies in one of them (row-level data, or columns with one value per person).
          </span>
        </figcaption>
        <SelectField
          label="Notion"
          value={notion}
          onChange={setNotion}
          options={accounts.map((a) => ({ value: a.notion, label: notionName(a.notion) }))}
        />
        {cells.length === 0 ? (
          <p className="empty-state">Nothing charged under this notion yet.</p>
        ) : (
          <>
            {histogram ? (
              <div data-testid="chart-cells-histogram">
                <ChartView
                  type="bar"
                  data={histData}
                  options={{
                    plugins: { legend: { position: 'bottom' } },
                    scales: {
                      y: { beginAtZero: true, ticks: { precision: 0 }, title: { display: true, text: 'cells' } },
                      x: { title: { display: true, text: 'what a record of the cell has spent' } }
                    }
                  }}
                  label={`Cells by spend under ${notionName(account?.notion)}: ${distinct.length} distinct amounts over ${cells.length} cells`}
                  height={240}
                />
                <p className="hint">
                  {distinct.length === 1
                    ? `All ${cells.length} cells spent the same, ε ${formatExact(distinct[0])}`
                    : `${cells.length} cells spent one of ${distinct.length} amounts`}
                  {limit != null ? <>, against a budget of ε {formatExact(String(limit))}</> : null}: bars count the cells at each amount.
                </p>
              </div>
            ) : (
              <ChartView
                type="bar"
                data={cellData}
                options={cellOptions}
                label={`Spend per partition cell under ${notionName(account?.notion)}`}
                height={240}
              />
            )}
            {account && account.cellCount > cells.length && (
              <p className="hint">
                The {cells.length} cells that spent most of {account.cellCount} are shown.
              </p>
            )}
          </>
        )}
      </figure>
    </div>
  )
}
