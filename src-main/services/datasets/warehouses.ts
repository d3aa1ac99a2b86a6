/**
 * The database servers a dataset can be linked to, the engine as a parameter: how its URL and password variable are
 * checked, which variable holds the password when none is named, which hosts a door may reach, and the link itself
 * (link-postgres.ts, link-clickhouse.ts). The doors' handlers and the CLI's `link` go through this table.
 */
import type Database from 'better-sqlite3'
import type { CountedDatasetInfo } from '../../contract/datasets'
import { checkClickHouseDoorHost, checkClickHousePasswordEnv, checkClickHouseUrl } from '../sources/linked-clickhouse'
import { checkDoorHost, checkPasswordEnv, checkPostgresUrl } from '../sources/linked-postgres'
import { linkClickHouse } from './link-clickhouse'
import { linkPostgres } from './link-postgres'
import type { LinkWarehouseRequest } from './warehouse-link-act'

export type WarehouseId = 'postgres' | 'clickhouse'

export interface Warehouse {
  /** As the user reads it: "PostgreSQL". */
  label: string
  /** What is linked, as the user reads it: "PostgreSQL relation". */
  what: string
  /** The catalog's `source` of its datasets. */
  source: 'linked-postgres' | 'linked-clickhouse'
  /** The variable the password is read from when none is named. */
  defaultPasswordEnv: string
  /** The URL, trimmed; one sentence when it is not one of this engine's (or holds a password). */
  checkUrl(url: unknown): string
  checkPasswordEnv(name: unknown): string | null
  /** Through a door: only to this machine or the hosts the server lists for this engine (warehouse-link.ts). */
  checkDoorHost(url: string): void
  link(db: Database.Database, req: LinkWarehouseRequest): CountedDatasetInfo
}

export const WAREHOUSES: Record<WarehouseId, Warehouse> = {
  postgres: {
    label: 'PostgreSQL',
    what: 'PostgreSQL relation',
    source: 'linked-postgres',
    defaultPasswordEnv: 'PGPASSWORD',
    checkUrl: checkPostgresUrl,
    checkPasswordEnv,
    checkDoorHost,
    link: linkPostgres
  },
  clickhouse: {
    label: 'ClickHouse',
    what: 'ClickHouse table',
    source: 'linked-clickhouse',
    defaultPasswordEnv: 'CLICKHOUSE_PASSWORD',
    checkUrl: checkClickHouseUrl,
    checkPasswordEnv: checkClickHousePasswordEnv,
    checkDoorHost: checkClickHouseDoorHost,
    link: linkClickHouse
  }
}
