/** The two kinds of result never look alike: released answers (charged, real data) and simulations (ground truth, free). */
export function ReleaseBadge() {
  return (
    <span className="badge release" title="Charged to the privacy ledger; computed on the real data with secure noise">
      Released answer
    </span>
  )
}

export function SimulationBadge() {
  return (
    <span className="badge simulation" title="Ground truth, seeded generator, never charged">
      Simulation
    </span>
  )
}
