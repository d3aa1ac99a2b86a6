import { useEffect, useState } from 'react'
import { useChanges } from '../../api/changes'
import type { LedgerVerifyResult } from '../../../../src-main/contract'
import { useAction, useClient } from '../../api/hooks'
import { useCan } from '../../api/who'
import { ErrorText, TextField } from '../../components/Fields'
import { href } from '../../sections'
import { CHECKPOINT_PARAM } from './CheckpointPanel'
import { checkpointAdvice } from './officerAdvice'

/** Recompute the hash chain: a clear green or red answer, and the head hash to write down elsewhere. */
export function VerifyPanel(props: { onCheckpoint?: () => void }) {
  const client = useClient()
  const officer = useCan('officer')
  const [expect, setExpect] = useState('')
  const [result, setResult] = useState<LedgerVerifyResult | null>(null)
  // A verdict is about the ledger as it was: once something is written (a checkpoint signed), it is verified again on demand.
  const written = useChanges('ledger')
  useEffect(() => setResult(null), [written])
  const act = useAction()
  // The head hash's format is checked before anything is verified: a mistyped hash is not a broken ledger.
  const typed = expect.trim()
  const badHead =
    typed === '' || /^[0-9a-fA-F]{16,64}$/.test(typed)
      ? null
      : /[^0-9a-fA-F]/.test(typed)
        ? 'A head hash has only the digits 0-9 and the letters a-f.'
        : `A head hash has 16 to 64 hexadecimal digits (this has ${typed.length}): copy it as ledger verify printed it.`
  const verify = () =>
    void act.run(async () => {
      setResult(null)
      setResult(await client.call('ledger/verify', expect.trim() ? { expectHead: expect.trim() } : {}))
    })
  const advice = result ? checkpointAdvice(result, officer) : null
  return (
    <section className="panel" aria-labelledby="verify-title" data-testid="verify-panel">
      <h2 id="verify-title">Verify the ledger</h2>
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault()
          verify()
        }}
      >
        <TextField
          label="Head hash you wrote down earlier (optional)"
          value={expect}
          onChange={(v) => {
            setExpect(v)
            setResult(null)
          }}
          width="wide"
          hint={badHead ?? 'Detects a rewrite of the whole chain or a cut tail.'}
          invalid={badHead !== null}
          testId="verify-expect-head"
        />
        <div className="field actions">
          <button type="submit" disabled={act.busy || badHead !== null} data-testid="verify-start">
            {act.busy ? 'Verifying…' : 'Verify'}
          </button>
        </div>
      </form>
      {badHead !== null && (
        <p className="error" data-testid="verify-head-format">
          {badHead} Nothing was verified.
        </p>
      )}
      <ErrorText error={act.error} />
      {result && (
        <div className={`verdict ${result.ok ? 'good' : 'bad'}`} role="status" data-testid="verify-result" data-ok={result.ok}>
          <strong>{result.ok ? '✔ Intact' : result.firstBroken === null ? '✘ Head not found' : '✘ Broken'}</strong> — {result.message}
          {result.firstBroken && (
            <div>
              First broken entry: {result.firstBroken.seq} ({result.firstBroken.reason})
            </div>
          )}
          {advice !== null && (
            <p data-testid="verify-checkpoint-advice">
              {advice}{' '}
              {officer && (
                <button
                  type="button"
                  className="secondary small"
                  onClick={() => {
                    window.location.hash = href('ledger', CHECKPOINT_PARAM)
                    props.onCheckpoint?.()
                  }}
                  data-testid="verify-open-checkpoint"
                >
                  Sign a checkpoint…
                </button>
              )}
            </p>
          )}
          <div className="hash">
            {result.entries} entries · head hash <code>{result.headHash}</code>
          </div>
        </div>
      )}
    </section>
  )
}
