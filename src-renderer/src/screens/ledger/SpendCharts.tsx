import { useMemo, useState } from 'react'
import type { ChartData, ChartOptions } from 'chart.js'
import type { DatasetLedger, PrivacyNotion } from '../../../../src-main/contract'
import { ChartView, type ChartKind } from '../../components/Chart'
import { SelectField } from '../../components/Fields'
import { formatExact } from '../../format'

const SPENT = '#0f6e6e'
const BUDGET = '#b42318'

/** Spend per notion (bars) against each notion's budget, and spend per partition cell against the budget. */
export function SpendCharts(props: { ledger: DatasetLedger; notionsNote: string }) {
  const accounts = props.ledger.accounts
  const firstUsed = (accounts.find((a) => a.spent > 0) ?? accounts.find((a) => a.budget !== null) ?? accounts[0])?.notion
  const [notionChoice, setNotion] = useState<PrivacyNotion | ''>('')
  const notion = (notionChoice || firstUsed) as PrivacyNotion
  const account = accounts.find((a) => a.notion === notion)

  const notionData = useMemo(
    () =>
      ({
        labels: accounts.map((a) => a.label),
        datasets: [
          { label: 'spent ε', data: accounts.map((a) => a.spent), backgroundColor: SPENT },
          { label: 'budget ε', data: accounts.map((a) => a.budget ?? 0), backgroundColor: '#f3c7c3', borderColor: BUDGET, borderWidth: 1 }
        ]
      }) as ChartData<ChartKind>,
    [accounts]
  )
  const cells = account?.cells ?? []
  const cellData = useMemo(
    () =>
      ({
        labels: cells.map((c) => (c.key === '{}' ? 'whole dataset' : c.label)),
        datasets: [
          { type: 'bar', label: 'spent by a record of this cell (ε)', data: cells.map((c) => c.total), backgroundColor: SPENT },
          ...(account?.budget != null
            ? [{ type: 'line', label: 'budget', data: cells.map(() => account.budget), borderColor: BUDGET, borderDash: [6, 4], pointRadius: 0, borderWidth: 2 }]
            : [])
        ]
      }) as ChartData<ChartKind>,
    [cells, account?.budget]
  )
  const barOptions: ChartOptions<ChartKind> = {
    plugins: { legend: { position: 'bottom' } },
    scales: { y: { beginAtZero: true, title: { display: true, text: 'ε' } } }
  }
  const cellOptions: ChartOptions<ChartKind> = {
    indexAxis: 'x',
    plugins: { legend: { position: 'bottom' } },
    scales: { y: { beginAtZero: true, title: { display: true, text: 'ε' } }, x: { ticks: { autoSkip: true, maxRotation: 45 } } }
  }
  return (
    <div className="two-col">
      <figure className="chart-figure" data-testid="chart-notions">
        <figcaption>
          <strong>Spend per privacy notion</strong> <span className="hint">— {props.notionsNote}</span>
        </figcaption>
        <ChartView type="bar" data={notionData} options={barOptions} label="Spent and budget epsilon per privacy notion" height={240} />
        <ul className="notion-list">
          {accounts.map((a) => (
            <li key={a.notion}>
              <strong>{a.label}</strong>: ε {formatExact(a.spentExact)} spent of{' '}
              {a.budgetExact === null ? <span className="error">no budget (releases denied)</span> : formatExact(a.budgetExact)}
              {a.remainingExact !== null && <>, {formatExact(a.remainingExact)} left</>} · {a.releases} releases
              <div className="hint">Protects {a.meaning}.</div>
            </li>
          ))}
        </ul>
      </figure>
      <figure className="chart-figure" data-testid="chart-cells">
        <figcaption>
          <strong>Spend per partition cell</strong>{' '}
          <span className="hint">— a record's spend is its cell's own charges plus those of overlapping cells; the dataset's spend is the largest.</span>
        </figcaption>
        <SelectField label="Notion" value={notion} onChange={setNotion} options={accounts.map((a) => ({ value: a.notion, label: a.label }))} />
        {cells.length === 0 ? (
          <p className="empty-state">Nothing charged under this notion yet.</p>
        ) : (
          <>
            <ChartView type="bar" data={cellData} options={cellOptions} label={`Spend per partition cell under ${account?.label}`} height={240} />
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
