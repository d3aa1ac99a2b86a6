/**
 * Linking a table of a database server (PostgreSQL, ClickHouse) as one form value, its transitions (a reducer: URL ->
 * tested connection -> table, name and privacy unit -> linked) and what it stands for (a pure resolver: what "Test
 * connection" and "Link" send, or why they cannot yet). The engines differ only in how their tables are listed
 * (`postgresTables`, `clickhouseTables`). No React: unit-tested under Node (test/unit/renderer/warehouse-link-form.test.ts).
 */
import type { ClickHouseTable, DatasetInfo, LinkPostgresRequest, PostgresConnectionRequest, PostgresRelation } from '../../../../src-main/contract'

/** A table (or view) the connection may read, as the picker offers it. */
export interface WarehouseTable {
  /** What the link names: schema.table, database.table. */
  key: string
  label: string
  /** The dataset's name until the user types one. */
  defaultName: string
  /** Its columns when the server lists them (the privacy unit is chosen among them); null: the person column is typed. */
  columns: string[] | null
  /** A Distributed ClickHouse table: where its per-person stage runs depends on the person column. */
  distributed: boolean
  shardedBy: string[]
}

export function postgresTables(relations: readonly PostgresRelation[]): WarehouseTable[] {
  return relations.map((r) => {
    const key = `${r.schema}.${r.table}`
    return { key, label: `${key} (${r.kind})`, defaultName: r.table, columns: null, distributed: false, shardedBy: [] }
  })
}

export function clickhouseTables(tables: readonly ClickHouseTable[]): WarehouseTable[] {
  return tables.map((t) => {
    const key = `${t.database}.${t.table}`
    return {
      key,
      label: `${key} (${t.engine})`,
      defaultName: t.table,
      columns: t.columns,
      distributed: t.engine === 'Distributed',
      shardedBy: t.shardedBy
    }
  })
}

/** Where a Distributed table's per-person stage runs for this person column (both exact; null for a local table or row-level). */
export function shardingNote(t: WarehouseTable, personColumn: string): string | null {
  if (!t.distributed || personColumn === '') return null
  return t.shardedBy.includes(personColumn)
    ? `Sharded by ${personColumn}: all of a person's rows are on one shard, so each shard counts its own persons.`
    : `Not sharded by ${personColumn}: a person's rows may lie on several shards, so their counts are merged first (exact, slower).`
}

/** The officer act's fields (OfficerFields.tsx): the passphrase travels with each act and is never kept. */
export interface OfficerCredentials {
  officer: string
  passphrase: string
}

export interface WarehouseLinkForm {
  url: string
  passwordEnv: string
  credentials: OfficerCredentials
  /** What the last tested connection may read; null before a test (or after the URL changed). */
  tables: WarehouseTable[] | null
  /** The chosen table's key. */
  table: string
  name: string
  /** The dataset's name follows the table chosen until the user types one. */
  nameTyped: boolean
  /** '' = row-level; else the person column. */
  personColumn: string
  linked: DatasetInfo | null
}

export type WarehouseLinkAction =
  | { type: 'url'; url: string }
  | { type: 'passwordEnv'; passwordEnv: string }
  | { type: 'credentials'; credentials: OfficerCredentials }
  | { type: 'testing' }
  | { type: 'listed'; tables: WarehouseTable[] }
  | { type: 'table'; key: string }
  | { type: 'name'; name: string }
  | { type: 'personColumn'; personColumn: string }
  | { type: 'linked'; dataset: DatasetInfo }

export const initialWarehouseLink: WarehouseLinkForm = {
  url: '',
  passwordEnv: '',
  credentials: { officer: '', passphrase: '' },
  tables: null,
  table: '',
  name: '',
  nameTyped: false,
  personColumn: '',
  linked: null
}

/** Another table chosen: the unit starts row-level (a column of the last table may not be one of this one). */
function choose(form: WarehouseLinkForm, t: WarehouseTable | undefined): WarehouseLinkForm {
  return { ...form, table: t?.key ?? '', personColumn: '', name: t && !form.nameTyped ? t.defaultName : form.name }
}

export function warehouseLinkReducer(form: WarehouseLinkForm, a: WarehouseLinkAction): WarehouseLinkForm {
  switch (a.type) {
    case 'url':
      // What was listed is what the old URL's server holds.
      return { ...form, url: a.url, tables: null }
    case 'passwordEnv':
      return { ...form, passwordEnv: a.passwordEnv }
    case 'credentials':
      return { ...form, credentials: a.credentials }
    case 'testing':
      return { ...form, tables: null, linked: null }
    case 'listed':
      return choose({ ...form, tables: a.tables }, a.tables[0])
    case 'table':
      return choose(
        form,
        form.tables?.find((t) => t.key === a.key)
      )
    case 'name':
      return { ...form, name: a.name, nameTyped: true }
    case 'personColumn':
      return { ...form, personColumn: a.personColumn }
    case 'linked':
      // The passphrase travels with the act only: cleared once it is done.
      return { ...form, linked: a.dataset, credentials: { ...form.credentials, passphrase: '' } }
  }
}

/** The officer act's state as the officer fields resolve it: the officer's name, or why the act cannot be signed yet. */
export interface OfficerAct {
  name: string
  why: string | null
}

export interface ResolvedWarehouseLink {
  /** What "Test connection" sends; null with `testWhy`. */
  connection: PostgresConnectionRequest | null
  testWhy: string | null
  chosen: WarehouseTable | null
  /** Said under the privacy unit while it stands (a Distributed table: where the per-person stage runs). */
  unitReason: string | null
  /** What "Link" sends; null with `linkWhy`. */
  link: LinkPostgresRequest | null
  linkWhy: string | null
}

export function resolveWarehouseLink(form: WarehouseLinkForm, officer: OfficerAct): ResolvedWarehouseLink {
  const url = form.url.trim()
  const env = form.passwordEnv.trim()
  const testWhy = url === '' ? 'Give the connection URL.' : officer.why
  const connection: PostgresConnectionRequest | null =
    testWhy !== null
      ? null
      : {
          url,
          ...(env !== '' ? { passwordEnv: env } : {}),
          ...(officer.name !== '' ? { officer: officer.name } : {}),
          passphrase: form.credentials.passphrase
        }
  const chosen = form.tables?.find((t) => t.key === form.table) ?? null
  const person = form.personColumn.trim()
  const name = form.name.trim()
  const linkWhy = connection === null ? testWhy : chosen === null ? 'Choose a table.' : name === '' ? 'Give the linked dataset a name.' : null
  const link: LinkPostgresRequest | null =
    connection === null || chosen === null || linkWhy !== null
      ? null
      : { ...connection, name, table: chosen.key, personColumn: person === '' ? null : person }
  return { connection, testWhy, chosen, unitReason: chosen ? shardingNote(chosen, person) : null, link, linkWhy }
}
