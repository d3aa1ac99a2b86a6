export function LedgerScreen() {
  return (
    <section className="panel empty-state" data-testid="screen-ledger">
      <p>The ledger is empty. Every release will be charged here before it is answered.</p>
    </section>
  )
}
