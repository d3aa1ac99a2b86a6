/**
 * Step 1 of a release: validate the request against the saved query and compute the charge, data-independently (the
 * mechanism's worst-case epsilon for the requested accuracy, times the sensitivity), the partition cells it touches and
 * the guarantee sentence. The returned `execute` runs the mechanism later, after the charge is committed.
 * Each kind's checks, price, guarantee and run live in its module under `kinds/`.
 */
import type Database from 'better-sqlite3'
import type { ReleaseParams } from '../../contract/ledger'
import { RELEASE_KIND_SPECS, isReleaseKind, isRequestedKind } from '../../contract/release-kinds'
import { UserError } from '../platform/errors'
import { type SavedQueryRow, loadSavedQuery } from './inputs'
import { getDataset } from '../catalog/catalog'
import { checkDefinition } from '../datasets/query-definitions'
import { checkLinkedSource } from '../sources/source'
import { readingCheckedFiles } from '../sources/linked-file'
import type { FileVersion } from '../sources/file-version'
import { sealSourceFingerprint } from '../trust/source-fingerprint'
import { type PreparedRelease, RELEASE_KINDS } from './kinds'

export type { ExecutionResult, PreparedRelease } from './kinds'

export function prepareRelease(db: Database.Database, queryId: number, params: ReleaseParams): PreparedRelease {
  const loaded = loadSavedQuery(db, queryId)
  const { datasetName } = loaded
  // The stored definition is checked again as saving checks it, against the dataset's unit now (a
  // definition written around the app, e.g. a search by room on a person-level dataset, was priced as if it were sound).
  const query = { ...loaded.query, definition: checkDefinition(db, getDataset(db, loaded.query.datasetId), loaded.query.definition) }
  if (!params || typeof params !== 'object') throw new UserError('params are required (the accuracy you ask for)')
  const asked = String(params.kind)
  if (!isRequestedKind(asked)) {
    throw new UserError(
      isReleaseKind(asked) ? `Releases of kind ${asked} are made by alarms (alarm run-due), not asked for` : `Unknown release kind "${asked}"`
    )
  }
  if (RELEASE_KIND_SPECS[asked].queryKind !== query.kind) {
    throw new UserError(`Query "${query.name}" is a ${query.kind} query; its release takes ${query.kind} parameters (got ${String(params.kind)})`)
  }
  // A linked file or PostgreSQL relation must be there with the schema it was linked with before anything is
  // charged (public metadata); its fingerprint now is recorded in the ledger entry's params, sealed to the officers.
  const source = checkLinkedSource(db, query.datasetId)
  const prepared = prepareKind(db, query, datasetName, params)
  if (source) prepared.publicParams = { ...prepared.publicParams, source: sealSourceFingerprint(db, query.datasetId, source) }
  // A linked file is read after the charge only as the version checked here (linked-file.ts `readingCheckedFiles`).
  const version = source && 'version' in source ? (source.version as FileVersion | undefined) : undefined
  const file = version ? { datasetId: query.datasetId, version } : null
  if (file) {
    const execute = prepared.execute
    prepared.execute = (rng) => readingCheckedFiles([file], () => execute(rng))
  }
  return prepared
}

function prepareKind(db: Database.Database, query: SavedQueryRow, datasetName: string, params: ReleaseParams): PreparedRelease {
  const kind = RELEASE_KINDS[params.kind]
  return (kind.prepare as (db: Database.Database, q: SavedQueryRow, name: string, p: ReleaseParams) => PreparedRelease)(
    db,
    query,
    datasetName,
    params
  )
}
