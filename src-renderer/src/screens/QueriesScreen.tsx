export function QueriesScreen() {
  return (
    <section className="panel empty-state" data-testid="screen-queries">
      <p>No saved queries yet. Threshold queries, anomaly identification and anomaly search builders appear here; the command line already evaluates them: npx quiet-alarm threshold --help.</p>
    </section>
  )
}
