import { useState } from 'react'
import type { LedgerVerifyResult } from '../../../../src-main/contract'
import { useAction, useClient } from '../../api/hooks'
import { ErrorText, TextField } from '../../components/Fields'

/** Recompute the hash chain: a clear green or red answer, and the head hash to write down elsewhere. */
export function VerifyPanel() {
  const client = useClient()
  const [expect, setExpect] = useState('')
  const [result, setResult] = useState<LedgerVerifyResult | null>(null)
  const act = useAction()
  const verify = () =>
    void act.run(async () => {
      setResult(null)
      setResult(await client.call('ledger/verify', expect.trim() ? { expectHead: expect.trim() } : {}))
    })
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
          onChange={setExpect}
          width="wide"
          hint="Detects a rewrite of the whole chain or a cut tail."
        />
        <div className="field actions">
          <button type="submit" disabled={act.busy} data-testid="verify-start">
            Verify
          </button>
        </div>
      </form>
      <ErrorText error={act.error} />
      {result && (
        <div className={`verdict ${result.ok ? 'good' : 'bad'}`} role="status" data-testid="verify-result" data-ok={result.ok}>
          <strong>{result.ok ? '✔ Intact' : '✘ Broken'}</strong> — {result.message}
          {result.firstBroken && (
            <div>
              First broken entry: {result.firstBroken.seq} ({result.firstBroken.reason})
            </div>
          )}
          <div className="hash">
            {result.entries} entries · head hash <code>{result.headHash}</code>
          </div>
        </div>
      )}
    </section>
  )
}
