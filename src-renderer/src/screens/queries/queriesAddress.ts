/**
 * Where the Queries screen stands, as its address: `#/queries/<dataset>?query=<id>&release=<id>`. The screen writes it
 * as the analyst chooses a question and releases, so that a reload (or a copied address) opens the same question's
 * accuracy panel with the answer last released under it. Pure: unit-tested under Node (test/unit/renderer/queries-address.test.ts).
 */
import { href } from '../../sections'

export interface QueriesPlace {
  datasetId: number | null
  queryId: number | null
  releaseId: number | null
}

const id = (s: string | null | undefined): number | null => (s && /^[1-9]\d{0,15}$/.test(s) ? Number(s) : null)

/** The place an address names; anything that is not a whole positive id reads as nothing chosen. */
export function queriesPlace(hash: string): QueriesPlace {
  const [path, search = ''] = hash.replace(/^#\/?/, '').split('?', 2)
  const parts = path.split('/')
  const params = new URLSearchParams(search)
  const onQueries = parts[0] === 'queries'
  return {
    datasetId: onQueries ? id(parts[1]) : null,
    queryId: onQueries ? id(params.get('query')) : null,
    releaseId: onQueries ? id(params.get('release')) : null
  }
}

/** The address of a place (a release is named only under its question, and a question only under its dataset). */
export function queriesHref(p: QueriesPlace): string {
  if (p.datasetId === null) return href('queries')
  const search = new URLSearchParams()
  if (p.queryId !== null) {
    search.set('query', String(p.queryId))
    if (p.releaseId !== null) search.set('release', String(p.releaseId))
  }
  const s = search.toString()
  return `${href('queries', p.datasetId)}${s === '' ? '' : `?${s}`}`
}
