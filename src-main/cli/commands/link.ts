/**
 * `link`: a CSV or Parquet file as a dataset queried in place by DuckDB (issue 16), instead of a copy in the workspace.
 * The path is taken here only: no HTTP/IPC door takes a path.
 */
import { resolve } from 'node:path'
import { unitName, unitText } from '../../services/datasets/privacy-unit'
import { linkFile } from '../../services/sources/linked-file'
import { dropOrphanStagingTables } from '../../services/datasets/staging'
import { openWorkspace } from '../workspace'
import { type CliCommand, UsageError, optString, reqString } from '../command'

export const linkCommand: CliCommand = {
  name: 'link',
  summary: 'Link a Parquet or CSV file as a dataset queried in place (DuckDB), without copying it into the workspace',
  usage: 'link --db PATH --name N --file F.parquet|F.csv [--person-column NAME [--per-person-columns A,B] | --row-level]',
  options: {
    db: { type: 'string', description: 'workspace database file', defaultText: '$QUIET_ALARM_DB or the user data directory' },
    name: { type: 'string', description: 'dataset name' },
    file: { type: 'string', description: 'the Parquet file, or a CSV file with a header row; it stays where it is' },
    'person-column': { type: 'string', description: 'privacy unit: the column identifying a person, who may have many rows (person-level)' },
    'row-level': { type: 'boolean', description: 'privacy unit: each row is a different person (the default)' },
    'per-person-columns': { type: 'string', description: 'person-level: columns that hold one value per person, comma-separated; checked over every row' }
  },
  async run(values, _pos, ctx) {
    const file = resolve(ctx.cwd, reqString(values, 'file'))
    const name = reqString(values, 'name')
    const personColumn = optString(values, 'person-column')
    if (personColumn !== undefined && values['row-level']) throw new UsageError('Give either --person-column NAME (person-level) or --row-level, not both')
    if (personColumn !== undefined && personColumn.trim() === '') throw new UsageError('--person-column needs the name of a column')
    const perRaw = optString(values, 'per-person-columns')
    if (perRaw !== undefined && personColumn === undefined) throw new UsageError('--per-person-columns needs --person-column')
    const perPersonColumns = perRaw === undefined ? [] : perRaw.split(',').map((c) => c.trim()).filter((c) => c !== '')
    const store = openWorkspace(values, ctx.cwd, { create: true })
    try {
      dropOrphanStagingTables(store.db)
      const started = Date.now()
      const d = linkFile(store.db, { name, file, personColumn: personColumn ?? null, perPersonColumns })
      const seconds = (Date.now() - started) / 1000
      return {
        json: { datasetId: d.id, name: d.name, source: 'linked-file', rows: d.rowCount, columns: d.columns, unit: unitName(d.unit), unitKind: d.unit.kind, seconds },
        text: [
          `Linked ${d.sourceFile} as dataset ${d.id} "${d.name}" (${d.rowCount.toLocaleString('en-US')} rows x ${d.columns.length} columns, queried in place) in ${seconds.toFixed(1)} s`,
          `Columns: ${d.columns.map((c) => `${c.name}:${c.type}${c.perPerson === true ? '^' : ''}`).join(', ')}`,
          `Privacy unit: ${unitText(d.unit)}`
        ].join('\n')
      }
    } finally {
      store.close()
    }
  }
}
