/**
 * What the linked database sources (PostgreSQL, ClickHouse) share around their connections and their signed links:
 * the hosts a door may connect to, the password read at use, the password variable's name, the signed catalog, and
 * the sentence that names how a linked relation's schema changed. Each engine's module keeps its own URLs, failures
 * and sentences; these pieces are engine-neutral.
 */
import type Database from 'better-sqlite3'
import { UserError } from '../platform/errors'

/** A connection as the sync workers take it: the URL (never with a password) and the password read at use. */
export interface WarehouseConnection {
  url: string
  password?: string
}

/** The connection of a URL at use: the password from `passwordEnv` (null: `defaultEnv`), read now and never stored. */
export function connectionWithPassword(url: string, passwordEnv: string | null, defaultEnv: string): WarehouseConnection {
  const password = process.env[passwordEnv ?? defaultEnv]
  return password === undefined ? { url } : { url, password }
}

/**
 * The name of the environment variable holding an engine's password: null (the default variable) or a name ending in
 * `suffix` (e.g. HR_PGPASSWORD), so that a connection can only ever be given a variable meant for that engine, never
 * another secret of the process.
 */
export function checkPasswordVariable(name: unknown, suffix: string): string | null {
  if (name === undefined || name === null || name === '') return null
  if (typeof name !== 'string' || !name.endsWith(suffix) || !/^[A-Za-z0-9_]{0,100}$/.test(name.slice(0, -suffix.length))) {
    throw new UserError(`The password variable must be the name of an environment variable ending in ${suffix} (e.g. HR_${suffix})`, 'bad-input')
  }
  return name
}

/**
 * Through a door (the app, the HTTP server) a connection may go only to this machine (loopback, or a unix socket: a
 * host starting with '/') or to the hosts listed, comma-separated, in the environment variable `listVariable`: the
 * password comes from the server's environment, and a server of the caller's choosing would be sent it. The CLI (the
 * local user) is not limited and does not call this.
 */
export function checkDoorHosts(hosts: readonly string[], engine: string, listVariable: string): void {
  const allowed = new Set([
    'localhost',
    '127.0.0.1',
    '::1',
    '[::1]',
    ...(process.env[listVariable] ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean)
  ])
  for (const h of hosts) {
    if (!h.startsWith('/') && !allowed.has(h.toLowerCase())) {
      throw new UserError(
        `From the app, ${engine} connections go to this machine or to the hosts listed in ${listVariable}; ask the administrator to add the host, or link with the CLI`,
        'forbidden'
      )
    }
  }
}

/** A time limit as a sentence shows it: "500 ms", "5 min", "1.5 s". */
export function durationText(ms: number): string {
  return ms < 1000 ? `${ms} ms` : ms % 60_000 === 0 ? `${ms / 60_000} min` : `${Math.round(ms / 100) / 10} s`
}

/**
 * Whether the dataset's catalog columns (what definitions are checked against) are exactly the signed `columns`: the
 * same names and catalog types in the same order.
 */
export function catalogIsSigned(db: Database.Database, datasetId: number, columns: ReadonlyArray<{ name: string; type: string }>): boolean {
  const catalog = db.prepare('SELECT name, type FROM dataset_columns WHERE dataset_id = ? ORDER BY position').all(datasetId) as Array<{
    name: string
    type: string
  }>
  return catalog.length === columns.length && catalog.every((c, i) => c.name === columns[i].name && c.type === columns[i].type)
}

/** A column as its engine declares it: the name and, under `K` (pgType, chType...), the engine's type. */
export type DeclaredColumn<K extends string> = { name: string } & Record<K, string>

/**
 * How a linked relation's declared columns differ from those it was linked with, as the end of a sentence ("column
 * "x" is gone"), or null when they are the same names and engine types (`typeKey`) in the same order. Names and
 * types come from the server's catalog and are cut to a readable length.
 */
export function schemaChange<K extends string>(
  linked: ReadonlyArray<DeclaredColumn<K>>,
  now: ReadonlyArray<DeclaredColumn<K>>,
  typeKey: K
): string | null {
  if (linked.length === now.length && linked.every((c, i) => c.name === now[i].name && c[typeKey] === now[i][typeKey])) return null
  const byName = new Map(now.map((c) => [c.name, c[typeKey]]))
  for (const c of linked) {
    const t = byName.get(c.name)
    if (t === undefined) return `column "${c.name.slice(0, 80)}" is gone`
    if (t !== c[typeKey]) return `column "${c.name.slice(0, 80)}" changed type from ${c[typeKey].slice(0, 60)} to ${t.slice(0, 60)}`
  }
  return 'its columns are not the ones it had (names or order changed)'
}
