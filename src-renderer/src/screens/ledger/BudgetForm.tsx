import { useState } from 'react'
import type { DatasetInfo, PrivacyNotion } from '../../../../src-main/contract'
import { useAction, useClient } from '../../api/hooks'
import { ErrorText, NumberField, SelectField, TextField, parseNumber } from '../../components/Fields'
import { formatExact } from '../../format'
import { href } from '../../sections'
import { NOTION_OPTIONS } from './notions'
import { OfficerFields, officerWhy, useOfficers } from './OfficerFields'

/** Privacy officer: set or change a budget. The reason is required and goes into the ledger. */
export function BudgetForm(props: { datasets: DatasetInfo[]; datasetId: number | null; onSet: () => void }) {
  const client = useClient()
  const [datasetId, setDatasetId] = useState<string>(props.datasetId ? String(props.datasetId) : '')
  const [notion, setNotion] = useState<PrivacyNotion | 'all'>('all')
  const [epsilon, setEpsilon] = useState('')
  const [reason, setReason] = useState('')
  const officers = useOfficers()
  const [cred, setCred] = useState({ officer: '', passphrase: '' })
  const [done, setDone] = useState<string | null>(null)
  const act = useAction()
  const ds = datasetId || (props.datasetId ? String(props.datasetId) : props.datasets[0] ? String(props.datasets[0].id) : '')
  const eps = parseNumber(epsilon)
  const why = officerWhy(officers, cred)
  const valid = ds !== '' && eps !== null && eps >= 0 && reason.trim().length > 0 && why === null

  const submit = () =>
    void act.run(async () => {
      setDone(null)
      const r = await client.call('budgets/set', {
        datasetId: Number(ds),
        epsilon: epsilon.trim(),
        notion: notion === 'all' ? undefined : notion,
        reason: reason.trim(),
        officer: officers.name(cred.officer),
        passphrase: cred.passphrase
      })
      setDone(
        `Budget of “${r.entry.datasetName}” set to ε ${formatExact(r.entry.epsilonExact)} ${
          r.entry.notion ? `as an extra cap on ${r.entry.notion}` : 'per person (or row), summed over notions'
        } (ledger entry ${r.entry.seq}).`
      )
      setReason('')
      props.onSet()
    }).finally(() => setCred((c) => ({ ...c, passphrase: '' })))

  if (props.datasets.length === 0) {
    return (
      <section className="panel empty-state">
        <h2>Budgets</h2>
        <p>
          <a href={href('datasets')}>Import a dataset</a> first; then set its privacy budget here.
        </p>
      </section>
    )
  }
  return (
    <section className="panel" aria-labelledby="budget-title" data-testid="budget-form">
      <h2 id="budget-title">Set a budget</h2>
      <p className="hint">
        For the privacy officer. The budget per person (or row, on a row-level dataset) bounds what one person may lose, summed over every
        notion; a notion may also get its own, smaller cap. Without a budget every release on the dataset is denied. Each change is a ledger
        entry with its reason, signed with the officer’s key (the passphrase is not kept).
      </p>
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault()
          if (valid) submit()
        }}
      >
        <SelectField
          label="Dataset"
          value={ds}
          onChange={setDatasetId}
          options={props.datasets.map((d) => ({ value: String(d.id), label: d.name }))}
          testId="budget-dataset"
        />
        <SelectField
          label="Privacy notion"
          value={notion}
          onChange={setNotion}
          options={[{ value: 'all', label: 'Per person (or row), all notions summed' }, ...NOTION_OPTIONS.map((o) => ({ ...o, label: `Extra cap on ${o.label}` }))]}
          testId="budget-notion"
        />
        <NumberField label="Budget ε" value={epsilon} onChange={setEpsilon} testId="budget-epsilon" invalid={epsilon !== '' && (eps === null || eps < 0)} />
        <TextField label="Reason (recorded)" value={reason} onChange={setReason} testId="budget-reason" width="wide" placeholder="e.g. quarterly allowance approved by the board" />
        <OfficerFields officers={officers} value={cred} onChange={setCred} testIdPrefix="budget" />
        <div className="field actions">
          <button type="submit" disabled={!valid || act.busy} title={why ?? undefined} data-testid="budget-set">
            Set budget
          </button>
        </div>
      </form>
      {why && ds !== '' && reason.trim() !== '' && <p className="hint" data-testid="budget-why">{why}</p>}
      <ErrorText error={officers.error} />
      <ErrorText error={act.error} testId="budget-error" />
      {done && (
        <p className="ok" role="status" data-testid="budget-done">
          {done}
        </p>
      )}
    </section>
  )
}
