import { declarePublic } from './declare-public'
import type { CountedDatasetInfo, DatasetInfo, DatasetMethods, LinkPostgresRequest, PostgresConnectionRequest } from '../../contract/datasets'
import type { Principal } from '../../contract/accounts'
import { ownRecordsOnly } from '../accounts/roles'
import { analystTimes } from '../platform/shown-time'
import type { HandlerMap, ServiceContext } from '../platform/handler-types'
import { FileHandles } from '../platform/file-handles'
import { datasetRows, deleteDataset, getDataset, listDatasets, renameDataset } from '../catalog/catalog'
import { planImport, runImport } from './import-dataset'
import { previewFile } from './preview-file'
import { planAppend, runAppend } from './append-dataset'
import { deleteQuery, getQuery, listQueries, queryVersions, saveQuery } from './query-store'
import { dropOrphanStagingTables } from '../store/staging'
import { listPostgresRelations } from './link-postgres'
import { unlockOfficer } from '../trust/officers'
import { linkHandleFile } from './link-file'
import { listClickHouseTables } from './link-clickhouse'
import { WAREHOUSES, type WarehouseId } from './warehouses'
import { previewLinkFile } from './link-file-preview'

/**
 * A dataset as `caller` may read it: an analyst account of the service does not receive a private dataset's exact
 * counts (rows, skipped rows, bytes of its source), each an answer about its records with no noise.
 */
export function datasetForReader(info: CountedDatasetInfo, caller: Principal | undefined): DatasetInfo {
  if (info.public || ownRecordsOnly(caller) === null) return info
  const { rowCount: _rows, skippedRows: _skipped, sourceBytes: _bytes, ...rest } = info
  return rest
}

/** Handlers of the datasets area's contract (datasets, linked sources, saved queries): each hands its request to its service. */
export function datasetsHandlers(ctx: ServiceContext): HandlerMap<DatasetMethods> {
  const db = ctx.store.db
  // A door names files by opaque handles (desktop dialog, headless upload), never by a path.
  const files = (ctx.files ??= new FileHandles())
  // A crash during an import leaves an orphan staging table, never a partial dataset: dropped on start.
  dropOrphanStagingTables(db)
  // A database server from a door (PostgreSQL and ClickHouse requests have the same fields): only this machine or the hosts the server lists for the engine, and only by the
  // privacy officer (the password is the server's and goes to the URL's host).
  const officerAtDoor = (engine: WarehouseId, r: PostgresConnectionRequest) => {
    const w = WAREHOUSES[engine]
    w.checkDoorHost(w.checkUrl(r.url))
    unlockOfficer(db, { officer: r.officer, passphrase: r.passphrase })
    return { url: r.url, passwordEnv: r.passwordEnv }
  }
  // The link is the officer's act itself (it checks the credentials before any connection).
  const linkAtDoor = (engine: WarehouseId, r: LinkPostgresRequest) => {
    const w = WAREHOUSES[engine]
    w.checkDoorHost(w.checkUrl(r.url))
    return w.link(db, { ...r, personColumn: r.personColumn ?? null, perPersonColumns: r.perPersonColumns ?? [] })
  }
  return {
    'datasets/preview-file': async (r) => {
      const f = files.resolve(r.fileId)
      return previewFile({ delimiter: r.delimiter, rows: r.rows, path: f.path })
    },
    'datasets/import': async (r) => {
      const { fileId, ...rest } = r
      const f = files.resolve(fileId)
      const plan = planImport(db, { ...rest, path: f.path, sourceName: f.fileName })
      // Progress in rows; the total is estimated from the bytes read until the end (then exact). The bytes read and the
      // file's size go along as the detail (exact: the bar and the time left follow them).
      const job = ctx.jobs.start('import', `Import ${plan.sourceName} as "${plan.name}"`, 'rows', (jc) =>
        runImport(db, plan, {
          signal: jc.signal,
          onProgress: (p) => {
            const estimate = p.bytes > 0 ? Math.max(p.rows, Math.round((p.rows * p.totalBytes) / p.bytes)) : 0
            jc.progress(p.rows, p.bytes >= p.totalBytes ? p.rows : estimate, { bytesDone: p.bytes, bytesTotal: Math.max(p.bytes, p.totalBytes) })
          }
        })
      )
      return { jobId: job.jobId }
    },
    // Rows added to an imported dataset: all or none, one transaction (append-dataset.ts).
    'datasets/append': async (r) => {
      const f = files.resolve(r.fileId)
      return runAppend(db, planAppend(db, { datasetId: r.datasetId, path: f.path, sourceName: f.fileName, delimiter: r.delimiter }))
    },
    // A file linked in place: the dialog's file where it lies, or an upload kept beside the workspace.
    'datasets/link-file': async (r) => {
      const f = files.resolve(r.fileId)
      const info = linkHandleFile(db, ctx.store.path, f, {
        name: r.name,
        personColumn: r.personColumn ?? null,
        officer: r.officer,
        passphrase: r.passphrase
      })
      if (f.owned) files.release(r.fileId)
      return info
    },
    'datasets/link-file-preview': async (r) => previewLinkFile(files.resolve(r.fileId)),
    'datasets/postgres-relations': async (r) => ({ relations: listPostgresRelations(officerAtDoor('postgres', r)) }),
    'datasets/link-postgres': async (r) => linkAtDoor('postgres', r),
    'datasets/clickhouse-tables': async (r) => ({ tables: listClickHouseTables(officerAtDoor('clickhouse', r)) }),
    'datasets/link-clickhouse': async (r) => linkAtDoor('clickhouse', r),
    'datasets/list': async (_r, caller) => listDatasets(db).map((d) => datasetForReader(d, caller)),
    'datasets/get': async (r, caller) => datasetForReader(getDataset(db, r.datasetId).info, caller),
    'datasets/rows': async (r) => datasetRows(db, r.datasetId, r.offset ?? 0, r.limit ?? 50),
    'datasets/rename': async (r) => renameDataset(db, r.datasetId, r.name),
    'datasets/delete': async (r) => {
      deleteDataset(db, r.datasetId)
      return { deleted: true as const }
    },
    'datasets/declare-public': async (r) => {
      declarePublic(db, { datasetId: r.datasetId, reason: r.reason, officer: r.officer, passphrase: r.passphrase })
      return getDataset(db, r.datasetId).info
    },
    'queries/save': async (r, caller) =>
      analystTimes(saveQuery(db, r.datasetId, r.name, r.definition, r.replaces), ownRecordsOnly(caller), ctx.cadenceMs),
    'queries/list': async (r, caller) => analystTimes(listQueries(db, r.datasetId), ownRecordsOnly(caller), ctx.cadenceMs),
    'queries/get': async (r, caller) => analystTimes(getQuery(db, r.queryId), ownRecordsOnly(caller), ctx.cadenceMs),
    'queries/versions': async (r, caller) => analystTimes(queryVersions(db, r.queryId), ownRecordsOnly(caller), ctx.cadenceMs),
    'queries/delete': async (r) => {
      deleteQuery(db, r.queryId)
      return { deleted: true as const }
    }
  }
}
