/**
 * Store commands of the datasets area: `import`, `datasets [list|show|rows|rename|delete|public]`, `query [save|list|show|delete]`.
 * They open the workspace directly (no worker pool) and always close it.
 */
import { join, resolve } from 'node:path'
import type { ColumnType, DatasetInfo, Delimiter } from '../../contract/datasets'
import { CancelledError, UserError } from '../../services'
import {
  type ImportProgress,
  type Store,
  datasetRows,
  declarePublic,
  deleteDataset,
  deleteQuery,
  dropOrphanStagingTables,
  getDataset,
  getQuery,
  isColumnType,
  listDatasets,
  listQueries,
  planAppend,
  planImport,
  appendText,
  projectRoot,
  renameDataset,
  resolveDataset,
  runAppend,
  runImport,
  saveQuery,
  unitName,
  unitText
} from '../../services/local'
import { openWorkspace } from '../workspace'
import { type CliCommand, type CliContext, type CliValues, UsageError, choice, optNumber, optString, reqNumber, reqString } from '../command'
import { OFFICER_OPTIONS, readPassphrase } from '../passphrase'
import { REMOTE_OPTIONS, remoteTarget } from '../remote'
import { queryText, querySpecFromFile, savedText } from './query-spec'
import { remoteQuery } from './remote-store-commands'

const dbOption = { type: 'string' as const, description: 'workspace database file', defaultText: '$QUIET_ALARM_DB or the user data directory' }

function withStore<T>(values: CliValues, ctx: CliContext, fn: (store: Store) => Promise<T>, create = false): Promise<T> {
  const store = openWorkspace(values, ctx.cwd, { create })
  dropOrphanStagingTables(store.db)
  return fn(store).finally(() => store.close())
}

const DELIMITER_WORDS: Record<string, Delimiter> = {
  ',': ',',
  comma: ',',
  tab: '\t',
  '\\t': '\t',
  '\t': '\t',
  ';': ';',
  semicolon: ';',
  '|': '|',
  bar: '|'
}

export function parseTypeOverrides(raw: string | undefined): Record<string, ColumnType> {
  const out: Record<string, ColumnType> = {}
  if (raw === undefined) return out
  for (const part of raw.split(',')) {
    const eq = part.lastIndexOf('=')
    const name = eq > 0 ? part.slice(0, eq).trim() : ''
    const type = eq > 0 ? part.slice(eq + 1).trim() : ''
    if (name === '' || !isColumnType(type))
      throw new UsageError(`--type must be column=integer|real|text|timestamp, comma-separated (got "${part.slice(0, 80)}")`)
    out[name] = type
  }
  return out
}

function mb(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`
}

function progressLine(p: ImportProgress): string {
  const pct = p.totalBytes > 0 ? ` (${Math.min(100, Math.floor((100 * p.bytes) / p.totalBytes))}%)` : ''
  return `import: ${p.rows.toLocaleString('en-US')} rows, ${mb(p.bytes)} of ${mb(p.totalBytes)}${pct}, ${Math.round(p.rowsPerSecond).toLocaleString('en-US')} rows/s${p.badRows ? `, ${p.badRows} bad rows` : ''}`
}

/** A value on one line of tab-separated text output: tabs and line breaks escaped. */
function cellText(v: unknown): string {
  return v === null ? '' : String(v).replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\r/g, '\\r').replace(/\n/g, '\\n')
}

function columnsText(d: DatasetInfo): string {
  // On a person-level dataset, "^" marks a column declared at import to hold one value per person.
  return (
    d.columns.map((c) => `${c.name}:${c.type}${c.perPerson === true ? '^' : ''}`).join(', ') +
    (d.columns.some((c) => c.perPerson === true) ? '  (^ one value per person, declared)' : '')
  )
}

/** Options of a new import that an append does not take: the dataset's name, columns, types and unit stay as imported. */
const NOT_WITH_APPEND = ['file', 'name', 'type', 'on-bad-row', 'report-bad-rows', 'person-column', 'row-level', 'per-person-columns'] as const

/** `import --dataset D --append F`: the file's rows added to an imported dataset, all or none. */
async function appendRows(values: CliValues, ctx: CliContext, delimiter: Delimiter | undefined) {
  const other = NOT_WITH_APPEND.find((o) => values[o] !== undefined && values[o] !== false)
  if (other !== undefined)
    throw new UsageError(`--${other} does not go with --append: the rows take the dataset's columns, types and privacy unit as imported`)
  const file = resolve(ctx.cwd, reqString(values, 'append'))
  const ref = reqString(values, 'dataset')
  return withStore(values, ctx, async (store) => {
    const ds = resolveDataset(store.db, ref)
    const plan = planAppend(store.db, { datasetId: ds.info.id, path: file, delimiter })
    const controller = new AbortController()
    const onSigint = () => controller.abort()
    process.once('SIGINT', onSigint)
    try {
      const r = await runAppend(store.db, plan, { signal: controller.signal })
      return { json: { ...r }, text: appendText(r) }
    } catch (e) {
      if (e instanceof CancelledError) throw new UserError('Append cancelled; nothing was appended', 'cancelled')
      throw e
    } finally {
      process.removeListener('SIGINT', onSigint)
    }
  })
}

const importCommand: CliCommand = {
  name: 'import',
  required: (values) => (values.append !== undefined ? ['dataset'] : ['file']),
  summary: 'Import a CSV/TSV file into the workspace database as a dataset, or append a file of new rows to one',
  usage:
    'import --db PATH (--file F [--person-column NAME [--per-person-columns A,B] | --row-level] [--name N] [--type col=integer,col2=timestamp] [--on-bad-row skip|abort] | --dataset ID|NAME --append F) [--delimiter ,|tab|;|bar]',
  options: {
    db: dbOption,
    file: { type: 'string', description: 'the CSV or TSV file (UTF-8, header row)' },
    dataset: { type: 'string', description: 'with --append: the imported dataset (id or name) that takes the rows' },
    append: {
      type: 'string',
      description: "a file of new rows for --dataset: its header names the dataset's columns; all rows are added or none"
    },
    name: { type: 'string', description: 'dataset name', defaultText: 'the file name without extension' },
    delimiter: { type: 'string', description: 'comma, tab, semicolon or bar', defaultText: 'detected from the header line' },
    type: { type: 'string', description: 'type overrides, comma-separated column=integer|real|text|timestamp' },
    'on-bad-row': { type: 'string', description: 'abort (nothing stored) or skip (left out and reported)', defaultText: 'abort' },
    'report-bad-rows': { type: 'string', description: 'how many skipped bad rows to list', defaultText: '20' },
    'person-column': { type: 'string', description: 'privacy unit: the column identifying a person, who may have many rows (person-level)' },
    'row-level': { type: 'boolean', description: 'privacy unit: each row is a different person (the default)' },
    'per-person-columns': {
      type: 'string',
      description: 'person-level: columns that hold one value per person (e.g. department), comma-separated; checked over every row'
    }
  },
  async run(values, _pos, ctx) {
    const delimRaw = optString(values, 'delimiter')
    let delimiter: Delimiter | undefined
    if (delimRaw !== undefined) {
      delimiter = DELIMITER_WORDS[delimRaw.toLowerCase()]
      if (!delimiter) throw new UsageError(`--delimiter must be one of ",", tab, ";", bar (got "${delimRaw}")`)
    }
    if (values.append !== undefined) return appendRows(values, ctx, delimiter)
    if (values.dataset !== undefined) throw new UsageError('--dataset goes with --append F (a file of new rows for that dataset)')
    const file = resolve(ctx.cwd, reqString(values, 'file'))
    const types = parseTypeOverrides(optString(values, 'type'))
    const onBadRow = choice('on-bad-row', optString(values, 'on-bad-row') ?? 'abort', ['skip', 'abort'] as const)
    const report = optNumber(values, 'report-bad-rows', 20, { integer: true, ge: 0, le: 1000 })
    const personColumn = optString(values, 'person-column')
    if (personColumn !== undefined && values['row-level'])
      throw new UsageError('Give either --person-column NAME (person-level) or --row-level, not both')
    if (personColumn !== undefined && personColumn.trim() === '') throw new UsageError('--person-column needs the name of a column')
    return withStore(
      values,
      ctx,
      async (store) => {
        const perRaw = optString(values, 'per-person-columns')
        const perPersonColumns =
          perRaw === undefined
            ? undefined
            : perRaw
                .split(',')
                .map((c) => c.trim())
                .filter((c) => c !== '')
        const plan = planImport(store.db, {
          path: file,
          name: optString(values, 'name'),
          delimiter,
          types,
          onBadRow,
          reportBadRows: report,
          personColumn,
          perPersonColumns
        })
        const controller = new AbortController()
        const onSigint = () => controller.abort()
        process.once('SIGINT', onSigint)
        let last = Date.now() // first progress line after one second: quick imports and early errors print none
        try {
          const r = await runImport(store.db, plan, {
            signal: controller.signal,
            onProgress: (p) => {
              const now = Date.now()
              if (now - last >= 1000) {
                last = now
                ctx.progress(progressLine(p))
              }
            }
          })
          const d = r.dataset
          const lines = [
            `Imported ${d.rowCount.toLocaleString('en-US')} rows x ${d.columns.length} columns as dataset ${d.id} "${d.name}" in ${r.seconds.toFixed(1)} s`,
            `Columns: ${columnsText(d)}`,
            `Privacy unit: ${unitText(d.unit)}${d.unit.kind === 'row' && personColumn === undefined && !values['row-level'] ? ' (the default; --person-column NAME declares a person column)' : ''}`
          ]
          const declared = d.columns.filter((c) => c.perPerson === true && !(d.unit.kind === 'person' && c.name === d.unit.column)).map((c) => c.name)
          if (d.unit.kind === 'person') {
            lines.push(
              declared.length
                ? `Declared one value per person (checked; cells over them are accounted in parallel): ${declared.join(', ')}`
                : 'No column declared one value per person (--per-person-columns): cells over any column are charged as the whole dataset'
            )
          }
          if (r.badRowCount > 0) {
            lines.push(
              `Skipped ${r.badRowCount} bad row${r.badRowCount === 1 ? '' : 's'}${r.badRows.length ? `; the first ${r.badRows.length}:` : ''}`
            )
            for (const b of r.badRows) lines.push(`  line ${b.line}: ${b.reason}`)
          }
          return {
            json: {
              datasetId: d.id,
              name: d.name,
              rows: d.rowCount,
              columns: d.columns,
              unit: unitName(d.unit),
              unitKind: d.unit.kind,
              badRowCount: r.badRowCount,
              badRows: r.badRows,
              bytes: r.bytes,
              seconds: r.seconds
            },
            text: lines.join('\n')
          }
        } catch (e) {
          if (e instanceof CancelledError) throw new UserError('Import cancelled; nothing was stored', 'cancelled')
          throw e
        } finally {
          process.removeListener('SIGINT', onSigint)
        }
      },
      true
    )
  }
}

const datasetsCommand: CliCommand = {
  name: 'datasets',
  required: (_values, pos) => {
    const sub = pos[0] ?? 'list'
    return sub === 'list' ? [] : sub === 'rename' ? ['dataset', 'name'] : sub === 'public' ? ['dataset', 'reason'] : ['dataset']
  },
  summary: 'List, show, page through (public ones), rename, delete or declare public datasets',
  usage:
    'datasets [list|show|rows|rename|delete|public] --db PATH [--dataset ID|NAME] [--name NEW] [--offset N] [--limit N] [--reason TEXT [--officer NAME] [--passphrase-file F] (public)]',
  subcommands: ['list', 'show', 'rows', 'rename', 'delete', 'public'],
  options: {
    db: dbOption,
    dataset: { type: 'string', description: 'dataset id or name (show, rows, rename, delete)' },
    name: { type: 'string', description: 'new name (rename)' },
    reason: { type: 'string', description: 'why the dataset may be released (public; recorded in the ledger)' },
    ...OFFICER_OPTIONS,
    offset: { type: 'string', description: 'first row, 0-based (rows)', defaultText: '0' },
    limit: { type: 'string', description: 'number of rows (rows)', defaultText: '20' }
  },
  async run(values, pos, ctx) {
    const sub = pos[0] ?? 'list'
    // Declaring public is an officer act: the passphrase is read before the workspace is touched.
    const passphrase = sub === 'public' ? await readPassphrase(values, ctx, { label: "The privacy officer's passphrase" }) : undefined
    return withStore(values, ctx, async (store) => {
      const db = store.db
      switch (sub) {
        case 'list': {
          const list = listDatasets(db)
          const text = list.length
            ? list
                .map(
                  (d) =>
                    `${d.id}  ${d.name}  ${d.source === 'linked-postgres' ? `rows not counted (linked PostgreSQL ${d.sourceFile}, queried in place)` : d.source === 'linked-clickhouse' ? `rows not counted (linked ClickHouse ${d.sourceFile}, queried in place)` : `${d.rowCount.toLocaleString('en-US')} rows${d.source === 'linked-file' ? ` (linked file ${d.sourceFile}, queried in place)` : ''}`}  unit: ${unitName(d.unit)}  created ${d.createdAt}\n    ${columnsText(d)}`
                )
                .join('\n')
            : 'No datasets yet; add one with "import --file F".'
          return { json: { datasets: list }, text }
        }
        case 'show': {
          const d = resolveDataset(db, reqString(values, 'dataset')).info
          return {
            json: { dataset: d },
            text: `${d.id}  ${d.name}  ${d.source === 'linked-postgres' ? `rows not counted, in the linked PostgreSQL relation ${d.sourceFile} (queried in place)` : d.source === 'linked-clickhouse' ? `rows not counted, in the linked ClickHouse table ${d.sourceFile} (queried in place)` : `${d.rowCount} rows ${d.source === 'linked-file' ? `in the linked file ${d.sourceFile} (queried in place; rows when linked)` : `(${d.skippedRows} skipped at import) from ${d.sourceFile}`}`}\nPrivacy unit: ${unitText(d.unit)}\n${columnsText(d)}`
          }
        }
        case 'rows': {
          const d = resolveDataset(db, reqString(values, 'dataset'))
          const offset = optNumber(values, 'offset', 0, { integer: true, ge: 0 })
          const limit = optNumber(values, 'limit', 20, { integer: true, ge: 1, le: 1000 })
          const r = datasetRows(db, d.info.id, offset, limit)
          const text = [r.columns.map((c) => c.name).join('\t'), ...r.rows.map((row) => row.map(cellText).join('\t'))].join('\n')
          return { json: { ...r }, text }
        }
        case 'rename': {
          const d = resolveDataset(db, reqString(values, 'dataset'))
          const renamed = renameDataset(db, d.info.id, reqString(values, 'name'))
          return { json: { dataset: renamed }, text: `Dataset ${renamed.id} is now "${renamed.name}"` }
        }
        case 'delete': {
          const d = resolveDataset(db, reqString(values, 'dataset'))
          deleteDataset(db, d.info.id)
          return { json: { deleted: d.info.id, name: d.info.name }, text: `Deleted dataset ${d.info.id} "${d.info.name}" (its ledger history stays)` }
        }
        case 'public': {
          // An officer act (ALGORITHMS.md section 5): only a public dataset may supply values that reach a release.
          const d = resolveDataset(db, reqString(values, 'dataset'))
          const entry = declarePublic(db, {
            datasetId: d.info.id,
            reason: reqString(values, 'reason'),
            officer: optString(values, 'officer'),
            passphrase
          })
          return {
            json: { dataset: getDataset(db, d.info.id).info, ledgerSeq: entry.seq },
            text: `Dataset ${d.info.id} "${d.info.name}" is now public (ledger entry ${entry.seq}); its values may reach releases and its rows can be browsed`
          }
        }
        default:
          throw new UsageError(`unknown datasets subcommand "${sub}"`)
      }
    })
  }
}

/**
 * The smallest useful query file, shown by `query save --help`: it saves as it is on the demo workspace (a test runs it),
 * and the JSON Schema beside it in resources/schemas lists every field.
 */
export const QUERY_SAVE_EXAMPLE = {
  dataset: 'occupancy',
  name: 'Rooms with more than 12 people',
  definition: {
    kind: 'threshold',
    groupBy: ['room'],
    count: { kind: 'persons', personColumn: 'person_id', cap: 1 },
    threshold: { kind: 'constant', value: 12 },
    groups: [['A-101'], ['A-102'], ['A-201']]
  }
}

const querySaveNotes = [
  'The query file (--spec): {"dataset", "name", "definition"}, or a definition alone with --dataset and --name. A minimal one, rooms.json',
  '(on the demo workspace of "quiet-alarm demo"):',
  '',
  ...JSON.stringify(QUERY_SAVE_EXAMPLE, null, 2)
    .split('\n')
    .map((l) => `  ${l}`),
  '',
  '  quiet-alarm query save --db quiet-alarm-demo.sqlite --spec rooms.json',
  '',
  'Every field of the three kinds (threshold, anomaly-identification, anomaly-search), with their limits:',
  `  ${join(projectRoot(), 'resources', 'schemas', 'query.schema.json')}`,
  'Point "$schema" at it for completion in an editor. Columns, types and which datasets are public are checked when the query is saved.'
].join('\n')

const queryCommand: CliCommand = {
  name: 'query',
  required: (_values, pos) => (pos[0] === 'save' ? ['spec'] : pos[0] === 'show' || pos[0] === 'delete' ? ['id'] : []),
  summary: 'Save, list, show or delete saved query definitions (threshold, anomaly identification, anomaly search)',
  usage:
    'query [save|list|show|delete] --db PATH [--spec FILE.json] [--dataset ID|NAME] [--name N] [--replaces ID] [--id N]   (or --server URL --credential-file F [--ca-file CA] instead of --db)',
  subcommands: ['save', 'list', 'show', 'delete'],
  helpNotes: { save: querySaveNotes },
  options: {
    db: dbOption,
    ...REMOTE_OPTIONS,
    spec: { type: 'string', description: 'JSON file: {"dataset", "name", "definition"} or just a definition (save)' },
    dataset: { type: 'string', description: 'dataset id or name (save: overrides the spec; list: filter)' },
    name: { type: 'string', description: 'query name (save: overrides the spec)' },
    id: { type: 'string', description: 'saved query id (show, delete)' },
    replaces: { type: 'string', description: "save: the id of a saved query's latest version: save this as its next version (same dataset and kind)" }
  },
  async run(values, pos, ctx) {
    const sub = pos[0] ?? 'list'
    const remote = remoteTarget(values, ctx.cwd)
    if (remote) return remoteQuery(remote, sub, values, ctx)
    return withStore(values, ctx, async (store) => {
      const db = store.db
      switch (sub) {
        case 'save': {
          const { definition, dsRef, name, replaces } = querySpecFromFile(values, ctx)
          const q = saveQuery(db, resolveDataset(db, dsRef).info.id, name, definition, replaces)
          return { json: { query: q }, text: savedText(q) }
        }
        case 'list': {
          const ref = optString(values, 'dataset')
          const list = listQueries(db, ref === undefined ? undefined : resolveDataset(db, ref).info.id)
          return { json: { queries: list }, text: list.length ? list.map(queryText).join('\n') : 'No saved queries.' }
        }
        case 'show': {
          const q = getQuery(db, reqNumber(values, 'id', { integer: true, ge: 1 }))
          return { json: { query: q }, text: `${queryText(q)}\n${JSON.stringify(q.definition, null, 2)}` }
        }
        case 'delete': {
          const q = getQuery(db, reqNumber(values, 'id', { integer: true, ge: 1 }))
          deleteQuery(db, q.id)
          return { json: { deleted: q.id }, text: `Deleted saved query ${q.id} "${q.name}"` }
        }
        default:
          throw new UsageError(`unknown query subcommand "${sub}"`)
      }
    })
  }
}

export const datasetCommands: CliCommand[] = [importCommand, datasetsCommand, queryCommand]
