/**
 * Streaming CSV/TSV reading with csv-parse (stream API): RFC 4180 quoting, UTF-8 with or without BOM, delimiter
 * detected from the header line. Records are handed over one at a time with the physical line they start on;
 * parser errors become one sentence that names the line and says what to do.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs'
import { createReadStream } from 'node:fs'
import { basename } from 'node:path'
import { pipeline } from 'node:stream'
import { parse, type Parser } from 'csv-parse'
import type { Delimiter } from '../../contract/datasets'
import { CancelledError, UserError, isUserError } from '../platform/errors'
import { TextGuard } from './text-guard'

/** Longest row accepted (characters). Longer rows are nearly always a quote left open. */
export const MAX_ROW_CHARS = 1 << 20
export const DELIMITERS: readonly Delimiter[] = [',', '\t', ';', '|']

export function delimiterName(d: Delimiter): string {
  return d === '\t' ? 'tab' : `"${d}"`
}

/** Size of a readable regular file, or a UserError. */
export function checkReadableFile(path: string): number {
  if (typeof path !== 'string' || path.trim() === '') throw new UserError('Choose a file to import', 'bad-input')
  let st
  try {
    st = statSync(path)
  } catch {
    throw new UserError(`Cannot read ${basename(path)}: no such file`, 'not-found')
  }
  if (!st.isFile()) throw new UserError(`${basename(path)} is not a file; choose a CSV or TSV file`, 'bad-input')
  try {
    closeSync(openSync(path, 'r'))
  } catch {
    throw new UserError(`Cannot read ${basename(path)}: permission denied`, 'bad-input')
  }
  if (st.size === 0) throw new UserError('The file is empty; a CSV or TSV file needs a header row and at least one data row', 'bad-file')
  return st.size
}

/**
 * The delimiter of the header line: the most frequent of tab, comma, semicolon and bar outside quotes
 * (ties in that order). A header without any of them is one column (comma).
 */
export function detectDelimiter(path: string): Delimiter {
  const fd = openSync(path, 'r')
  const buf = Buffer.alloc(64 * 1024)
  let n: number
  try {
    n = readSync(fd, buf, 0, buf.length, 0)
  } finally {
    closeSync(fd)
  }
  let text = buf.subarray(0, n).toString('utf8')
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
  const counts = new Map<string, number>()
  let quoted = false
  for (const ch of text) {
    if (ch === '"') quoted = !quoted
    else if (!quoted && (ch === '\n' || ch === '\r')) break
    else if (!quoted && (DELIMITERS as readonly string[]).includes(ch)) counts.set(ch, (counts.get(ch) ?? 0) + 1)
  }
  let best: Delimiter = ','
  let bestCount = 0
  for (const d of ['\t', ',', ';', '|'] as Delimiter[]) {
    const c = counts.get(d) ?? 0
    if (c > bestCount) {
      best = d
      bestCount = c
    }
  }
  return best
}

export interface ReadProgress {
  bytes: number
  records: number
}

export interface ReadOptions {
  delimiter: Delimiter
  signal?: AbortSignal
  /** Called with each record and the line it starts on; return false to stop reading early (not an error). */
  onRecord: (fields: string[], line: number) => boolean | void
  /** Called after each chunk of the file. */
  onChunk?: (p: ReadProgress) => void
}

export interface ReadSummary {
  bytes: number
  records: number
  hasBom: boolean
  stoppedEarly: boolean
}

/** Streams the file through the text guard and csv-parse; resolves when done or stopped, rejects with a UserError. */
export function readCsv(path: string, options: ReadOptions): Promise<ReadSummary> {
  return new Promise((resolve, reject) => {
    const file = createReadStream(path, { highWaterMark: 1 << 20 })
    const guard = new TextGuard()
    const parser: Parser = parse({
      delimiter: options.delimiter,
      bom: true,
      relax_column_count: true,
      skip_empty_lines: true,
      max_record_size: MAX_ROW_CHARS
    })
    let finished = false
    let records = 0
    let prevLines = 0
    let prevEmpty = 0
    const finish = (err: unknown, stoppedEarly = false) => {
      if (finished) return
      finished = true
      options.signal?.removeEventListener('abort', onAbort)
      if (err !== null) {
        file.destroy()
        guard.destroy()
        parser.destroy()
        reject(err)
      } else {
        if (stoppedEarly) {
          file.destroy()
          guard.destroy()
          parser.destroy()
        }
        resolve({ bytes: guard.bytes, records, hasBom: guard.hasBom, stoppedEarly })
      }
    }
    const onAbort = () => finish(new CancelledError())
    if (options.signal?.aborted) {
      finish(new CancelledError())
      return
    }
    options.signal?.addEventListener('abort', onAbort, { once: true })
    pipeline(file, guard, parser, (err) => {
      if (err) finish(describeParseError(err, prevLines + 1 + (parser.info.empty_lines - prevEmpty)))
    })
    file.on('data', () => {
      // Progress once per chunk read (the records of the chunk are being handled synchronously).
      if (!finished && options.onChunk) {
        try {
          options.onChunk({ bytes: guard.bytes, records })
        } catch (e) {
          finish(e)
        }
      }
    })
    // 'data' events arrive synchronously while the parser works through a chunk, so parser.info is the state right
    // after this record: `lines` is the line the record ends on.
    parser.on('data', (fields: string[]) => {
      if (finished) return
      const info = parser.info
      const start = prevLines + 1 + (info.empty_lines - prevEmpty)
      prevLines = info.lines
      prevEmpty = info.empty_lines
      records++
      try {
        if (options.onRecord(fields, start) === false) finish(null, true)
      } catch (e) {
        finish(e)
      }
    })
    parser.on('end', () => finish(null))
  })
}

interface CsvErrorLike {
  code?: string
  lines?: number
  message?: string
}

/** One sentence for the user. `recordStart` is the line where the record being parsed began. */
export function describeParseError(err: unknown, recordStart: number): Error {
  if (isUserError(err) || err instanceof CancelledError) return err as Error
  const e = err as CsvErrorLike
  const line = typeof e.lines === 'number' ? e.lines : recordStart
  switch (e.code) {
    case 'CSV_QUOTE_NOT_CLOSED':
      return new UserError(
        `A quoted field opened on line ${recordStart} or later is never closed; close the quote (inside a quoted field write "" for a quote)`,
        'bad-file'
      )
    case 'CSV_MAX_RECORD_SIZE':
      return new UserError(
        `The row starting on line ${recordStart} is longer than ${MAX_ROW_CHARS / (1 << 20)} MiB; a quote may be left open, or a field is too large to import`,
        'bad-file'
      )
    case 'INVALID_OPENING_QUOTE':
    case 'CSV_INVALID_OPENING_QUOTE':
      return new UserError(
        `Line ${line} has a quote inside an unquoted field; quote the whole field and write "" for each quote inside it (RFC 4180)`,
        'bad-file'
      )
    case 'CSV_INVALID_CLOSING_QUOTE':
    case 'CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE':
      return new UserError(
        `Line ${line} has text right after a closing quote; a quoted field must end at a delimiter or the end of the line (write "" for a quote inside it)`,
        'bad-file'
      )
    default:
      if ((err as NodeJS.ErrnoException)?.code === 'ENOENT' || (err as NodeJS.ErrnoException)?.code === 'EACCES') {
        return new UserError('The file cannot be read any more (was it moved or deleted?)', 'bad-file')
      }
      if (typeof e.code === 'string' && e.code.startsWith('CSV_')) {
        return new UserError(`Line ${line} cannot be read as CSV (${e.code.toLowerCase().replace(/^csv_/, '').replace(/_/g, ' ')})`, 'bad-file')
      }
      return err instanceof Error ? err : new Error(String(err))
  }
}
