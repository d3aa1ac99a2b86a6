/**
 * What a file to link holds, before it is linked: its columns with the catalog type each would get, and its first
 * rows as text, so that the privacy unit is chosen among the file's columns (as an import's preview does). The file is
 * the linker's own (chosen in their dialog or uploaded by them): showing it tells them nothing new. Nothing is stored.
 * A CSV's types are read from its first rows here (linking reads every row).
 */
import { basename } from 'node:path'
import type { LinkFilePreview } from '../../contract/datasets'
import { UserError } from '../platform/errors'
import { catalogType, duckIdent, fileRelation, hasGlobCharacters } from '../sources/dialect-duckdb'
import { duckAll, duckString } from '../sources/duckdb-sync'
import { formatOf } from '../sources/linked-file'

const PREVIEW_ROWS = 10

export function previewLinkFile(file: { path: string; fileName: string }, rows = PREVIEW_ROWS): LinkFilePreview {
  const format = formatOf(file.fileName)
  if (hasGlobCharacters(file.path)) {
    throw new UserError('The path of a linked file may not contain *, ? or [: rename the file or its folder and choose it again', 'bad-input')
  }
  const name = basename(file.fileName)
  const typed = format === 'parquet' ? fileRelation({ format, path: file.path }) : `read_csv(${duckString(file.path)}, header = true)`
  // A CSV's rows as written in the file; a Parquet file's values as text.
  const asText = format === 'parquet' ? typed : `read_csv(${duckString(file.path)}, header = true, all_varchar = true)`
  let schema: Array<{ name: string; duckType: string }>
  let shown: string[][]
  try {
    schema = duckAll(`DESCRIBE SELECT * FROM ${typed}`).rows.map((r) => ({ name: String(r[0]), duckType: String(r[1]) }))
    const cells = schema.map((c) => `CAST(${duckIdent(c.name)} AS VARCHAR)`).join(', ')
    const limit = Math.max(0, Math.min(rows, 50))
    shown =
      schema.length === 0 ? [] : duckAll(`SELECT ${cells} FROM ${asText} LIMIT ${limit}`).rows.map((r) => r.map((v) => (v === null ? '' : String(v))))
  } catch {
    throw new UserError(`"${name}" cannot be read as a ${format === 'parquet' ? 'Parquet' : 'CSV'} file`, 'bad-input')
  }
  if (schema.length === 0) throw new UserError(`"${name}" has no columns`, 'bad-input')
  return { format, columns: schema.map((c) => ({ name: c.name, type: catalogType(c.duckType) })), rows: shown }
}
