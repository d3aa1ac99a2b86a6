/**
 * The keyed rank that orders a person's groups for the `maxGroups` bound (ALGORITHMS.md section 6), computed inside
 * every engine (dialect.ts `truncatedCountSql`), identically in SQLite, DuckDB and PostgreSQL (a linked file's
 * two-pass form computes the coefficients in DuckDB and the rank here, `rankOfSmallIndex`: duckdb-truncation.ts):
 *
 *   d = MD5(key ":" text(person)) as 32 lowercase hex digits (one MD5 per person, not per predicate),
 *   c_j = (hex digits 8j+1 .. 8j+8 of d, an unsigned 32-bit integer) mod P, j = 0..3, P = 2^31 - 1 (a prime),
 *   rank(person, i) = c_3 i^3 + c_2 i^2 + c_1 i + c_0 mod P, by Horner: (((c_3 i + c_2) mod P) i + c_1) mod P) i + c_0) mod P,
 *
 * where `key` is 32 lowercase hex digits (128 bits) drawn for each evaluation from the caller's generator (a release's
 * secure generator; a simulation's seeded one), `i` (0 <= i < P) is the predicate's index in the public predicate list,
 * and text(person) is the person's stored value as text (integers and timestamps in decimal, text as it is, reals as
 * `personRealText`). A person over the bound keeps the `maxGroups` predicates of smallest (rank, i). Every intermediate
 * value is below 2^63 (a value below P times i below 2^31, plus one below P), so the 64-bit integer arithmetic of every
 * engine computes it exactly: no overflow error (DuckDB, PostgreSQL) and no silent turn to a float (SQLite).
 *
 * Why this is sound: the predicates a person keeps depend on that person's own rows and on the key only (the key is
 * drawn independently of the data, and nothing of other persons enters the person's ranks). So with the key fixed,
 * adding or removing one person leaves every other person's kept predicates as they were, and changes at most
 * `maxGroups` counts by at most `cap` each: the sensitivity the charge assumes holds for every key, hence also for the
 * random one. The hash's quality is not part of this argument; it matters for what the bound means: with MD5 as a
 * random function, a person's coefficients are independent uniform values mod P, so the person's ranks are a 4-wise
 * independent family over the predicates (a uniformly random cubic over GF(P)), independent across persons; a person's
 * kept set is then a uniformly random subset of their predicates up to the small departure of 4-wise independence from
 * full independence, which the tests' chi-square checks do not see (maxgroups-truncation.test.ts). One MD5 per person
 * instead of one per (person, predicate) is what makes the bound cheap (the engines' MD5 was most of its cost).
 *
 * SQLite has no MD5: `registerKeyedHash` gives the workspace connection deterministic functions computing the same
 * digest and words (node:crypto). DuckDB and PostgreSQL use their `md5()` (over UTF-8: a PostgreSQL database in another
 * encoding gives other ranks for non-ASCII text persons, still sound). Ties (probability about 1/P per pair of a
 * person's predicates) are broken by the predicate index.
 */
import { createHash } from 'node:crypto'
import type Database from 'better-sqlite3'
import type { ColumnType } from '../../contract/datasets'
import type { Rng } from '../../../src-worker/engine/random'

/** P: the prime modulus of the rank's arithmetic (2^31 - 1). */
export const RANK_MODULUS = 2147483647
/** The rank's coefficients per person: four 32-bit words of the person's MD5. */
export const RANK_WORDS = 4
/** Predicate indices must stay below P (and 2^31) for the arithmetic to be exact. */
export const MAX_RANKED_PREDICATES = RANK_MODULUS
/** 2^31: the engines order by rank 2^31 + i, one integer below 2^62 that sorts as (rank, i). */
export const RANK_INDEX_SPAN = 2147483648

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

/** d: MD5(key ":" text(person)) as 32 lowercase hex digits. */
export function personDigest(key: string, personTextValue: string): string {
  return createHash('md5').update(`${key}:${personTextValue}`, 'utf8').digest('hex')
}

/** c_j: hex digits 8j+1 .. 8j+8 of a digest as an unsigned integer, mod P. */
export function digestWord(digest: string, j: number): number {
  return parseInt(digest.slice(8 * j, 8 * j + 8), 16) % RANK_MODULUS
}

const TWO_31 = 2147483648

/** x mod P for a whole number 0 <= x < 2^53: x = h 2^31 + l is h + l mod P (2^31 is 1 mod P), and h + l < 2P. */
function modP(x: number): number {
  const h = Math.floor(x / TWO_31)
  const r = x - h * TWO_31 + h
  return r >= RANK_MODULUS ? r - RANK_MODULUS : r
}

/** The predicate indices `rankOfSmallIndex` computes exactly: 0 <= i < 2^11. */
export const SMALL_INDICES = 2048

/**
 * rank(person, i) in double arithmetic from the person's coefficients c_0..c_3 (`digestWord` of its digest), for a
 * whole number 0 <= i < SMALL_INDICES (not checked: the DuckDB form's middle, duckdb-truncation.ts, passes bit
 * positions below 512). Exact: with every c_j <= P - 1 and i <= 2047, (c_3 i + c_2) i + c_1 <= (P - 1)(i^2 + i + 1)
 * < 2^31 x 2^22 = 2^53 before its reduction, and that value below P times i plus c_0 < 2^42 before the last.
 */
export function rankOfSmallIndex(c0: number, c1: number, c2: number, c3: number, i: number): number {
  return modP(modP((c3 * i + c2) * i + c1) * i + c0)
}

/** rank(person, i) in JavaScript, in BigInt (the tests' reference; the engines compute it in SQL, dialect.ts `ranked`). */
export function keyedRank(key: string, personTextValue: string, i: number): number {
  if (!Number.isSafeInteger(i) || i < 0 || i >= MAX_RANKED_PREDICATES) throw new RangeError('a predicate index is a whole number below 2^31 - 1')
  const d = personDigest(key, personTextValue)
  const P = BigInt(RANK_MODULUS)
  const x = BigInt(i)
  let r = 0n
  for (let j = RANK_WORDS - 1; j >= 0; j--) r = (r * x + BigInt(digestWord(d, j))) % P
  return Number(r)
}

/** The SQLite functions: qa_person_digest(key, person, isReal) (d, NULL for a NULL person) and qa_digest_word(d, j) (c_j). */
export const SQLITE_DIGEST_FUNCTION = 'qa_person_digest'
export const SQLITE_WORD_FUNCTION = 'qa_digest_word'

const registered = new WeakSet<Database.Database>()

/** Gives a SQLite connection `qa_person_digest` and `qa_digest_word` (deterministic; once per connection). */
export function registerKeyedHash(db: Database.Database): void {
  if (registered.has(db)) return
  // SQLite may evaluate a person's digest once per word it feeds (a flattened subquery): the last one is remembered.
  let lastKey = ''
  let lastText = ''
  let lastDigest = ''
  db.function(SQLITE_DIGEST_FUNCTION, { deterministic: true }, (key: unknown, person: unknown, isReal: unknown) => {
    if (person === null || person === undefined) return null
    const text = isReal === 1 && typeof person === 'number' ? personRealText(person) : String(person)
    const k = String(key)
    if (k !== lastKey || text !== lastText) {
      lastDigest = personDigest(k, text)
      lastKey = k
      lastText = text
    }
    return lastDigest
  })
  db.function(SQLITE_WORD_FUNCTION, { deterministic: true }, (digest: unknown, j: unknown) =>
    typeof digest === 'string' ? digestWord(digest, Number(j)) : null
  )
  registered.add(db)
}
