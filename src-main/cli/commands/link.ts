/**
 * `link`: a CSV or Parquet file as a dataset queried in place by DuckDB, instead of a copy in the workspace;
 * or a PostgreSQL table or materialized view (`--postgres URL --table T`), queried where it lives. The path is taken
 * here only: no HTTP/IPC door takes a path. The PostgreSQL URL has no password (one that has is refused): the password comes from
 * PGPASSWORD (or the variable named by --password-env), else a prompt on a terminal (used for this run only).
 * Linking is an officer act: for a PostgreSQL relation the password goes to the URL's host at every later use (also from
 * the app with the server's password); for a file, the budget of the dataset is for the people in that file. The officer
 * signs the link (--officer, --passphrase-file): its URL or path, and what identifies the relation or the file.
 * A ClickHouse table (`--clickhouse URL --table DB.T`, local or Distributed) likewise, its password from
 * CLICKHOUSE_PASSWORD.
 */
import { resolve } from 'node:path'
import { UserError } from '../../services'
import { WAREHOUSES, type WarehouseId, dropOrphanStagingTables, linkFile, unitName, unitText } from '../../services/local'
import { OFFICER_OPTIONS, prompt, readPassphrase } from '../passphrase'
import { openWorkspace } from '../workspace'
import { type CliCommand, UsageError, optString, reqString } from '../command'

export const linkCommand: CliCommand = {
  name: 'link',
  required: (values) => (values.postgres !== undefined || values.clickhouse !== undefined ? ['name', 'table'] : ['file', 'name']),
  summary:
    'Link a Parquet or CSV file (DuckDB), a PostgreSQL table or materialized view, or a ClickHouse table (local or Distributed) as a dataset queried in place, without copying it into the workspace',
  usage:
    'link --db PATH --name N (--file F.parquet|F.csv | --postgres URL --table T | --clickhouse URL --table DB.T) [--password-env VAR] [--officer NAME] [--passphrase-file F] [--person-column NAME | --row-level]',
  options: {
    db: { type: 'string', description: 'workspace database file', defaultText: '$QUIET_ALARM_DB or the user data directory' },
    name: { type: 'string', description: 'dataset name' },
    file: { type: 'string', description: 'the Parquet file, or a CSV file with a header row; it stays where it is' },
    postgres: { type: 'string', description: 'a PostgreSQL connection URL WITHOUT a password, e.g. postgresql://reader@db.example:5432/hr' },
    clickhouse: { type: 'string', description: 'a ClickHouse HTTP(S) URL WITHOUT a password, e.g. http://reader@clickhouse.example:8123' },
    table: {
      type: 'string',
      description: 'with --postgres: the table or materialized view (schema.table); with --clickhouse: the table (database.table)'
    },
    'password-env': {
      type: 'string',
      description: 'with --postgres or --clickhouse: the environment variable holding the password',
      defaultText: 'PGPASSWORD, or CLICKHOUSE_PASSWORD'
    },
    'person-column': { type: 'string', description: 'privacy unit: the column identifying a person, who may have many rows (person-level)' },
    'row-level': { type: 'boolean', description: 'privacy unit: each row is a different person (the default)' },
    'per-person-columns': {
      type: 'string',
      description: 'refused on a linked source (it can change after the link): import a copy to declare columns with one value per person'
    },
    ...OFFICER_OPTIONS
  },
  async run(values, _pos, ctx) {
    if (optString(values, 'postgres') !== undefined && optString(values, 'clickhouse') !== undefined)
      throw new UsageError('Give either --postgres or --clickhouse, not both')
    if (optString(values, 'postgres') !== undefined) return linkWarehouseCommand('postgres', values, ctx)
    if (optString(values, 'clickhouse') !== undefined) return linkWarehouseCommand('clickhouse', values, ctx)
    if (optString(values, 'table') !== undefined) throw new UsageError('--table needs --postgres URL or --clickhouse URL')
    const file = resolve(ctx.cwd, reqString(values, 'file'))
    const name = reqString(values, 'name')
    const { personColumn, perPersonColumns } = unitOptions(values)
    // An officer act (the officer signs the path and what identifies the file): the passphrase is read first.
    const passphrase = await readPassphrase(values, ctx, { label: "The privacy officer's passphrase (linking is an officer act)" })
    const store = openWorkspace(values, ctx.cwd, { create: true })
    try {
      dropOrphanStagingTables(store.db)
      const started = Date.now()
      const d = linkFile(store.db, { name, file, personColumn, perPersonColumns, officer: optString(values, 'officer'), passphrase })
      const seconds = (Date.now() - started) / 1000
      return {
        json: {
          datasetId: d.id,
          name: d.name,
          source: 'linked-file',
          rows: d.rowCount,
          columns: d.columns,
          unit: unitName(d.unit),
          unitKind: d.unit.kind,
          seconds
        },
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

type Values = Parameters<CliCommand['run']>[0]

function unitOptions(values: Values): { personColumn: string | null; perPersonColumns: string[] } {
  const personColumn = optString(values, 'person-column')
  if (personColumn !== undefined && values['row-level'])
    throw new UsageError('Give either --person-column NAME (person-level) or --row-level, not both')
  if (personColumn !== undefined && personColumn.trim() === '') throw new UsageError('--person-column needs the name of a column')
  const perRaw = optString(values, 'per-person-columns')
  if (perRaw !== undefined && personColumn === undefined) throw new UsageError('--per-person-columns needs --person-column')
  const perPersonColumns =
    perRaw === undefined
      ? []
      : perRaw
          .split(',')
          .map((c) => c.trim())
          .filter((c) => c !== '')
  return { personColumn: personColumn ?? null, perPersonColumns }
}

/** What the JSON output names the linked table by. */
const SOURCE_KEY: Record<WarehouseId, string> = { postgres: 'relation', clickhouse: 'table' }

/** `--postgres URL --table T` or `--clickhouse URL --table DB.T`: the engine's table linked where it lives. */
async function linkWarehouseCommand(engine: WarehouseId, values: Values, ctx: { cwd: string }) {
  const w = WAREHOUSES[engine]
  if (optString(values, 'file') !== undefined) throw new UsageError(`Give either --file or --${engine}, not both`)
  const name = reqString(values, 'name')
  const table = reqString(values, 'table')
  const { personColumn, perPersonColumns } = unitOptions(values)
  let url: string
  let passwordEnv: string | null
  try {
    url = w.checkUrl(reqString(values, engine))
    passwordEnv = w.checkPasswordEnv(optString(values, 'password-env'))
  } catch (e) {
    if (e instanceof UserError) throw new UsageError(e.message)
    throw e
  }
  const envVar = passwordEnv ?? w.defaultPasswordEnv
  if (process.env[envVar] === undefined && process.stdin.isTTY && process.stderr.isTTY) {
    // Asked on the terminal, used by this run only (later commands read it from the environment again).
    process.env[envVar] = await prompt(`${w.label} password (empty for none): `)
  }
  // An officer act: the passphrase is read before the workspace is touched.
  const passphrase = await readPassphrase(values, ctx, { label: `The privacy officer's passphrase (linking a ${w.what} is an officer act)` })
  const store = openWorkspace(values, ctx.cwd, { create: true })
  try {
    dropOrphanStagingTables(store.db)
    const started = Date.now()
    const d = w.link(store.db, { name, url, passwordEnv, table, personColumn, perPersonColumns, officer: optString(values, 'officer'), passphrase })
    const seconds = (Date.now() - started) / 1000
    return {
      json: {
        datasetId: d.id,
        name: d.name,
        source: w.source,
        [SOURCE_KEY[engine]]: d.sourceFile,
        columns: d.columns,
        unit: unitName(d.unit),
        unitKind: d.unit.kind,
        seconds
      },
      text: [
        `Linked ${w.label} ${d.sourceFile} as dataset ${d.id} "${d.name}" (${d.columns.length} columns as declared; rows not counted; queried in place, read-only; signed by the officer) in ${seconds.toFixed(1)} s`,
        `Columns: ${d.columns.map((c) => `${c.name}:${c.type}${c.perPerson === true ? '^' : ''}`).join(', ')}`,
        `Privacy unit: ${unitText(d.unit)}`,
        `The password is not stored: releases read it from ${envVar}.`
      ].join('\n')
    }
  } finally {
    store.close()
  }
}
