/**
 * Accounts (the service's officer, UX.md "Accounts"): add an account (its credential shown once, with a copy button),
 * the list with each credential's expiry and status, an analyst's allotment of a dataset's budget, and revoking with
 * a reason. Each act is an officer act signed with the officer's key (the passphrase travels with the request only).
 */
import { useState } from 'react'
import type { AccountInfo, AddAccountResult, Role } from '../../../src-main/contract'
import { useAction, useClient, useQuery } from '../api/hooks'
import { ErrorText, SelectField, TextField } from '../components/Fields'
import { Loading } from '../components/Loading'
import { ScrollRegion } from '../components/ScrollRegion'
import { formatDate } from '../format'
import { NoOfficerNotice, type OfficerInput, OfficerFields, officerWhy, useOfficers } from './ledger/OfficerFields'
import type { ScreenProps } from '.'

const ROLE_OPTIONS: Array<{ value: Role; label: string }> = [
  { value: 'analyst', label: 'Analyst: asks questions and releases answers within the budgets' },
  { value: 'officer', label: 'Privacy officer: budgets, accounts, unlocks, reports' },
  { value: 'custodian', label: 'Custodian: brings data in, runs the workers' }
]
const STATUS_WORDS: Record<AccountInfo['status'], string> = {
  active: 'active',
  expired: 'expired',
  revoked: 'revoked',
  untrusted: 'not signed by a registered officer'
}
const NAME_RULE = /^[A-Za-z0-9._-]{1,64}$/

export function AccountsScreen(_props: ScreenProps) {
  const [version, setVersion] = useState(0)
  const list = useQuery('accounts/list', {}, [version])
  const reload = () => setVersion((v) => v + 1)
  return (
    <div className="stack" data-testid="screen-accounts">
      <AddAccount onAdded={reload} />
      <section className="panel" aria-labelledby="accounts-list-title" data-testid="accounts-list">
        <h2 id="accounts-list-title">Accounts</h2>
        <ErrorText error={list.error} />
        {list.data === null && list.loading && <Loading what="the accounts" />}
        {list.data && list.data.length === 0 && <p className="empty-state">No accounts yet. Add one above.</p>}
        {list.data && list.data.length > 0 && <AccountsTable accounts={list.data} onChanged={reload} />}
      </section>
    </div>
  )
}

function AddAccount(props: { onAdded: () => void }) {
  const client = useClient()
  const officers = useOfficers()
  const act = useAction()
  const [name, setName] = useState('')
  const [role, setRole] = useState<Role>('analyst')
  const [days, setDays] = useState('90')
  const [cred, setCred] = useState<OfficerInput>({ officer: '', passphrase: '' })
  const [added, setAdded] = useState<AddAccountResult | null>(null)
  const [copied, setCopied] = useState(false)
  const daysN = Number(days)
  const why = !NAME_RULE.test(name)
    ? 'Give the account a name: letters, digits, “.”, “_” or “-”.'
    : !Number.isInteger(daysN) || daysN < 1 || daysN > 730
      ? 'The credential works for 1 to 730 days.'
      : officerWhy(officers, cred)
  const add = () =>
    void act.run(async () => {
      const r = await client.call('accounts/add', {
        name,
        role,
        days: daysN,
        officer: officers.name(cred.officer) || undefined,
        passphrase: cred.passphrase
      })
      setCred({ ...cred, passphrase: '' })
      setAdded(r)
      setCopied(false)
      setName('')
      props.onAdded()
    })
  return (
    <section className="panel officer" aria-labelledby="account-add-title" data-testid="account-add">
      <h2 id="account-add-title">Add an account</h2>
      <NoOfficerNotice act="Adding an account" officers={officers} />
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault()
          if (why === null) add()
        }}
      >
        <TextField label="Account name" value={name} onChange={setName} testId="account-name" placeholder="e.g. ana" />
        <SelectField label="Role" value={role} onChange={setRole} options={ROLE_OPTIONS} testId="account-role" width="wide" />
        <TextField label="Credential works for (days)" value={days} onChange={setDays} testId="account-days" />
        <OfficerFields officers={officers} value={cred} onChange={setCred} testIdPrefix="account-add" />
        <div className="field actions">
          <button
            type="submit"
            disabled={act.busy || why !== null}
            aria-describedby={why ? 'account-add-why' : undefined}
            data-testid="account-add-submit"
          >
            {act.busy ? 'Adding…' : 'Add the account'}
          </button>
        </div>
      </form>
      {why && (
        <p className="hint todo" id="account-add-why" data-testid="account-add-why">
          {why}
        </p>
      )}
      <ErrorText error={act.error} testId="account-add-error" />
      {added && (
        <div className="notice" role="status" data-testid="account-credential">
          <p>
            Account “{added.account.name}” ({added.account.role}) added; its credential works until {formatDate(added.account.expiresAt)}. This is the
            only time it is shown (only its fingerprint is kept): give it to {added.account.name} privately.
          </p>
          <p>
            <code className="credential" data-testid="account-credential-value">
              {added.credential}
            </code>{' '}
            <button
              type="button"
              className="secondary small"
              onClick={() =>
                void navigator.clipboard.writeText(added.credential).then(
                  () => setCopied(true),
                  () => setCopied(false)
                )
              }
              data-testid="account-credential-copy"
            >
              {copied ? 'Copied' : 'Copy'}
            </button>{' '}
            <button type="button" className="secondary small" onClick={() => setAdded(null)} data-testid="account-credential-done">
              Done: hide it
            </button>
          </p>
        </div>
      )}
    </section>
  )
}

function AccountsTable(props: { accounts: AccountInfo[]; onChanged: () => void }) {
  const [revoking, setRevoking] = useState<string | null>(null)
  const [allotting, setAllotting] = useState<AccountInfo | null>(null)
  return (
    <>
      <ScrollRegion label="Accounts, their roles and expiry">
        <table className="compact">
          <thead>
            <tr>
              <th scope="col">Account</th>
              <th scope="col">Role</th>
              <th scope="col">Status</th>
              <th scope="col">Credential expires</th>
              <th scope="col">Added</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {props.accounts.map((a) => (
              <tr key={a.id} data-testid={`account-row-${a.name}`}>
                <td>{a.name}</td>
                <td>{a.role}</td>
                <td>
                  {STATUS_WORDS[a.status]}
                  {a.status === 'revoked' && a.revokeReason && (
                    <span className="hint block-line">
                      by {a.revokedBy}, {a.revokedAt ? formatDate(a.revokedAt) : ''}: {a.revokeReason}
                    </span>
                  )}
                </td>
                <td>{formatDate(a.expiresAt)}</td>
                <td>
                  {formatDate(a.createdAt)}
                  <span className="hint block-line">by {a.createdBy}</span>
                </td>
                <td>
                  <span className="button-row">
                    {a.role === 'analyst' && a.status === 'active' && (
                      <button type="button" className="secondary small" onClick={() => setAllotting(a)} aria-label={`Allot a budget to ${a.name}`}>
                        Allot…
                      </button>
                    )}
                    {a.status !== 'revoked' && (
                      <button
                        type="button"
                        className="secondary small danger-text"
                        onClick={() => setRevoking(a.name)}
                        aria-label={`Revoke ${a.name}`}
                      >
                        Revoke…
                      </button>
                    )}
                  </span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollRegion>
      {revoking && (
        <RevokeForm
          name={revoking}
          onDone={() => {
            setRevoking(null)
            props.onChanged()
          }}
          onCancel={() => setRevoking(null)}
        />
      )}
      {allotting && <AllotForm account={allotting} onDone={() => setAllotting(null)} />}
    </>
  )
}

function RevokeForm(props: { name: string; onDone: () => void; onCancel: () => void }) {
  const client = useClient()
  const officers = useOfficers()
  const act = useAction()
  const [reason, setReason] = useState('')
  const [cred, setCred] = useState<OfficerInput>({ officer: '', passphrase: '' })
  const why = reason.trim() === '' ? 'Give the reason (it is recorded).' : officerWhy(officers, cred)
  return (
    <form
      className="panel-inset stack-tight"
      aria-label={`Revoke ${props.name}`}
      data-testid="account-revoke-form"
      onSubmit={(e) => {
        e.preventDefault()
        if (why !== null) return
        void act.run(async () => {
          await client.call('accounts/revoke', {
            name: props.name,
            reason: reason.trim(),
            officer: officers.name(cred.officer) || undefined,
            passphrase: cred.passphrase
          })
          props.onDone()
        })
      }}
    >
      <h3>Revoke “{props.name}”</h3>
      <p className="hint">Its credential and every open session stop working at once; the account stays listed with the reason.</p>
      <div className="row">
        <TextField label="Reason (recorded)" value={reason} onChange={setReason} testId="account-revoke-reason" width="wide" />
        <OfficerFields officers={officers} value={cred} onChange={setCred} testIdPrefix="account-revoke" />
        <div className="field actions">
          <button type="submit" className="danger" disabled={act.busy || why !== null} data-testid="account-revoke-submit">
            {act.busy ? 'Revoking…' : 'Revoke'}
          </button>
          <button type="button" className="secondary" onClick={props.onCancel}>
            Cancel
          </button>
        </div>
      </div>
      {why && <p className="hint todo">{why}</p>}
      <ErrorText error={act.error} testId="account-revoke-error" />
    </form>
  )
}

/** An analyst's own share of a dataset's budget (budgets/set with the account): both it and the dataset's budget bind. */
function AllotForm(props: { account: AccountInfo; onDone: () => void }) {
  const client = useClient()
  const officers = useOfficers()
  const datasets = useQuery('datasets/list', {})
  const act = useAction()
  const [dataset, setDataset] = useState('')
  const [epsilon, setEpsilon] = useState('')
  const [reason, setReason] = useState('')
  const [cred, setCred] = useState<OfficerInput>({ officer: '', passphrase: '' })
  const [done, setDone] = useState<string | null>(null)
  const list = datasets.data ?? []
  const chosen = list.find((d) => String(d.id) === dataset) ?? list[0] ?? null
  const why =
    chosen === null
      ? 'There is no dataset to allot a budget of.'
      : !/^\d+(\.\d+)?$/.test(epsilon.trim())
        ? 'Give the share as a number of ε, e.g. 2.'
        : reason.trim() === ''
          ? 'Give the reason (it is recorded).'
          : officerWhy(officers, cred)
  return (
    <form
      className="panel-inset stack-tight"
      aria-label={`Allot a budget to ${props.account.name}`}
      data-testid="account-allot-form"
      onSubmit={(e) => {
        e.preventDefault()
        if (why !== null || chosen === null) return
        void act.run(async () => {
          await client.call('budgets/set', {
            datasetId: chosen.id,
            epsilon: epsilon.trim(),
            reason: reason.trim(),
            analyst: props.account.id,
            officer: officers.name(cred.officer) || undefined,
            passphrase: cred.passphrase
          })
          setCred({ ...cred, passphrase: '' })
          setDone(`${props.account.name} may now spend up to ε ${epsilon.trim()} of “${chosen.name}”, within the dataset’s own budget.`)
        })
      }}
    >
      <h3>Allot “{props.account.name}” a share of a dataset’s budget</h3>
      <div className="row">
        <SelectField
          label="Dataset"
          value={chosen ? String(chosen.id) : ''}
          onChange={setDataset}
          options={list.map((d) => ({ value: String(d.id), label: d.name }))}
          testId="account-allot-dataset"
        />
        <TextField label="Share ε" value={epsilon} onChange={setEpsilon} testId="account-allot-epsilon" />
        <TextField label="Reason (recorded)" value={reason} onChange={setReason} testId="account-allot-reason" width="wide" />
        <OfficerFields officers={officers} value={cred} onChange={setCred} testIdPrefix="account-allot" />
        <div className="field actions">
          <button type="submit" disabled={act.busy || why !== null} data-testid="account-allot-submit">
            {act.busy ? 'Allotting…' : 'Allot'}
          </button>
          <button type="button" className="secondary" onClick={props.onDone}>
            Close
          </button>
        </div>
      </div>
      {why && <p className="hint todo">{why}</p>}
      <ErrorText error={act.error} testId="account-allot-error" />
      {done && (
        <p className="ok" role="status" data-testid="account-allot-done">
          {done}
        </p>
      )}
    </form>
  )
}
