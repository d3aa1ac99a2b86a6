/**
 * "Sign a checkpoint": the privacy officer signs the heads of the ledger and the audit log now, so that a rewrite or
 * removal of anything before it is detected by verify. Verify's "not yet checkpointed" leads here (`#/ledger/checkpoint`).
 */
import { useState } from 'react'
import { announceChange } from '../../api/changes'
import { useAction, useClient } from '../../api/hooks'
import { ErrorText } from '../../components/Fields'
import { useFocusTarget } from '../../components/focusTarget'
import { NoOfficerNotice, OfficerFields, officerWhy, useOfficers } from './OfficerFields'

export const CHECKPOINT_PARAM = 'checkpoint'

export function CheckpointPanel(props: { focus: boolean; asked: number }) {
  const target = useFocusTarget<HTMLElement>(props.focus, props.asked)
  return (
    <section
      className="panel officer"
      id="checkpoint"
      tabIndex={-1}
      ref={target.ref}
      aria-labelledby="checkpoint-title"
      data-testid="checkpoint-panel"
    >
      <h2 id="checkpoint-title">Sign a checkpoint</h2>
      <p className="hint">
        For the privacy officer. A checkpoint signs the heads of the ledger and the audit log with the officer’s key: afterwards verify detects any
        rewrite or removal of what came before, from the workspace file alone. Every officer act signs one too.
      </p>
      <CheckpointForm />
    </section>
  )
}

function CheckpointForm() {
  const client = useClient()
  const officers = useOfficers()
  const [cred, setCred] = useState({ officer: '', passphrase: '' })
  const [done, setDone] = useState<string | null>(null)
  const act = useAction()
  const why = officerWhy(officers, cred)
  const sign = () =>
    void act
      .run(async () => {
        setDone(null)
        const c = await client.call('ledger/checkpoint', { officer: officers.name(cred.officer), passphrase: cred.passphrase })
        setDone(
          `Checkpoint signed by ${c.officer}: ledger entry ${c.ledgerSeq} and audit event ${c.auditId}. Verify now detects any rewrite up to here.`
        )
        announceChange('ledger')
      })
      .finally(() => setCred((c) => ({ ...c, passphrase: '' })))
  return (
    <>
      <NoOfficerNotice act="A checkpoint" officers={officers} testId="checkpoint-no-officer" />
      <form
        className="row"
        data-testid="checkpoint-form"
        onSubmit={(e) => {
          e.preventDefault()
          if (why === null) sign()
        }}
      >
        <OfficerFields officers={officers} value={cred} onChange={setCred} testIdPrefix="checkpoint" />
        <div className="field actions">
          <button type="submit" disabled={act.busy || why !== null} title={why ?? undefined} data-testid="checkpoint-sign">
            {act.busy ? 'Signing…' : 'Sign a checkpoint'}
          </button>
        </div>
      </form>
      {why !== null && officers.names.length > 0 && <p className="hint">{why}</p>}
      <ErrorText error={act.error} />
      {done && (
        <p className="ok" role="status" data-testid="checkpoint-done">
          {done}
        </p>
      )}
    </>
  )
}
