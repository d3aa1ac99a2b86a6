export function ExperimentsScreen() {
  return (
    <section className="panel empty-state" data-testid="screen-experiments">
      <p>No experiments yet. Sweeps run on the worker pool, are seeded and never charged: they are simulations on the ground truth.</p>
    </section>
  )
}
