/**
 * The store commands on a service (`--server URL --credential-file F [--ca-file CA]`): the same options, the same JSON
 * and text as on a workspace file, made of contract calls as the credential's account. What the account may not do is
 * refused by the service (one sentence, code `forbidden`, exit 2, nothing written).
 */
import type { DatasetInfo, QueryDefinition } from '../../contract/datasets'
import type { ReleaseParams } from '../../contract/ledger'
import type { ServiceClient } from '../../client/service-client'
import { UserError } from '../../services'
import { entriesText, previewText, releaseText, summaryText } from '../../services/local'
import { type CliContext, type CliResult, type CliValues, UsageError, optNumber, optString, reqNumber, reqString } from '../command'
import { remoteCall } from '../remote'
import { queryText, querySpecFromFile, savedText } from './query-spec'

/** A dataset named by id or name, as the account sees the catalog. */
async function remoteDataset(client: ServiceClient, ref: string): Promise<DatasetInfo> {
  const list = await remoteCall(client, 'datasets/list', {})
  const r = ref.trim()
  const hit = list.find((d) => d.name === r) ?? (/^\d+$/.test(r) ? list.find((d) => d.id === Number(r)) : undefined)
  if (!hit) throw new UserError(`There is no dataset named "${ref.slice(0, 80)}" on the service; run "datasets list" to see them`, 'not-found')
  return hit
}

export async function remoteQuery(client: ServiceClient, sub: string, values: CliValues, ctx: CliContext): Promise<CliResult> {
  switch (sub) {
    case 'save': {
      const { definition, dsRef, name, replaces } = querySpecFromFile(values, ctx)
      const ds = await remoteDataset(client, dsRef)
      const q = await remoteCall(client, 'queries/save', { datasetId: ds.id, name, definition: definition as never, replaces })
      return { json: { query: q }, text: savedText(q) }
    }
    case 'list': {
      const ref = optString(values, 'dataset')
      const datasetId = ref === undefined ? undefined : (await remoteDataset(client, ref)).id
      const list = await remoteCall(client, 'queries/list', { datasetId })
      return { json: { queries: list }, text: list.length ? list.map(queryText).join('\n') : 'No saved queries.' }
    }
    case 'show': {
      const q = await remoteCall(client, 'queries/get', { queryId: reqNumber(values, 'id', { integer: true, ge: 1 }) })
      return { json: { query: q }, text: `${queryText(q)}\n${JSON.stringify(q.definition, null, 2)}` }
    }
    case 'delete': {
      const q = await remoteCall(client, 'queries/get', { queryId: reqNumber(values, 'id', { integer: true, ge: 1 }) })
      await remoteCall(client, 'queries/delete', { queryId: q.id })
      return { json: { deleted: q.id }, text: `Deleted saved query ${q.id} "${q.name}"` }
    }
    default:
      throw new UsageError(`unknown query subcommand "${sub}"`)
  }
}

export async function remoteRelease(
  client: ServiceClient,
  values: CliValues,
  paramsFor: (kind: QueryDefinition['kind']) => ReleaseParams
): Promise<CliResult> {
  const queryId = reqNumber(values, 'query', { integer: true, ge: 1 })
  const query = await remoteCall(client, 'queries/get', { queryId })
  const req = { queryId, params: paramsFor(query.kind) }
  if (values.preview) {
    const p = await remoteCall(client, 'releases/preview', req)
    return { json: { preview: p }, text: previewText(p) }
  }
  const r = await remoteCall(client, 'releases/run', req)
  return { json: { release: r }, text: releaseText(r) }
}

/**
 * `ledger` on a service: the summary and the entries the account may see, and the chain's check when the account may
 * run it (custodians and officers); for an analyst `verify` is null (the check is the officer's).
 */
export async function remoteLedger(client: ServiceClient, values: CliValues): Promise<CliResult> {
  const ref = optString(values, 'dataset')
  const datasetId = ref === undefined ? undefined : (await remoteDataset(client, ref)).id
  const limit = optNumber(values, 'limit', 20, { integer: true, ge: 1, le: 1000 })
  const cells = optNumber(values, 'cells', 5, { integer: true, ge: 0, le: 1000 })
  const summary = await remoteCall(client, 'ledger/summary', { datasetId })
  const entries = await remoteCall(client, 'ledger/entries', { datasetId, limit })
  const me = await remoteCall(client, 'accounts/whoami', {})
  const verify = me.roles.includes('analyst') ? null : await remoteCall(client, 'ledger/verify', {})
  return {
    json: { summary, entries: entries.entries, total: entries.total, verify },
    text: [summaryText(summary, { cells }), '', entriesText(entries.entries, entries.total), '', verify?.message ?? ''].join('\n').trimEnd()
  }
}

export async function remoteDatasetOf(client: ServiceClient, values: CliValues): Promise<DatasetInfo> {
  return remoteDataset(client, reqString(values, 'dataset'))
}
