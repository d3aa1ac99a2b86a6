/**
 * Linked files: a CSV or Parquet file registered in the catalog and queried in place by DuckDB, instead of
 * being copied into the workspace.
 *
 * - Linking reads the file's schema (column names and DuckDB types: public metadata), maps each type to a catalog type
 *   (integers beyond +-(2^53 - 1) make the column text, as an import does), counts the rows and, for a person-level
 *   dataset, checks over all rows which columns hold one value per person (as `recordPrivacyUnit` does at import).
 * - The path is given on the CLI (`quiet-alarm link`); the app links the file behind an opaque handle (the desktop
 *   dialog's file where it lies, or a headless upload kept beside the workspace: `linkHandleFile`); no door takes a path.
 * - What linking shows (row count, types read from a CSV's values, integers beyond 2^53 as text) is computed from the
 *   file's contents: the linker holds them (a file they name or choose on their own machine, or upload), so it tells
 *   them nothing new. A PostgreSQL relation is another matter (linked-postgres.ts: the declared schema only).
 * - Fingerprint: size, mtime, a SHA-256 of the Parquet footer (its metadata, with the schema and row-group
 *   statistics) or of the CSV's first 64 KiB (the header block), and the file version (file-version.ts: device, inode,
 *   size, mtime and ctime in ns, which a writer cannot put back). Each release on a linked dataset records the file's
 *   fingerprint at release time in its ledger entry (`params.source`).
 * - Before a release is charged, the file must exist and its schema must be the one linked (existence and schema are
 *   public metadata), and it must read whole (linked-file-whole.ts: a CSV one record per line, a Parquet file decoded in
 *   every row; scanned once per file version, the same verdict for every query); otherwise one sentence says what
 *   changed and nothing is charged. A file that changed its rows but not its schema is released on as it now is (its new
 *   fingerprint is recorded).
 * - After the charge, the release reads only the version it checked: the file's version is compared with it before
 *   each DuckDB read and after it (`readingCheckedFiles`); a file written meanwhile (a log still being appended) fails
 *   the release after its charge with the release service's neutral sentence (it depends on when the file was
 *   written, not on any value), instead of releasing on lines that were never checked.
 */
import { createHash } from 'node:crypto'
import { closeSync, existsSync, fstatSync, openSync, readSync, realpathSync } from 'node:fs'
import { basename, extname } from 'node:path'
import type Database from 'better-sqlite3'
import { UserError } from '../platform/errors'
import { type LinkedFile, type LinkedFileSchemaColumn, fileRelation, hasGlobCharacters } from './dialect-duckdb'
import { DuckDbError, duckAll, duckString } from './duckdb-sync'
import { fileLinkSignedByOfficer } from '../trust/link-signature'
import { CHANGED_WHILE_CHECKED, fileReadsWhole } from './linked-file-whole'
import { type FileVersion, fileVersionNow, sameVersion, versionOf } from './file-version'

export interface FileFingerprint {
  size: number
  mtimeMs: number
  /** SHA-256 (hex) of the Parquet footer or of the CSV header block. */
  hash: string
  /** The file version the hash was read from (absent in links recorded before it was kept). */
  version?: FileVersion
}

export interface LinkedFileRecord extends LinkedFile {
  datasetId: number
  datasetName: string
  /** When linked. */
  fingerprint: FileFingerprint
}

const CSV_HEADER_BLOCK = 64 * 1024

/**
 * What identifies the linked file beside its path: the real path it leads to (symbolic links resolved). A link in the
 * path redirected to another file is then refused; the file itself may be refreshed in place or by a rename (new rows,
 * same schema: released on as it now is, with its new fingerprint recorded).
 */
export function fileIdentity(path: string): string {
  return realpathSync(path)
}

/**
 * The linked file of a dataset, or null for an imported one. Every use goes through here: the stored link must be what
 * a privacy officer signed (its path, format, columns and unit), and the path must still lead to the real path signed;
 * otherwise one sentence, and the file is not read.
 */
export function linkedFileOf(db: Database.Database, datasetId: number): LinkedFileRecord | null {
  const row = db
    .prepare(
      `SELECT s.format, s.path, s.schema, s.fingerprint, s.identity, s.signer, s.signature, d.name, d.uid, u.person_column
         FROM dataset_sources s JOIN datasets d ON d.id = s.dataset_id LEFT JOIN dataset_units u ON u.dataset_id = s.dataset_id WHERE s.dataset_id = ?`
    )
    .get(datasetId) as
    | {
        format: 'parquet' | 'csv'
        path: string
        schema: string
        fingerprint: string
        identity: string | null
        signer: string | null
        signature: string | null
        name: string
        uid: string | null
        person_column: string | null
      }
    | undefined
  if (!row) return null
  const refused = (why: string) =>
    new UserError(`The file linked as dataset "${row.name}" ${why}; ask the privacy officer to link it again. Nothing was charged.`, 'source-changed')
  let columns: LinkedFileSchemaColumn[]
  let fingerprint: FileFingerprint
  try {
    columns = JSON.parse(row.schema) as LinkedFileSchemaColumn[]
    fingerprint = JSON.parse(row.fingerprint) as FileFingerprint
    if (!Array.isArray(columns)) throw new Error('columns')
  } catch {
    throw refused('is not the one a privacy officer signed (its link was changed in the workspace file)')
  }
  const link = {
    datasetId,
    datasetUid: row.uid,
    path: row.path,
    format: row.format,
    columns,
    personColumn: row.person_column,
    identity: row.identity ?? ''
  }
  // The catalog's columns (what definitions are checked against) must be the signed ones too.
  const catalog = db.prepare('SELECT name, type FROM dataset_columns WHERE dataset_id = ? ORDER BY position').all(datasetId) as Array<{
    name: string
    type: string
  }>
  const sameCatalog = catalog.length === columns.length && catalog.every((c, i) => c.name === columns[i].name && c.type === columns[i].type)
  if (!sameCatalog || !fileLinkSignedByOfficer(db, link, row.signer, row.signature)) {
    throw refused(
      row.signer === null
        ? 'was linked before links were signed by the privacy officer, or its link was changed in the workspace file'
        : 'is not the one a privacy officer signed (its path, columns or unit were changed in the workspace file)'
    )
  }
  if (existsSync(row.path)) {
    let now: string | null
    try {
      now = fileIdentity(row.path)
    } catch {
      now = null
    }
    if (now !== row.identity) throw refused(`(${basename(row.path)}) now leads to another file (a link in its path was changed)`)
  }
  return { datasetId, datasetName: row.name, format: row.format, path: row.path, columns, fingerprint }
}

export function formatOf(path: string): 'parquet' | 'csv' {
  const ext = extname(path).toLowerCase()
  if (ext === '.parquet' || ext === '.pq') return 'parquet'
  if (ext === '.csv') return 'csv'
  throw new UserError('A linked file must be a Parquet file (.parquet) or a CSV file with a header row (.csv)', 'bad-input')
}

/** The file's fingerprint (size, mtime, hash of the Parquet footer or the CSV header block). */
export function fingerprintFile(path: string, format: 'parquet' | 'csv'): FileFingerprint {
  const fd = openSync(path, 'r')
  try {
    const big = fstatSync(fd, { bigint: true })
    const st = { size: Number(big.size), mtimeMs: Number(big.mtimeMs) }
    const h = createHash('sha256')
    if (format === 'parquet') {
      // A Parquet file ends with the footer (metadata), its 4-byte little-endian length and "PAR1".
      const tail = Buffer.alloc(8)
      if (st.size < 12 || readSync(fd, tail, 0, 8, st.size - 8) !== 8 || tail.toString('latin1', 4) !== 'PAR1') {
        throw new UserError(`"${basename(path)}" is not a Parquet file (it has no Parquet footer)`, 'bad-input')
      }
      const len = tail.readUInt32LE(0)
      if (len > st.size - 12) throw new UserError(`"${basename(path)}" is not a Parquet file (its footer length is wrong)`, 'bad-input')
      const footer = Buffer.alloc(len)
      readSync(fd, footer, 0, len, st.size - 8 - len)
      h.update(footer)
    } else {
      const n = Math.min(CSV_HEADER_BLOCK, st.size)
      const head = Buffer.alloc(n)
      readSync(fd, head, 0, n, 0)
      h.update(head)
    }
    // Read before the hash: a write after it changes the ctime, so the version no longer matches (linked-file-whole.ts).
    return { size: st.size, mtimeMs: Math.floor(st.mtimeMs), hash: h.digest('hex'), version: versionOf(big) }
  } finally {
    closeSync(fd)
  }
}

/** The file's columns and DuckDB types (the schema: public metadata, no rows read for Parquet). */
export function readSchema(format: 'parquet' | 'csv', path: string): Array<{ name: string; duckType: string }> {
  // A CSV's types are sniffed from every row (at link time only; a release checks the header's names).
  const rel = format === 'parquet' ? fileRelation({ format, path }) : `read_csv(${duckString(path)}, header = true, sample_size = -1)`
  const r = duckAll(`DESCRIBE SELECT * FROM ${rel}`)
  return r.rows.map((row) => ({ name: String(row[0]), duckType: String(row[1]) }))
}

/**
 * A CSV's column names from its header row (public metadata: no rows read). The sniffer still looks at the first lines:
 * `ignore_errors` keeps one malformed line there from making it take the header for one column.
 */
function readHeaderNames(path: string): string[] {
  const r = duckAll(`DESCRIBE SELECT * FROM read_csv(${duckString(path)}, header = true, all_varchar = true, sample_size = 1, ignore_errors = true)`)
  return r.rows.map((row) => String(row[0]))
}

function sameSchema(a: Array<{ name: string; duckType: string }>, b: Array<{ name: string; duckType: string }>): boolean {
  return a.length === b.length && a.every((c, i) => c.name === b[i].name && c.duckType === b[i].duckType)
}

function schemaChange(linked: Array<{ name: string; duckType: string }>, now: Array<{ name: string; duckType: string }>): string {
  const byName = new Map(now.map((c) => [c.name, c.duckType]))
  for (const c of linked) {
    const t = byName.get(c.name)
    if (t === undefined) return `column "${c.name.slice(0, 80)}" is gone`
    if (t !== c.duckType) return `column "${c.name.slice(0, 80)}" changed type from ${c.duckType} to ${t}`
  }
  return 'its columns are not the ones it had (names or order changed)'
}

/**
 * Checks a linked dataset's file before a release is charged: it exists, has the schema it was linked with and reads
 * whole (a scan of the rows once per file version, whose verdict is the same for every query). Returns its fingerprint
 * now (for the ledger entry), or null for an imported dataset.
 */
export function checkLinkedFile(db: Database.Database, datasetId: number): (FileFingerprint & { format: string; file: string }) | null {
  const f = linkedFileOf(db, datasetId)
  if (!f) return null
  const file = basename(f.path)
  if (hasGlobCharacters(f.path)) {
    throw new UserError(
      `The file linked as dataset "${f.datasetName}" has *, ? or [ in its path, which would be read as a pattern matching other files; rename it and link it again. Nothing was charged.`,
      'source-changed'
    )
  }
  if (!existsSync(f.path)) {
    throw new UserError(
      `The file linked as dataset "${f.datasetName}" (${file}) is missing; put it back or link the dataset again. Nothing was charged.`,
      'source-changed'
    )
  }
  let schema: Array<{ name: string; duckType: string }>
  let fp: FileFingerprint
  try {
    fp = fingerprintFile(f.path, f.format)
    // Parquet: the schema in the footer. CSV: the header's names (its types come from rows: a value that no longer fits
    // its type reads as NULL).
    schema =
      f.format === 'parquet'
        ? readSchema(f.format, f.path)
        : readHeaderNames(f.path).map((name) => ({ name, duckType: f.columns.find((c) => c.name === name)?.duckType ?? '?' }))
  } catch (e) {
    if (e instanceof UserError)
      throw new UserError(`The file linked as dataset "${f.datasetName}" cannot be read: ${e.message}. Nothing was charged.`, 'source-changed')
    throw new UserError(
      `The file linked as dataset "${f.datasetName}" (${file}) cannot be read as a ${f.format === 'parquet' ? 'Parquet' : 'CSV'} file any more. Nothing was charged.`,
      'source-changed'
    )
  }
  if (!sameSchema(f.columns, schema)) {
    throw new UserError(
      `The file linked as dataset "${f.datasetName}" (${file}) has changed its schema: ${schemaChange(f.columns, schema)}; link it again as a new dataset. Nothing was charged.`,
      'source-changed'
    )
  }
  const verdict = fileReadsWhole(f, fp.version!)
  if (verdict === CHANGED_WHILE_CHECKED) {
    throw new UserError(
      `The file linked as dataset "${f.datasetName}" (${file}) changed while it was checked (it is being written); link a file that is no longer written, or try again once it is closed. Nothing was charged.`,
      'source-changed'
    )
  }
  // The same sentence for every query, and nothing about the rows (why and where is for the officer, at link time).
  if (verdict !== null) {
    throw new UserError(
      f.format === 'csv'
        ? `The file linked as dataset "${f.datasetName}" (${file}) no longer reads as one record per line (a quote left open, a line break inside a quoted value, a malformed line or a stray carriage return); releases on it run again once the file is repaired. Nothing was charged.`
        : `The file linked as dataset "${f.datasetName}" (${file}) no longer decodes whole (a text value that is not valid UTF-8, or a damaged page); releases on it run again once the file is repaired. Nothing was charged.`,
      'source-changed'
    )
  }
  return { format: f.format, file, ...fp }
}

/** The file versions the running release checked before its charge, by dataset (null: no release is reading). */
let checkedFiles: Map<number, FileVersion> | null = null

/**
 * Runs a release's reads (after its charge) on the file versions its check saw: each DuckDB read of a linked file in
 * `run` must find the file at its checked version before and after it (`assertCheckedVersion`). Releases run one at a
 * time per thread, synchronously from check to answer.
 */
export function readingCheckedFiles<T>(checked: Array<{ datasetId: number; version: FileVersion }>, run: () => T): T {
  const outer = checkedFiles
  checkedFiles = new Map(checked.map((c) => [c.datasetId, c.version]))
  try {
    return run()
  } finally {
    checkedFiles = outer
  }
}

/** Throws (one sentence, nothing about the rows) when a release is reading and `f` is no longer the version it checked. */
export function assertCheckedVersion(f: LinkedFileRecord): void {
  if (checkedFiles === null) return
  const checked = checkedFiles.get(f.datasetId)
  if (checked === undefined || !sameVersion(fileVersionNow(f.path), checked))
    throw new UserError(`The file linked as dataset "${f.datasetName}" (${basename(f.path)}) changed while it was read`, 'source-changed')
}

/** A read of a linked file failed (after the checks): one sentence, without DuckDB's message (which may quote rows). */
export function linkedFileFailure(f: LinkedFileRecord, e: unknown): Error {
  if (!(e instanceof DuckDbError)) return e as Error
  if (!existsSync(f.path))
    return new UserError(`The file linked as dataset "${f.datasetName}" (${basename(f.path)}) went missing while it was read`, 'source-changed')
  return new UserError(
    `The file linked as dataset "${f.datasetName}" (${basename(f.path)}) could not be read as linked (a value no longer fits its column's type, or the file changed while it was read)`,
    'source-changed'
  )
}
