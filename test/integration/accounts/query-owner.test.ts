/**
 * Saved queries as an attack between analysts of the service: bob cannot list, read, version, delete or release the
 * question ana saved (nothing is written), ana's release still runs her own definition, and the officer reads all.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createServices, type Services } from '../../../src-main/services'
import type { Principal } from '../../../src-main/contract/accounts'
import { addAccount } from '../../../src-main/services/accounts/account-store'
import { officerAct } from '../officer-fixture'
import { saveQuery } from '../../../src-main/services/datasets/query-store'
import { ROOMS, sixRoomVisits } from '../privacy/six-rooms-fixture'
import { tempWorkspace } from '../helpers'

let ws: ReturnType<typeof tempWorkspace>
let s: Services

beforeEach(() => {
  ws = tempWorkspace()
  s = createServices({ mode: 'headless', deployment: 'service', dbPath: ws.db, poolSize: 1 })
})
afterEach(async () => {
  await s.close()
  ws.cleanup()
})

const db = () => s.context.store.db

function account(name: string, role: 'analyst' | 'officer'): Principal {
  const { credential } = addAccount(db(), { name, role, days: 30 }, officerAct(db()))
  const auth = s.accounts.authenticate(credential, '10.0.0.1')
  if (!auth.ok) throw new Error(auth.error.message)
  return auth.principal
}

const question = (groups: string[][], value: number) => ({
  kind: 'threshold' as const,
  groupBy: ['room'],
  count: { kind: 'persons' as const, personColumn: 'person', cap: 1 },
  threshold: { kind: 'constant' as const, value },
  groups
})

describe("another analyst's saved query", () => {
  it('is not listed, read, versioned, deleted or released by bob; nothing is written; the officer reads it', async () => {
    const { id } = sixRoomVisits(db())
    const ana = account('ana', 'analyst')
    const bob = account('bob', 'analyst')
    const olga = account('olga', 'officer')
    const saved = await s.dispatch('queries/save', { datasetId: id, name: 'ana secret q', definition: question([['R1'], ['R2']], 3) }, ana)
    expect(saved.ok).toBe(true)
    const queryId = (saved as { value: { id: number } }).value.id
    const rows = () => JSON.stringify(db().prepare('SELECT * FROM queries ORDER BY id').all())
    const before = rows()

    const bobList = (await s.call('queries/list', { datasetId: id }, bob)).map((q) => q.name)
    expect(bobList).not.toContain('ana secret q')
    expect(await s.dispatch('queries/get', { queryId }, bob)).toMatchObject({ ok: false, error: { code: 'not-found' } })
    expect(await s.dispatch('queries/versions', { queryId }, bob)).toMatchObject({ ok: false, error: { code: 'not-found' } })
    const replaced = await s.dispatch(
      'queries/save',
      {
        datasetId: id,
        name: 'ana secret q',
        replaces: queryId,
        definition: question(
          ROOMS.slice(0, 3).map((r) => [r]),
          1
        )
      },
      bob
    )
    expect(replaced).toMatchObject({
      ok: false,
      error: { code: 'not-found', message: `There is no saved query ${queryId} (it may have been deleted)` }
    })
    expect(await s.dispatch('queries/delete', { queryId }, bob)).toMatchObject({ ok: false, error: { code: 'not-found' } })
    const released = await s.dispatch('releases/run', { queryId, params: { kind: 'threshold', mechanism: 'tslm', beta: 0.1, alpha: 2 } }, bob)
    expect(released).toMatchObject({ ok: false, error: { code: 'not-found' } })
    expect(rows()).toBe(before)
    expect(db().prepare(`SELECT count(*) AS n FROM ledger_entries WHERE kind = 'charge'`).get()).toEqual({ n: 0 })

    // Ana's list shows her definition, unchanged; the officer reads everyone's.
    const anaQ = (await s.call('queries/list', { datasetId: id }, ana)).find((q) => q.id === queryId)
    expect(anaQ?.definition).toMatchObject({ groups: [['R1'], ['R2']], threshold: { value: 3 } })
    expect(anaQ?.version).toBe(1)
    expect((await s.call('queries/get', { queryId }, olga)).name).toBe('ana secret q')
    expect((await s.call('queries/list', { datasetId: id }, olga)).map((q) => q.name)).toContain('ana secret q')
  })

  it("refuses an analyst's new version or delete of a query saved on the host, which every analyst may read", async () => {
    const { id, queryId } = sixRoomVisits(db())
    const bob = account('bob', 'analyst')
    expect((await s.call('queries/get', { queryId }, bob)).name).toBe('rooms')
    const before = JSON.stringify(db().prepare('SELECT * FROM queries ORDER BY id').all())
    const replaced = await s.dispatch('queries/save', { datasetId: id, name: 'rooms', replaces: queryId, definition: question([['R1']], 1) }, bob)
    expect(replaced).toMatchObject({ ok: false, error: { code: 'forbidden' } })
    expect((replaced as { error: { message: string } }).error.message).toBe(
      `Saved query ${queryId} was not saved by your account: only its author saves a new version of it; nothing was written.`
    )
    expect(await s.dispatch('queries/delete', { queryId }, bob)).toMatchObject({ ok: false, error: { code: 'forbidden' } })
    expect(JSON.stringify(db().prepare('SELECT * FROM queries ORDER BY id').all())).toBe(before)
  })

  it('lets the author version and delete her own query', async () => {
    const { id } = sixRoomVisits(db())
    const ana = account('ana', 'analyst')
    const v1 = await s.call('queries/save', { datasetId: id, name: 'mine', definition: question([['R1']], 3) }, ana)
    const v2 = await s.call('queries/save', { datasetId: id, name: 'mine', replaces: v1.id, definition: question([['R2']], 3) }, ana)
    expect(v2.version).toBe(2)
    expect(await s.call('queries/delete', { queryId: v2.id }, ana)).toEqual({ deleted: true })
  })
})

describe("the versions of another analyst's question", () => {
  it("once the host saved a new version of ana's question, bob reads that version but never ana's own earlier one", async () => {
    const { id } = sixRoomVisits(db())
    const ana = account('ana', 'analyst')
    const bob = account('bob', 'analyst')
    const v1 = await s.call('queries/save', { datasetId: id, name: 'ana: is R1 over 3?', definition: question([['R1']], 3) }, ana)
    expect(await s.dispatch('queries/versions', { queryId: v1.id }, bob)).toMatchObject({ ok: false, error: { code: 'not-found' } })
    // The host (the CLI on the service's workspace, no account) saves the next version: every analyst may read that one.
    const v2 = saveQuery(db(), id, 'room check', question([['R2']], 5), v1.id)
    const seen = await s.call('queries/versions', { queryId: v2.id }, bob)
    expect(seen.map((q) => [q.id, q.name])).toEqual([[v2.id, 'room check']])
    // Ana reads her whole line.
    expect((await s.call('queries/versions', { queryId: v2.id }, ana)).map((q) => q.version)).toEqual([1, 2])
  })
})
