import { useState } from 'react'
import { useQuery } from '../api/hooks'
import { ErrorText, SelectField } from '../components/Fields'
import { formatDate, formatExact } from '../format'
import { Loading } from '../components/Loading'
import { ForRoles } from '../components/ForRoles'
import { BUDGET_PARAM, BudgetForm } from './ledger/BudgetForm'
import { EntriesTable } from './ledger/EntriesTable'
import { OfficersPanel } from './ledger/OfficersPanel'
import { OfficerView } from './ledger/OfficerView'
import { PerUnitHeadline, SpendCharts } from './ledger/SpendCharts'
import { budgetName, notionName } from './ledger/notions'
import { VerifyPanel } from './ledger/VerifyPanel'
import { CHECKPOINT_PARAM, CheckpointPanel } from './ledger/CheckpointPanel'
import type { DatasetLedger } from '../../../src-main/contract'
import { actingOfficer, unsignedActsText } from '../../../src-main/contract/officer-acts'
import type { ScreenProps } from '.'

/**
 * `#/ledger/<seq>` highlights one entry (a release links to its charge); `#/ledger/officers` goes to the privacy officers,
 * `#/ledger/budget` to "Set a budget", `#/ledger/checkpoint` to "Sign a checkpoint".
 */
export function LedgerScreen(props: ScreenProps) {
  const [version, setVersion] = useState(0)
  const datasets = useQuery('datasets/list', {})
  const summary = useQuery('ledger/summary', { cellLimit: 30 }, [version])

  const [datasetChoice, setDatasetChoice] = useState<string>('')
  const ledgers = summary.data?.datasets ?? []
  const active = ledgers.find((d) => d.accounts.some((a) => a.spent > 0)) ?? ledgers.find((d) => d.budgetChanges.length > 0)
  const current = ledgers.find((d) => String(d.datasetId) === datasetChoice) ?? active ?? ledgers[0] ?? null
  const highlight = props.param && /^\d+$/.test(props.param) ? Number(props.param) : null
  const bump = () => setVersion((v) => v + 1)
  // Each "Sign a checkpoint…" click leads to the panel, also when the address already names it.
  const [checkpointAsked, setCheckpointAsked] = useState(0)
  return (
    <div className="stack" data-testid="screen-ledger">
      <OfficersPanel focus={props.param === 'officers'} />
      <ForRoles roles={['custodian', 'officer']}>
        <VerifyPanel onCheckpoint={() => setCheckpointAsked((n) => n + 1)} />
      </ForRoles>
      <ForRoles roles={['officer']}>
        <CheckpointPanel focus={props.param === CHECKPOINT_PARAM} asked={checkpointAsked} />
      </ForRoles>
      <section className="panel" aria-labelledby="spend-title" data-testid="ledger-spend">
        <div className="panel-head">
          <h2 id="spend-title">Spend and budgets</h2>
          {ledgers.length > 1 && (
            <SelectField
              label="Dataset"
              value={current ? String(current.datasetId) : ''}
              onChange={setDatasetChoice}
              options={ledgers.map((d) => ({ value: String(d.datasetId), label: d.datasetName + (d.exists ? '' : ' (deleted)') }))}
              testId="ledger-dataset"
            />
          )}
        </div>
        <ErrorText error={summary.error} />
        {(summary.data?.unsignedActsInForce ?? 0) > 0 && (
          <p className="error" role="alert" data-testid="ledger-unsigned-acts">
            {unsignedActsText(summary.data!.unsignedActsInForce!)}
          </p>
        )}
        {summary.data === null && summary.loading && <Loading what="the spend and budgets" />}
        {summary.data && ledgers.length === 0 && (
          <p className="empty-state">No dataset has a budget or a charge yet. Import a dataset, then set its budget below.</p>
        )}
        {current && (
          <>
            <p>
              <strong>{current.datasetName}</strong>
              {current.exists ? '' : ' (deleted; its history stays)'} · unit: {current.unitText}
            </p>
            <PerUnitHeadline ledger={current} />
            <SpendCharts ledger={current} notionsNote={summary.data!.notionsNote} />
            {current.byAnalyst.length > 0 && <AnalystSpendTable ledger={current} />}
            {current.budgetChanges.length > 0 && (
              <>
                <h3>Budget changes</h3>
                <table className="compact" data-testid="budget-changes">
                  <thead>
                    <tr>
                      <th scope="col">#</th>
                      <th scope="col">When</th>
                      <th scope="col">Notion</th>
                      <th scope="col" className="num">
                        Budget ε
                      </th>
                      <th scope="col">Officer</th>
                      <th scope="col">Reason</th>
                    </tr>
                  </thead>
                  <tbody>
                    {current.budgetChanges.map((b) => (
                      <tr key={b.seq}>
                        <td>{b.seq}</td>
                        <td>{formatDate(b.at)}</td>
                        <td>
                          {b.notion ? notionName(b.notion) : budgetName(current.unitKind)}
                          {b.analyst ? ` · analyst ${b.analyst}’s own` : ''}
                        </td>
                        <td className="num">{formatExact(b.epsilonExact)}</td>
                        <td>{actingOfficer(b)}</td>
                        <td className="wrap">{b.reason}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </>
            )}
          </>
        )}
      </section>
      <ForRoles roles={['officer']}>
        <BudgetForm
          datasets={datasets.data}
          datasetsError={datasets.error}
          datasetId={current?.exists ? current.datasetId : null}
          ledgers={ledgers}
          onSet={bump}
          focus={props.param === BUDGET_PARAM}
        />
      </ForRoles>
      <EntriesTable datasetId={null} highlight={highlight} version={version} />
      <ForRoles roles={['officer']}>
        <OfficerView datasetId={null} version={version} />
      </ForRoles>
    </div>
  )
}

/** The service: what each analyst account's own releases have spent (per unit, notions summed) and their own budgets. */
function AnalystSpendTable(props: { ledger: DatasetLedger }) {
  const per = props.ledger.unitKind === 'person' ? 'person' : 'row'
  return (
    <>
      <h3>Spend per analyst</h3>
      <p className="hint">
        What each analyst account’s own releases cost one {per} at most, summed over notions. An analyst with an own budget is held to it and to the
        dataset’s; the dataset’s spend above counts every analyst together.
      </p>
      <table className="compact" data-testid="analyst-spend">
        <thead>
          <tr>
            <th scope="col">Analyst</th>
            <th scope="col" className="num">
              Releases
            </th>
            <th scope="col" className="num">
              Spent ε per {per}
            </th>
            <th scope="col" className="num">
              Own budget ε
            </th>
            <th scope="col" className="num">
              Remaining ε
            </th>
          </tr>
        </thead>
        <tbody>
          {props.ledger.byAnalyst.map((a) => (
            <tr key={a.accountId}>
              <td>{a.name}</td>
              <td className="num">{a.releases}</td>
              <td className="num">{formatExact(a.spentPerUnitExact)}</td>
              <td className="num">{a.budgetPerUnitExact === null ? '— (the dataset’s only)' : formatExact(a.budgetPerUnitExact)}</td>
              <td className="num">{a.remainingPerUnitExact === null ? '—' : formatExact(a.remainingPerUnitExact)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  )
}
