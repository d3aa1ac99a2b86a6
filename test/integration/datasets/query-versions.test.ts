/**
 * Saved queries are editable: an edit saves the next version as a new, immutable query; lists show the latest version,
 * every release keeps naming (and re-reading) exactly the version it ran, a stale edit or a change of dataset or kind is
 * refused with nothing written, and deleting hides every version. A workspace saved before versions existed opens with
 * its queries as version 1.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ThresholdQueryDefinition } from '../../../src-main/contract/datasets'
import {
  deleteQuery,
  getQuery,
  getQueryIncludingDeleted,
  listQueries,
  queryVersions,
  saveQuery
} from '../../../src-main/services/datasets/query-store'
import { runRelease } from '../../../src-main/services/releases/release-service'
import { datasetsHandlers } from '../../../src-main/services/datasets/datasets-handlers'
import type { ServiceContext } from '../../../src-main/services/platform/handler-types'
import { queryVersionRows } from '../../../src-renderer/src/screens/queries/queryVersionsDefinition'
import { openStore } from '../../../src-main/services/store/store'
import { migrations } from '../../../src-main/services/store/migrations'
import { craftDataset, closeLedgerWorkspace, openLedgerWorkspace } from '../ledger/fixtures'
import { officerAct } from '../officer-fixture'
import { runCli } from '../cli-runner'
import type { Store } from '../../../src-main/services/store/store'
import type { tempWorkspace } from '../helpers'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'

let ws: ReturnType<typeof tempWorkspace>
let store: Store
let h: ReturnType<typeof openLedgerWorkspace>['h']

beforeEach(() => {
  ;({ ws, store, h } = openLedgerWorkspace('qa-query-versions-'))
})
afterEach(() => closeLedgerWorkspace(store, ws))

function rooms(db = store.db, name = 'rooms'): number {
  const rows: Array<[string, number]> = []
  for (let i = 0; i < 30; i++) rows.push([i < 20 ? 'A' : 'B', i])
  return craftDataset(
    db,
    name,
    [
      { name: 'room', type: 'text' },
      { name: 'n', type: 'integer' }
    ],
    rows
  )
}

const over = (value: number): ThresholdQueryDefinition => ({
  kind: 'threshold',
  groupBy: ['room'],
  count: { kind: 'rows' },
  threshold: { kind: 'constant', value },
  groups: [['A'], ['B']]
})

const cli = (args: string[]) => runCli(args, { cwd: ws.dir })

describe('saved query versions', () => {
  it('an edit is the next version; the list shows it; a release keeps the version it ran', async () => {
    const ds = rooms()
    await h['budgets/set']({ datasetId: ds, epsilon: '100', reason: 'test budget', ...officerAct(store.db, 'olga') })
    const v1 = saveQuery(store.db, ds, 'rooms over 10', over(10))
    expect(v1).toMatchObject({ version: 1, firstVersionId: v1.id })
    const r1 = runRelease(store.db, { queryId: v1.id, params: { kind: 'threshold', mechanism: 'tslm', alpha: 2, beta: 0.05 } })
    expect(r1.status).toBe('answered')

    const v2 = saveQuery(store.db, ds, 'rooms over 15', over(15), v1.id)
    expect(v2).toMatchObject({ version: 2, firstVersionId: v1.id, name: 'rooms over 15' })
    expect(v2.id).not.toBe(v1.id)
    expect(listQueries(store.db, ds).map((q) => [q.id, q.version])).toEqual([[v2.id, 2]])
    expect(listQueries(store.db).map((q) => q.id)).toEqual([v2.id])

    // The release still names version 1, whose definition is as it was when it ran.
    const again = await h['releases/get']({ releaseId: r1.releaseId })
    expect(again.queryId).toBe(v1.id)
    expect(again.queryName).toBe('rooms over 10')
    expect(getQuery(store.db, v1.id).definition).toEqual(over(10))
    expect(queryVersions(store.db, v2.id).map((q) => q.version)).toEqual([1, 2])
    const r2 = runRelease(store.db, { queryId: v2.id, params: { kind: 'threshold', mechanism: 'tslm', alpha: 2, beta: 0.05 } })
    expect(r2.queryId).toBe(v2.id)

    // Rows stay immutable: a version cannot be rewritten in place, nor a later version forged onto another line.
    expect(() => store.db.prepare('UPDATE queries SET version = 1 WHERE id = ?').run(v2.id)).toThrow(/immutable/)
    expect(() => store.db.prepare('UPDATE queries SET definition = ? WHERE id = ?').run(JSON.stringify(over(1)), v1.id)).toThrow(/immutable/)
    expect(() =>
      store.db
        .prepare('INSERT INTO queries (dataset_id, name, kind, definition, first_id, version) VALUES (?, ?, ?, ?, ?, ?)')
        .run(ds, 'x', 'threshold', JSON.stringify(over(1)), v2.id, 3)
    ).toThrow(/names its first version/)
    expect(() =>
      store.db
        .prepare('INSERT INTO queries (dataset_id, name, kind, definition, first_id, version) VALUES (?, ?, ?, ?, ?, ?)')
        .run(ds, 'x', 'threshold', JSON.stringify(over(1)), v1.id, 2)
    ).toThrow(/UNIQUE/)
  })

  it('queries/versions lists every version; with releases/list it gives the Queries screen each version and the releases that ran it', async () => {
    const ds = rooms()
    await h['budgets/set']({ datasetId: ds, epsilon: '100', reason: 'test budget', ...officerAct(store.db, 'olga') })
    const params = { kind: 'threshold' as const, mechanism: 'tslm' as const, alpha: 2, beta: 0.05 }
    const v1 = saveQuery(store.db, ds, 'q', over(10))
    const r1 = await h['releases/run']({ queryId: v1.id, params })
    const v2 = saveQuery(store.db, ds, 'q', over(12), v1.id)
    const r2 = await h['releases/run']({ queryId: v2.id, params })
    const r3 = await h['releases/run']({ queryId: v2.id, params })
    const datasets = datasetsHandlers({ store, cadenceMs: null } as unknown as ServiceContext)
    // Any version's id gives the whole line, oldest first.
    for (const id of [v1.id, v2.id])
      expect((await datasets['queries/versions']({ queryId: id })).map((q) => [q.id, q.version])).toEqual([
        [v1.id, 1],
        [v2.id, 2]
      ])
    const rows = queryVersionRows(await datasets['queries/versions']({ queryId: v2.id }), await h['releases/list']({ datasetId: ds }))
    expect(rows.map((r) => [r.version, r.changed, r.releases.map((x) => x.releaseId)])).toEqual([
      [2, 'changed threshold', [r3.releaseId, r2.releaseId]],
      [1, '', [r1.releaseId]]
    ])
    await expect(datasets['queries/versions']({ queryId: 9999 })).rejects.toThrow(/There is no saved query 9999/)
  })

  it('a stale edit, another dataset or another kind is refused with nothing written', () => {
    const ds = rooms()
    const other = rooms(store.db, 'other rooms')
    const v1 = saveQuery(store.db, ds, 'q', over(10))
    const v2 = saveQuery(store.db, ds, 'q', over(11), v1.id)
    const count = () => (store.db.prepare('SELECT count(*) AS n FROM queries').get() as { n: number }).n
    const before = count()
    expect(() => saveQuery(store.db, ds, 'q', over(12), v1.id)).toThrow(
      /^“q” has a later version \(version 2, query \d+\) than the one you edited \(version 1\): edit the latest one\. Nothing was saved\.$/
    )
    expect(() => saveQuery(store.db, other, 'q', over(12), v2.id)).toThrow(/is about another dataset: a new version asks about the same dataset/)
    expect(() =>
      saveQuery(
        store.db,
        ds,
        'q',
        { kind: 'anomaly-identification', columns: ['n'], binWidths: [1], metric: 'l1', radius: 0, beta: 1, k: 1, records: [[3]] },
        v2.id
      )
    ).toThrow(/is a threshold query: a new version asks the same kind of question/)
    expect(() => saveQuery(store.db, ds, 'q', over(12), 9999)).toThrow(/There is no saved query 9999/)
    expect(count()).toBe(before)
    expect(listQueries(store.db, ds).map((q) => q.id)).toEqual([v2.id])
  })

  it('deleting hides every version; the release history still reads them', () => {
    const ds = rooms()
    const v1 = saveQuery(store.db, ds, 'q', over(10))
    const v2 = saveQuery(store.db, ds, 'q', over(11), v1.id)
    const keep = saveQuery(store.db, ds, 'kept', over(3))
    deleteQuery(store.db, v2.id)
    expect(listQueries(store.db, ds).map((q) => q.id)).toEqual([keep.id])
    expect(() => getQuery(store.db, v1.id)).toThrow(/no saved query/)
    expect(getQueryIncludingDeleted(store.db, v1.id)?.deletedAt).not.toBeNull()
  })

  it('the command line saves a version with --replaces and lists the latest', async () => {
    const ds = rooms()
    const v1 = saveQuery(store.db, ds, 'rooms over 10', over(10))
    store.close()
    const spec = join(ws.dir, 'q.json')
    writeFileSync(spec, JSON.stringify({ dataset: 'rooms', name: 'rooms over 12', definition: over(12) }))
    const saved = await cli(['query', 'save', '--db', ws.db, '--spec', spec, '--replaces', String(v1.id)])
    expect(saved.err).toBe('')
    expect(saved.out).toMatch(/^Saved query \d+ "rooms over 12", version 2 of query \d+ \(threshold\) on dataset \d+/)
    const stale = await cli(['query', 'save', '--db', ws.db, '--spec', spec, '--replaces', String(v1.id)])
    expect(stale.code).not.toBe(0)
    expect(stale.err).toMatch(/has a later version/)
    const list = await cli(['query', 'list', '--db', ws.db, '--json'])
    const queries = (JSON.parse(list.out) as { queries: Array<{ name: string; version: number }> }).queries
    expect(queries.map((q) => [q.name, q.version])).toEqual([['rooms over 12', 2]])
    store = openStore(ws.db)
  })

  it('a workspace saved before versions opens with its queries as version 1', () => {
    store.close()
    const dir = ws.dir
    const old = openStore(join(dir, 'old.sqlite'), {
      migrations: migrations.slice(
        0,
        migrations.findIndex((m) => m.name === 'saved query versions')
      )
    })
    const ds = rooms(old.db)
    old.db
      .prepare('INSERT INTO queries (dataset_id, name, kind, definition) VALUES (?, ?, ?, ?)')
      .run(ds, 'old', 'threshold', JSON.stringify(over(10)))
    old.close()
    store = openStore(join(dir, 'old.sqlite'))
    const [q] = listQueries(store.db)
    expect(q).toMatchObject({ name: 'old', version: 1, firstVersionId: q.id })
    expect(saveQuery(store.db, ds, 'old', over(9), q.id)).toMatchObject({ version: 2, firstVersionId: q.id })
  })
})
