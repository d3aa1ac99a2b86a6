/**
 * The keyed hash that orders a person's groups for the `maxGroups` bound (ALGORITHMS.md section 6), computed inside
 * every engine (dialect.ts `truncatedCountSql`), identically in SQLite, DuckDB and PostgreSQL:
 *
 *   rank(person, i) = the first 13 hex digits (52 bits) of MD5(key ":" text(person) ":" i), as an integer,
 *
 * where `key` is 32 lowercase hex digits (128 bits) drawn for each evaluation from the caller's generator (a release's
 * secure generator; a simulation's seeded one), `i` is the predicate's index in the public predicate list, and
 * text(person) is the person's stored value as text (integers and timestamps in decimal, text as it is, reals as
 * `personRealText`). A person over the bound keeps the `maxGroups` predicates of smallest (rank, i).
 *
 * Why this is sound: the predicates a person keeps depend on that person's own rows and on the key only (the key is
 * drawn independently of the data, and nothing of other persons enters the person's ranks). So with the key fixed,
 * adding or removing one person leaves every other person's kept predicates as they were, and changes at most
 * `maxGroups` counts by at most `cap` each: the sensitivity the charge assumes holds for every key, hence also for the
 * random one. The hash's quality is not part of this argument; it matters for what the bound means: with MD5 as a
 * random function, a person's kept set is a uniformly random subset of their predicates, independent across persons
 * (what the earlier truncation in JS drew with the generator). A test checks both (equivalence.test.ts and
 * truncation.test.ts).
 *
 * SQLite has no MD5: `registerKeyedHash` gives the workspace connection a deterministic function computing the same
 * value (node:crypto). DuckDB and PostgreSQL use their `md5()` (over UTF-8: a PostgreSQL database in another encoding
 * gives other ranks for non-ASCII text persons, still sound). 52 bits are exact in a double, so every engine and
 * JavaScript compare the same integers; ties (never seen in practice) are broken by the predicate index.
 */
import { createHash } from 'node:crypto'
import type Database from 'better-sqlite3'
import type { ColumnType } from '../../contract/datasets'
import type { Rng } from '../../../src-worker/engine/random'

/** Hex digits of the MD5 taken as the rank (52 bits: exact in a double and in every engine's BIGINT). */
export const RANK_HEX_DIGITS = 13

/** A truncation key: 32 lowercase hex digits (128 bits) from `rng` (a release's secure generator; never seeded in one). */
export function truncationKey(rng: Rng): string {
  const w = new Int32Array(4)
  rng.fillWords(w)
  return [...w].map((x) => (x >>> 0).toString(16).padStart(8, '0')).join('')
}

/** Checks a key before it is written into SQL (it is inlined: 32 hex digits only). */
export function checkedKey(key: string): string {
  if (!/^[0-9a-f]{32}$/.test(key)) throw new Error('a truncation key is 32 lowercase hex digits')
  return key
}

/** Real persons are hashed by floor(x * 10^6), x clamped to [-10^12, 10^12] (NaN as 10^12): portable integer text. */
export const REAL_PERSON_CLAMP = 1e12
export function personRealText(x: number): string {
  const c = Number.isNaN(x) ? REAL_PERSON_CLAMP : Math.min(Math.max(x, -REAL_PERSON_CLAMP), REAL_PERSON_CLAMP)
  return String(Math.floor(c * 1e6) + 0)
}

/** text(person) of a stored value (see the file comment). */
export function personText(value: unknown, type: ColumnType): string {
  if (type === 'real' && typeof value === 'number') return personRealText(value)
  return String(value)
}

/** rank(person, i) in JavaScript (SQLite's function, and the tests' reference). */
export function keyedRank(key: string, personTextValue: string, i: number): number {
  const hex = createHash('md5').update(`${key}:${personTextValue}:${i}`, 'utf8').digest('hex')
  return parseInt(hex.slice(0, RANK_HEX_DIGITS), 16)
}

/** The SQLite function's name: qa_keyed_rank(key, person, i, isReal). */
export const SQLITE_RANK_FUNCTION = 'qa_keyed_rank'

const registered = new WeakSet<Database.Database>()

/** Gives a SQLite connection `qa_keyed_rank` (deterministic; once per connection). */
export function registerKeyedHash(db: Database.Database): void {
  if (registered.has(db)) return
  db.function(SQLITE_RANK_FUNCTION, { deterministic: true }, (key: unknown, person: unknown, i: unknown, isReal: unknown) => {
    if (person === null || person === undefined) return null
    const text = isReal === 1 && typeof person === 'number' ? personRealText(person) : String(person)
    return keyedRank(String(key), text, Number(i))
  })
  registered.add(db)
}
