export function ReportsScreen() {
  return (
    <section className="panel empty-state" data-testid="screen-reports">
      <p>Nothing to report yet. Reports cover a dataset or the whole workspace over a period, in an analyst or officer edition.</p>
    </section>
  )
}
