/**
 * Linking a CSV or Parquet file as a dataset: from the CLI by path, from the app behind a door's handle. The
 * read path of a linked file is sources/linked-file.ts.
 */
import { randomUUID } from 'node:crypto'
import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import type Database from 'better-sqlite3'
import type { CountedDatasetInfo } from '../../contract/datasets'
import { getDataset } from '../catalog/catalog'
import { type LinkUnitRequest, insertLinkedDataset, linkedPerPerson, newDatasetName, textIfBeyondSafe } from '../catalog/linked-catalog'
import { UserError } from '../platform/errors'
import { type LinkedFileSchemaColumn, catalogType, duckIdent, fileRelation, hasGlobCharacters } from '../sources/dialect-duckdb'
import { duckAll } from '../sources/duckdb-sync'
import { type FileFingerprint, fileIdentity, fingerprintFile, formatOf, readSchema } from '../sources/linked-file'
import { type WholeReadCheck, type WholeReadVerdict, beginFileReadsWhole } from '../sources/linked-file-whole'
import { recordAudit } from '../chain/ledger-chain'
import { refuseUnlessVerifies, writeCheckpoint } from '../trust/checkpoints'
import { signFileLink } from '../trust/link-signature'
import { type OfficerCredentials, type OfficerKey, beginOfficerUnlock, unlockOfficer } from '../trust/officers'

export interface LinkRequest extends LinkUnitRequest, OfficerCredentials {
  /** A path on this machine (CLI only). */
  file: string
}

/**
 * Links a CSV or Parquet file as a dataset (CLI only: it takes a path). An officer act: a refused officer is refused
 * before anything about the file is said, and the officer signs the link (its path, format, columns, unit and the file's
 * identity) and records it in the audit log with a checkpoint, so that the dataset cannot later be pointed at another
 * file with the workspace file alone (trust/link-signature.ts).
 */
export function linkFile(db: Database.Database, req: LinkRequest): CountedDatasetInfo {
  return linkFileAs(db, req, null)
}

/** `linkFile` by an officer whose key this act has unlocked already (`unlocked`), or who is unlocked here (null). */
function linkFileAs(db: Database.Database, req: LinkRequest, unlocked: OfficerKey | null): CountedDatasetInfo {
  const name = newDatasetName(db, req.name)
  const path = resolve(req.file)
  if (hasGlobCharacters(path)) {
    throw new UserError(
      `The path of a linked file may not contain *, ? or [ (they would be read as a pattern matching other files): rename the file or its folder and link it again`,
      'bad-input'
    )
  }
  const format = formatOf(path)
  // An unknown officer or a missing passphrase is refused here, before the file is touched. The passphrase's key
  // derivation (scrypt, on the KDF worker) runs while DuckDB starts, reads the schema and reads the file whole (its
  // threads). Whatever the file is, a wrong passphrase is refused first and alone; the file's own refusals come after.
  const unlock = unlocked === null ? beginOfficerUnlock(db, { officer: req.officer, passphrase: req.passphrase }) : { wait: () => unlocked }
  let examined: { file: ExaminedFile; check: WholeReadCheck } | { failure: unknown }
  try {
    const file = examineFile(path, req.file, format, req.personColumn)
    examined = { file, check: beginFileReadsWhole({ format, path, columns: file.columns }, file.fingerprint.version!) }
  } catch (e) {
    examined = { failure: e }
  }
  let key: OfficerKey
  let whole: WholeReadVerdict
  try {
    key = unlock.wait()
  } finally {
    // Taken before this returns or throws (the officer refused or not): DuckDB's bridge is free when the link ends.
    whole = 'check' in examined ? examined.check.wait() : null
  }
  if ('failure' in examined) throw examined.failure
  const { identity, fingerprint, columns, relation } = examined.file
  // Releases refuse a file that does not read whole (linked-file-whole.ts): the officer learns it now, with the reason.
  if (whole !== null) throw new UserError(`"${basename(path)}" cannot be linked: ${whole}`, 'bad-input')
  const run = (sql: string) => duckAll(sql).rows
  textIfBeyondSafe(
    columns.filter((c) => c.type === 'integer'),
    duckIdent,
    relation,
    'DOUBLE',
    run
  )
  const rowCount = Number(duckAll(`SELECT count(*) FROM ${relation}`).rows[0][0])
  const perPerson = linkedPerPerson(columns, req.personColumn, req.perPersonColumns ?? [])
  const id = insertLinkedDataset(db, {
    name,
    sourceFile: basename(path),
    sourceBytes: fingerprint.size,
    rowCount,
    columns,
    personColumn: req.personColumn,
    perPerson,
    writeSource: (dsId, datasetUid) => {
      refuseUnlessVerifies(db)
      const { signer, signature } = signFileLink(key, {
        datasetId: dsId,
        datasetUid,
        path,
        format,
        columns,
        personColumn: req.personColumn,
        identity
      })
      db.prepare(
        'INSERT INTO dataset_sources (dataset_id, kind, format, path, schema, fingerprint, identity, signer, signature) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)'
      ).run(dsId, 'linked-file', format, path, JSON.stringify(columns), JSON.stringify(fingerprint), identity, signer, signature)
      recordAudit(db, 'officer/link-file', key.name.slice(0, 100), `dataset:${dsId}`, { name, file: basename(path), format, datasetUid }, key)
      writeCheckpoint(db, key)
    }
  })
  return getDataset(db, id).info
}

interface ExaminedFile {
  /** The real path the file's path leads to (fileIdentity). */
  identity: string
  fingerprint: FileFingerprint
  columns: LinkedFileSchemaColumn[]
  /** DuckDB's relation of the file as releases read it. */
  relation: string
}

/** The file's identity, fingerprint and columns (its schema: no rows read); one sentence when it cannot be linked. */
function examineFile(path: string, given: string, format: 'parquet' | 'csv', personColumn: string | null): ExaminedFile {
  if (!existsSync(path) || !statSync(path).isFile()) throw new UserError(`There is no file "${given.slice(0, 200)}"`, 'not-found')
  const identity = fileIdentity(path)
  const fingerprint = fingerprintFile(path, format)
  let schema: Array<{ name: string; duckType: string }>
  try {
    schema = readSchema(format, path)
  } catch {
    throw new UserError(`"${basename(path)}" cannot be read as a ${format === 'parquet' ? 'Parquet' : 'CSV'} file`, 'bad-input')
  }
  if (schema.length === 0) throw new UserError(`"${basename(path)}" has no columns`, 'bad-input')
  const seen = new Set<string>()
  for (const c of schema) {
    if (c.name.trim() === '' || seen.has(c.name)) throw new UserError(`"${basename(path)}" has an empty or repeated column name`, 'bad-input')
    seen.add(c.name)
  }
  if (personColumn !== null && !seen.has(personColumn)) {
    const names = schema.map((c) => `"${c.name.slice(0, 80)}"`)
    const listed = names.length > 12 ? `${names.slice(0, 12).join(', ')} and ${names.length - 12} more` : names.join(', ')
    throw new UserError(
      `The person column "${personColumn.slice(0, 80)}" is not a column of the file, whose columns are ${listed}: choose one of them, or link row-level.`,
      'bad-input'
    )
  }
  const relation = fileRelation({ format, path, columns: format === 'csv' ? schema.map((c) => ({ ...c, type: 'text' as const })) : undefined })
  const columns: LinkedFileSchemaColumn[] = schema.map((c) => ({ ...c, type: catalogType(c.duckType) }))
  return { identity, fingerprint, columns, relation }
}

/** Where a linked upload is kept: a folder beside the workspace file. */
export function linkedUploadsDir(workspacePath: string): string {
  return `${workspacePath}.linked`
}

/**
 * Links the file behind a door's handle ("Link a file (query in place)" on the Datasets screen). A file chosen in the
 * desktop dialog is linked where it lies. A headless upload is the server's copy in its temporary folder (deleted when
 * the server stops): it is moved beside the workspace (`<workspace>.linked/<id>/<name>`) and linked there, so DuckDB
 * still reads it in place, without an import. If linking fails the upload is put back and nothing is kept.
 */
export function linkHandleFile(
  db: Database.Database,
  workspacePath: string,
  file: { path: string; fileName: string; owned: boolean },
  req: LinkUnitRequest & OfficerCredentials
): CountedDatasetInfo {
  if (!file.owned) return linkFile(db, { ...req, file: file.path })
  // Checked before the upload is moved (the same checks linkFile makes first); the key unlocked here signs the link.
  newDatasetName(db, req.name)
  formatOf(file.fileName)
  const key = unlockOfficer(db, { officer: req.officer, passphrase: req.passphrase })
  const dir = join(linkedUploadsDir(workspacePath), randomUUID())
  const kept = join(dir, basename(file.fileName))
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  let moved = true
  try {
    renameSync(file.path, kept)
  } catch {
    // Another file system (the upload folder is in the temporary directory): a copy; the upload is deleted on release.
    copyFileSync(file.path, kept)
    moved = false
  }
  try {
    return linkFileAs(db, { ...req, file: kept }, key)
  } catch (e) {
    if (moved) renameSync(kept, file.path)
    rmSync(dirname(kept), { recursive: true, force: true })
    throw e
  }
}
