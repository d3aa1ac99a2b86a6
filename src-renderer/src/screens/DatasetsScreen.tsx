export function DatasetsScreen() {
  return (
    <section className="panel empty-state" data-testid="screen-datasets">
      <p>No datasets yet. Importing CSV and TSV files into this workspace is being built; until then use the command line: npx quiet-alarm import --help.</p>
    </section>
  )
}
