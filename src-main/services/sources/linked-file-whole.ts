/**
 * A linked file reads whole before anything is charged on it: the check of one file version (its fingerprint), the same
 * for every query, so that no value in one row can change another row's contribution or fail a release after its charge.
 *
 * - CSV: every line after the header is exactly one record. DuckDB's release read (`fileRelation(f, true)`) must yield
 *   one row per non-empty line, with no carriage return that ends no line, and the scan must not fail. The release read
 *   keeps a quote closed early (`"R1"x`) within its line, but a quote left open (`"R1`) still makes DuckDB drop every
 *   line after it, and a quoted value holding a line break joins the lines up to the next quote to one record: either
 *   would let one person's value remove or swallow other people's rows. A carriage return inside a value past DuckDB's
 *   sample fails its reader outright. All of these are found here, before the charge.
 * - Parquet: every column of every row group decodes (text through the release path's expression, `storedExpr`): a
 *   string that is not valid UTF-8, or a page that cannot be decoded, fails DuckDB only for the rows a query's filter
 *   reads, so it is found here over all rows instead.
 *
 * A file that does not read whole is refused before the charge for every query alike (one sentence, nothing about the
 * rows); linking refuses it with the reason. The verdict is about one file version (file-version.ts: device, inode,
 * size, mtime and ctime in ns, which a writer cannot put back): the file must be that version before and after the scan,
 * and a verdict from a completed scan is remembered under it (whether it reads whole or not), so a version is scanned
 * once, not at every release or preview. A scan that could not read the file is not remembered (a passing fault).
 */
import { closeSync, openSync, readSync } from 'node:fs'
import { type LinkedFile, duckIdent, fileRelation, storedExpr } from './dialect-duckdb'
import { DuckDbError, duckBegin } from './duckdb-sync'
import { type FileVersion, fileVersionNow, sameVersion } from './file-version'

/** Why a file does not read whole (for the officer who links it: it may name counts of lines), or null when it does. */
export type WholeReadVerdict = string | null

/** The verdict when the file was not the checked version before or after the scan (it is being written). */
export const CHANGED_WHILE_CHECKED = 'it changed while it was checked (it is being written)'

/** Verdicts of completed scans, by format, path, columns and file version (the oldest dropped beyond KEPT_VERSIONS). */
const verdicts = new Map<string, WholeReadVerdict>()
const KEPT_VERSIONS = 64
let scans = 0

/** How many scans this thread has run (each file version is scanned once while it is kept). */
export function wholeReadScans(): number {
  return scans
}

interface ScanResult {
  verdict: WholeReadVerdict
  /** False when the file could not be read (open or read failed): the verdict is not kept. */
  complete: boolean
}

/** A whole-read check under way (DuckDB reads the file on its threads meanwhile): `wait()` gives its verdict. */
export interface WholeReadCheck {
  /** Waits for the scan (blocking) and gives the verdict `fileReadsWhole` gives (it never throws); the same verdict every time. */
  wait(): WholeReadVerdict
}

/** The verdict for this file version (`version`: as the file was stat'ed when its fingerprint was taken). */
export function fileReadsWhole(f: LinkedFile, version: FileVersion): WholeReadVerdict {
  return beginFileReadsWhole(f, version).wait()
}

/**
 * Starts the check of `fileReadsWhole` and returns at once. Until its `wait()`, DuckDB's bridge is busy: a later
 * DuckDB call first waits for this scan.
 */
export function beginFileReadsWhole(f: LinkedFile, version: FileVersion): WholeReadCheck {
  const key = JSON.stringify([f.format, f.path, f.columns, version])
  const kept = verdicts.get(key)
  if (kept !== undefined) return settled(kept)
  if (!sameVersion(fileVersionNow(f.path), version)) return settled(CHANGED_WHILE_CHECKED)
  scans++
  const scan = f.format === 'csv' ? beginCsvScan(f) : beginParquetScan(f)
  let verdict: WholeReadVerdict | undefined
  return {
    wait() {
      if (verdict !== undefined) return verdict
      const done = scan()
      // The scan read the path by name: its verdict is about `version` only if the path led to it before and after.
      if (!sameVersion(fileVersionNow(f.path), version)) verdict = CHANGED_WHILE_CHECKED
      else {
        if (done.complete) {
          if (verdicts.size >= KEPT_VERSIONS) verdicts.delete(verdicts.keys().next().value as string)
          verdicts.set(key, done.verdict)
        }
        verdict = done.verdict
      }
      return verdict
    }
  }
}

function settled(verdict: WholeReadVerdict): WholeReadCheck {
  return { wait: () => verdict }
}

/**
 * A DuckDB failure that is about reading the file (kept out of the verdicts), not about what it holds: DuckDB's I/O,
 * memory, interrupt and internal errors, and the bridge's (a stalled or lost DuckDB thread). Only a verdict the bytes
 * decide is remembered for a file version.
 */
export function ioFailure(e: unknown): boolean {
  return (
    !(e instanceof DuckDbError) ||
    /^(IO Error|Out of Memory Error|INTERRUPT Error|Interrupt Error|FATAL Error|INTERNAL Error|DuckDB )/i.test(e.message)
  )
}

/** Starts DuckDB's count of the records; the lines are counted on this thread while DuckDB counts. */
function beginCsvScan(f: LinkedFile): () => ScanResult {
  const count = duckBegin(`SELECT count(*) FROM ${fileRelation(f, true)}`)
  return () => {
    let lines: CsvLines | null
    try {
      lines = csvLines(f.path)
    } catch {
      lines = null
    }
    // Taken in every case: DuckDB's bridge is free again when the verdict is given.
    let records: number | { failed: unknown }
    try {
      records = Number(count.wait().rows[0][0])
    } catch (e) {
      records = { failed: e }
    }
    if (lines === null) return { verdict: 'it cannot be read to its end', complete: false }
    // A carriage return that ends no line would let DuckDB split one line into two records, and so hide a record that
    // swallows two lines from the count below.
    if (lines.loneCarriageReturns > 0)
      return { verdict: 'a carriage return that does not end a line (inside a value, or old Mac line ends)', complete: true }
    // DuckDB reads an empty line of a one-column file as a record (NULL), and skips it otherwise.
    if (f.columns.length === 1 && lines.empty > 0) return { verdict: 'an empty line in a file of one column', complete: true }
    if (typeof records !== 'number') {
      return { verdict: 'DuckDB cannot read it line by line (line ends that change within the file)', complete: !ioFailure(records.failed) }
    }
    if (records === lines.data) return { verdict: null, complete: true }
    const verdict = `its ${lines.data.toLocaleString('en-US')} lines after the header read as ${records.toLocaleString('en-US')} records: a line is not one record of its columns (a quote not closed on its line, a line break inside a quoted value, a line with too few values or too long, or a delimiter other than a comma)`
    return { verdict, complete: true }
  }
}

export interface CsvLines {
  /** Lines after the header that hold anything: line feeds end lines (a carriage return right before one belongs to it). */
  data: number
  /** Empty lines ended by a line feed. */
  empty: number
  /** Carriage returns not followed by a line feed. */
  loneCarriageReturns: number
}

/** Counts a CSV file's lines as `csvReadsWhole` compares them with DuckDB's records: an empty line is none, a last line without a line feed is one. */
export function csvLines(path: string): CsvLines {
  const fd = openSync(path, 'r')
  const buf = Buffer.allocUnsafe(1 << 20)
  let lines = 0
  let empty = 0
  let carriageReturns = 0
  let crlf = 0
  // The current line's length so far, and whether its last byte is a carriage return.
  let length = 0
  let lastCr = false
  const endLine = (lineFeed: boolean) => {
    if (length > (lastCr ? 1 : 0)) lines++
    else if (lineFeed) empty++
    if (lastCr && lineFeed) crlf++
    length = 0
    lastCr = false
  }
  try {
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null)
      if (n === 0) break
      const chunk = n === buf.length ? buf : buf.subarray(0, n)
      for (let k = chunk.indexOf(13); k !== -1; k = chunk.indexOf(13, k + 1)) carriageReturns++
      let i = 0
      while (i < n) {
        const j = chunk.indexOf(10, i)
        const end = j === -1 ? n : j
        if (end > i) {
          length += end - i
          lastCr = chunk[end - 1] === 13
        }
        if (j === -1) break
        endLine(true)
        i = j + 1
      }
    }
    endLine(false)
  } finally {
    closeSync(fd)
  }
  // The header is the first line.
  return { data: Math.max(0, lines - 1), empty, loneCarriageReturns: carriageReturns - crlf }
}

function beginParquetScan(f: LinkedFile): () => ScanResult {
  // Every value of every column decoded: text through the release path's expression (a conversion to text, where the
  // UTF-8 check happens) by its length; others as they are stored, by a hash of each value (their release expressions
  // are total on a decoded value: dialect.ts, duckdb-stored-values.test.ts). Not a count or a min/max: DuckDB answers
  // those from the footer without reading the pages.
  const reads = f.columns.map((c) => (c.type === 'text' ? `sum(strlen(${storedExpr(c)}))` : `bit_xor(hash(${duckIdent(c.name)}))`))
  const read = duckBegin(`SELECT ${reads.join(', ')} FROM ${fileRelation(f)}`)
  return () => {
    try {
      read.wait()
      return { verdict: null, complete: true }
    } catch (e) {
      return { verdict: 'DuckDB cannot decode all of its rows (a text value that is not valid UTF-8, or a damaged page)', complete: !ioFailure(e) }
    }
  }
}
