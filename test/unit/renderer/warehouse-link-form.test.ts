/**
 * Linking a PostgreSQL or ClickHouse table without React (warehouseLinkState.ts): what "Test connection" and "Link"
 * send, why they cannot yet, the table picker and its default name, the privacy unit (typed for PostgreSQL, chosen
 * among the columns for ClickHouse, with where a Distributed table's per-person stage runs), the passphrase cleared.
 */
import { describe, expect, it } from 'vitest'
import type { ClickHouseTable, DatasetInfo, PostgresRelation } from '../../../src-main/contract'
import {
  type OfficerAct,
  type WarehouseLinkAction,
  type WarehouseLinkForm,
  clickhouseTables,
  initialWarehouseLink,
  postgresTables,
  resolveWarehouseLink,
  warehouseLinkReducer
} from '../../../src-renderer/src/screens/datasets/warehouseLinkState'

const run = (...actions: WarehouseLinkAction[]): WarehouseLinkForm => actions.reduce(warehouseLinkReducer, initialWarehouseLink)
const SIGNED: OfficerAct = { name: 'dpo', why: null }
const PASSPHRASE = { type: 'credentials', credentials: { officer: '', passphrase: 'pass phrase' } } as const

const RELATIONS: PostgresRelation[] = [
  { schema: 'hr', table: 'badges', kind: 'table' },
  { schema: 'hr', table: 'visits', kind: 'view' }
]
const CH: ClickHouseTable[] = [
  { database: 'default', table: 'events_local', engine: 'MergeTree', columns: ['person', 'room'], shardedBy: [] },
  { database: 'default', table: 'events', engine: 'Distributed', columns: ['person', 'room', 'badge'], shardedBy: ['person'] }
]

describe('test connection', () => {
  it('sends the trimmed URL, the password variable when given, the officer and the passphrase', () => {
    const f = run({ type: 'url', url: ' postgresql://reader@localhost/hr ' }, { type: 'passwordEnv', passwordEnv: ' HR_PGPASSWORD ' }, PASSPHRASE)
    expect(resolveWarehouseLink(f, SIGNED).connection).toEqual({
      url: 'postgresql://reader@localhost/hr',
      passwordEnv: 'HR_PGPASSWORD',
      officer: 'dpo',
      passphrase: 'pass phrase'
    })
    // No variable typed: the engine's default (the server reads PGPASSWORD); no officer name resolved: the server's only one.
    const plain = run({ type: 'url', url: 'http://reader@localhost:8123' }, PASSPHRASE)
    expect(resolveWarehouseLink(plain, { name: '', why: null }).connection).toEqual({
      url: 'http://reader@localhost:8123',
      passphrase: 'pass phrase'
    })
  })

  it('says why it cannot be tested: no URL first, then what the officer act lacks', () => {
    expect(resolveWarehouseLink(initialWarehouseLink, SIGNED)).toMatchObject({ connection: null, testWhy: 'Give the connection URL.' })
    const why = 'Give the officer’s passphrase: the act is signed with the officer’s key.'
    const f = run({ type: 'url', url: 'postgresql://reader@localhost/hr' })
    expect(resolveWarehouseLink(f, { name: 'dpo', why })).toMatchObject({ connection: null, testWhy: why, link: null, linkWhy: why })
  })
})

describe('PostgreSQL: tables and views, the person column typed', () => {
  const listed = () =>
    run({ type: 'url', url: 'postgresql://reader@localhost/hr' }, PASSPHRASE, { type: 'listed', tables: postgresTables(RELATIONS) })

  it('offers schema.table with its kind; the first is chosen and names the dataset', () => {
    const f = listed()
    expect(f.tables!.map((t) => t.label)).toEqual(['hr.badges (table)', 'hr.visits (view)'])
    expect(f).toMatchObject({ table: 'hr.badges', name: 'badges', personColumn: '' })
    const r = resolveWarehouseLink(f, SIGNED)
    expect(r.chosen?.columns).toBeNull()
    expect(r.link).toEqual({
      url: 'postgresql://reader@localhost/hr',
      officer: 'dpo',
      passphrase: 'pass phrase',
      name: 'badges',
      table: 'hr.badges',
      personColumn: null
    })
  })

  it('links person-level with the typed column; the name follows the table until one is typed', () => {
    let f = warehouseLinkReducer(listed(), { type: 'table', key: 'hr.visits' })
    expect(f.name).toBe('visits')
    f = warehouseLinkReducer(f, { type: 'name', name: ' my visits ' })
    f = warehouseLinkReducer(f, { type: 'personColumn', personColumn: ' person ' })
    expect(resolveWarehouseLink(f, SIGNED).link).toMatchObject({ name: 'my visits', table: 'hr.visits', personColumn: 'person' })
    // A typed name stays when another table is chosen; the unit starts row-level again.
    f = warehouseLinkReducer(f, { type: 'table', key: 'hr.badges' })
    expect(f).toMatchObject({ name: ' my visits ', personColumn: '', table: 'hr.badges' })
  })

  it('says why it cannot link without a name', () => {
    const f = warehouseLinkReducer(listed(), { type: 'name', name: '  ' })
    expect(resolveWarehouseLink(f, SIGNED)).toMatchObject({ link: null, linkWhy: 'Give the linked dataset a name.' })
  })
})

describe('ClickHouse: tables with their columns; where a Distributed table counts persons', () => {
  const listed = () => run({ type: 'url', url: 'http://reader@localhost:8123' }, PASSPHRASE, { type: 'listed', tables: clickhouseTables(CH) })

  it('offers database.table with its engine and the chosen table’s columns as privacy units', () => {
    const f = listed()
    expect(f.tables!.map((t) => t.label)).toEqual(['default.events_local (MergeTree)', 'default.events (Distributed)'])
    expect(resolveWarehouseLink(f, SIGNED).chosen?.columns).toEqual(['person', 'room'])
    expect(resolveWarehouseLink(warehouseLinkReducer(f, { type: 'table', key: 'default.events' }), SIGNED).chosen?.columns).toEqual([
      'person',
      'room',
      'badge'
    ])
  })

  it('says where the per-person stage runs on a Distributed table, and nothing for a local one or row-level', () => {
    const local = warehouseLinkReducer(listed(), { type: 'personColumn', personColumn: 'person' })
    expect(resolveWarehouseLink(local, SIGNED).unitReason).toBeNull()
    const dist = warehouseLinkReducer(listed(), { type: 'table', key: 'default.events' })
    expect(resolveWarehouseLink(dist, SIGNED).unitReason).toBeNull()
    expect(resolveWarehouseLink(warehouseLinkReducer(dist, { type: 'personColumn', personColumn: 'person' }), SIGNED).unitReason).toBe(
      "Sharded by person: all of a person's rows are on one shard, so each shard counts its own persons."
    )
    const byBadge = warehouseLinkReducer(dist, { type: 'personColumn', personColumn: 'badge' })
    expect(resolveWarehouseLink(byBadge, SIGNED).unitReason).toBe(
      "Not sharded by badge: a person's rows may lie on several shards, so their counts are merged first (exact, slower)."
    )
    expect(resolveWarehouseLink(byBadge, SIGNED).link).toEqual({
      url: 'http://reader@localhost:8123',
      officer: 'dpo',
      passphrase: 'pass phrase',
      name: 'events',
      table: 'default.events',
      personColumn: 'badge'
    })
  })
})

describe('after a test or a link', () => {
  it('a new URL forgets what the old one listed; a new test forgets the last link', () => {
    const f = run({ type: 'url', url: 'http://a:8123' }, PASSPHRASE, { type: 'listed', tables: clickhouseTables(CH) })
    const moved = warehouseLinkReducer(f, { type: 'url', url: 'http://b:8123' })
    expect(moved.tables).toBeNull()
    expect(resolveWarehouseLink(moved, SIGNED)).toMatchObject({ chosen: null, link: null, linkWhy: 'Choose a table.' })
    expect(run({ type: 'listed', tables: [] }).table).toBe('')
  })

  it('clears the passphrase once linked (it travels with each act only) and keeps the officer', () => {
    const dataset = { id: 7, name: 'events', sourceFile: 'default.events', columns: [] } as unknown as DatasetInfo
    const f = run({ type: 'credentials', credentials: { officer: 'dpo', passphrase: 'secret words' } }, { type: 'linked', dataset })
    expect(f.credentials).toEqual({ officer: 'dpo', passphrase: '' })
    expect(f.linked).toBe(dataset)
    expect(warehouseLinkReducer(f, { type: 'testing' })).toMatchObject({ linked: null, tables: null })
  })
})
