/**
 * Preview of a file before import: the header, the first rows as text, and the types the import would infer
 * (from the same INFER_ROWS rows), plus bad rows among them. Reads only the beginning of the file.
 */
import type { BadRow, PreviewFileRequest, PreviewFileResponse } from '../../contract/datasets'
import { UserError } from '../platform/errors'
import { inferType } from '../catalog/column-types'
import { DELIMITERS, checkReadableFile, detectDelimiter, readCsv } from './csv-reader'
import { INFER_ROWS, checkHeader, makeRowChecker } from './import-dataset'

const DEFAULT_ROWS = 20
const MAX_ROWS = 200

/** The service's own form of the request: a path, which only the CLI and the file-handle registry supply. */
export type PreviewPathRequest = Omit<PreviewFileRequest, 'fileId'> & { path: string }

export async function previewFile(req: PreviewPathRequest): Promise<PreviewFileResponse> {
  if (!req || typeof req !== 'object') throw new UserError('Choose a file to preview', 'bad-input')
  const fileBytes = checkReadableFile(req.path)
  if (req.delimiter !== undefined && !(DELIMITERS as readonly string[]).includes(req.delimiter)) {
    throw new UserError('The delimiter must be a comma, tab, semicolon or bar', 'bad-input')
  }
  const want = req.rows ?? DEFAULT_ROWS
  if (!Number.isSafeInteger(want) || want < 1 || want > MAX_ROWS)
    throw new UserError(`rows must be a whole number from 1 to ${MAX_ROWS}`, 'bad-input')
  const delimiter = req.delimiter ?? detectDelimiter(req.path)
  let names: string[] | null = null
  const sample: Array<{ fields: string[]; line: number }> = []
  const summary = await readCsv(req.path, {
    delimiter,
    onRecord: (fields, line) => {
      if (names === null) {
        names = checkHeader(fields, line)
        return
      }
      sample.push({ fields, line })
      return sample.length < INFER_ROWS
    }
  })
  if (names === null) throw new UserError('The file has no header row (it contains only empty lines)', 'bad-file')
  const header: string[] = names
  if (sample.length === 0) throw new UserError('The file has a header row but no data rows; nothing to import', 'bad-file')
  const fitting = sample.filter((s) => s.fields.length === header.length)
  const types = header.map((_, i) => inferType(fitting.map((s) => s.fields[i])))
  const check = makeRowChecker(
    header,
    types,
    types.map(() => 'inferred'),
    delimiter
  )
  const badRows: BadRow[] = []
  for (const s of sample) {
    const r = check(s.fields)
    if (!Array.isArray(r)) badRows.push({ line: s.line, reason: r.reason.startsWith(': ') ? r.reason.slice(2) : r.reason })
  }
  return {
    delimiter,
    hasBom: summary.hasBom,
    fileBytes,
    columns: header.map((name, i) => ({ position: i + 1, name, inferredType: types[i] })),
    rows: sample.slice(0, want).map((s) => s.fields),
    inferredFromRows: fitting.length,
    badRows: badRows.slice(0, 50)
  }
}
