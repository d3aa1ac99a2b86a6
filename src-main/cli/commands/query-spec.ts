/** What `query` reads and prints, on a workspace file and on a service alike. */
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import type { SavedQuery } from '../../contract/datasets'
import { type CliContext, type CliValues, UsageError, optString, reqNumber, reqString } from '../command'

export function queryText(q: SavedQuery): string {
  const version = q.version > 1 ? `  version ${q.version} of query ${q.firstVersionId}` : ''
  return `${q.id}  ${q.name}  ${q.kind} on dataset ${q.datasetId}${version}  saved ${q.createdAt}`
}

/** `query save`'s inputs: the spec file (a definition, or {dataset, name, definition}) and the options that override it. */
export function querySpecFromFile(
  values: CliValues,
  ctx: Pick<CliContext, 'cwd'>
): { definition: unknown; dsRef: string; name: string; replaces: number | undefined } {
  const path = resolve(ctx.cwd, reqString(values, 'spec'))
  let spec: unknown
  try {
    spec = JSON.parse(readFileSync(path, 'utf8'))
  } catch (e) {
    throw new UsageError(`--spec must be a readable JSON file (${(e as Error).message.split('\n')[0].slice(0, 120)})`)
  }
  if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) throw new UsageError('--spec must hold a JSON object')
  const obj = spec as Record<string, unknown>
  const wrapped = 'definition' in obj
  const definition = wrapped ? obj.definition : obj
  const dsRef = optString(values, 'dataset') ?? (wrapped && obj.dataset !== undefined ? String(obj.dataset) : undefined)
  if (dsRef === undefined) throw new UsageError('say which dataset the query is over: --dataset ID|NAME or "dataset" in the spec')
  const name = optString(values, 'name') ?? (wrapped && typeof obj.name === 'string' ? obj.name : undefined)
  if (name === undefined) throw new UsageError('give the query a name: --name N or "name" in the spec')
  const replaces = optString(values, 'replaces') === undefined ? undefined : reqNumber(values, 'replaces', { integer: true, ge: 1 })
  return { definition, dsRef, name, replaces }
}

export function savedText(q: SavedQuery): string {
  const what = q.version > 1 ? `query ${q.id} "${q.name}", version ${q.version} of query ${q.firstVersionId}` : `query ${q.id} "${q.name}"`
  return `Saved ${what} (${q.kind}) on dataset ${q.datasetId}`
}
