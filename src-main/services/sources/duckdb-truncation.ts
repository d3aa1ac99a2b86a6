/**
 * The `maxGroups` aggregates of a linked file (DuckDB) in two passes over the file, instead of dialect.ts's one
 * statement, whose cost is its GROUP BY over every (predicate, person) pair. Same kept sets, same counts:
 *
 * 1. One GROUP BY person (a TEMP table, `persons`): per person a whole number pid (1..n), the rank's coefficients
 *    c_0..c_3 (the dialect's `personDigest` and `digestWord`, as `ranked` computes them) and the set of its
 *    predicates as bits (word w holds indices 64w..64w+63: the OR of its rows' predicates' literal bits,
 *    `predicateBits`), over the rows of the period, or of both periods for a reference threshold (the kept set is over
 *    both, as `keptSql`).
 * 2. In JavaScript, per person: the `maxGroups` set bits of smallest (rank, i), ranks by keyed-hash.ts
 *    `rankOfSmallIndex`: the kept set of `ranked`'s row_number() <= maxGroups (its order key rank 2^31 + i sorts by
 *    (rank, i) as well). The table is read by pid ranges through the source's `numbers` (pid, coefficients and the
 *    words' 32-bit halves, exact as doubles); the persons' values stay in DuckDB.
 * 3. The kept (pid, i) pairs of each range go back as numbers pid * span + i, appended to a TEMP table by DuckDB's
 *    appender (no statement text), then written as (pid, i) into another (`kept`); the second pass joins the rows to
 *    the kept pairs by the person's value (the same equality as `ranked`'s join and partitions) and the predicate's keys
 *    (as `predicateJoin` joins rows to predicates), counts each kept (predicate, person) pair's rows and sums
 *    min(rows, cap) per predicate (and per time bucket for the reference).
 *
 * Which form runs depends on the public definition only: more than MAX_PREDICATE_WORDS words of predicates (512
 * predicates) runs dialect.ts's statements. Every statement and append goes through the source (each read at the file
 * version checked before the charge). Nothing here can fail on the data: the middle sorts numbers, the statements'
 * arguments are whole numbers this module writes, and what JavaScript holds at once is bounded by the definition
 * (persons per read, pairs per write), whatever the number of persons; DuckDB's tables spill past its memory limit as
 * its aggregates do. The tables are dropped after the answer or a failure.
 */
import type { ThresholdQueryDefinition } from '../../contract/datasets'
import type { CatalogDataset } from '../catalog/catalog'
import {
  type Dialect,
  type PredicateColumns,
  type PredicateJoin,
  type Sql,
  type Truncation,
  type Where,
  predicateJoin,
  predicateRows
} from './dialect'
import { RANK_WORDS, rankOfSmallIndex } from './keyed-hash'
import type { Source } from './source'
import { duckAll } from './duckdb-sync'

/** Above this many 64-bit words of predicate bits (512 predicates), dialect.ts's single statements run. */
export const MAX_PREDICATE_WORDS = 8
/** Persons read from pass 1's table per statement, at most (bounds the JavaScript middle's memory). */
export const PERSONS_PER_READ = 131_072
/** Kept pairs written at once, at most (8 MB of doubles): fewer persons per read for a large maxGroups. */
export const PAIRS_PER_WRITE = 1_048_576

/** Persons per read: at most `most`, and (each keeping at most m pairs) at most PAIRS_PER_WRITE pairs; m decides, not the data. */
export function personsPerRead(m: number, most = PERSONS_PER_READ): number {
  return Math.min(most, Math.max(1, Math.floor(PAIRS_PER_WRITE / m)))
}

/** Rows as dialect.ts's statements give them: counts (i, n) and, with a reference period, (i, max, sum). */
export interface TruncatedRows {
  counts: unknown[][]
  reference: unknown[][] | null
}

let tableSerial = 0

function whole(x: number, what: string): number {
  if (!Number.isSafeInteger(x) || x < 1) throw new Error(`${what} must be a whole number >= 1`)
  return x
}

/** Up to this bound a person's smallest keys are kept by insertion, above it by sorting all of them. */
const INSERTION_UP_TO = 16

/**
 * The kept pairs of the persons read from pass 1's table (columns: pid, c_0..c_3, then per word its low and high 32
 * bits), as pid * span + i (span = 64 x words): each person's `m` set bits of smallest (rank, i).
 */
export function keptPairs(columns: Float64Array[], words: number, m: number): Float64Array {
  if (!Number.isSafeInteger(words) || words < 1 || words > MAX_PREDICATE_WORDS) throw new RangeError('from 1 to 8 words of predicate bits')
  const span = 64 * words
  // (rank, i) as one whole number rank * span + i, below 2^31 x 2^9 = 2^40: exact, and it sorts as (rank, i).
  const keys = new Float64Array(span)
  const sorting = m > INSERTION_UP_TO
  const [pids, c0s, c1s, c2s, c3s] = columns
  const bitColumns = columns.slice(1 + RANK_WORDS)
  // Read once here, not per bit (an import may be read through a getter).
  const rank = rankOfSmallIndex
  // At most min(m, span) pairs per person.
  const out = new Float64Array(pids.length * Math.min(m, span))
  let pairs = 0
  for (let r = 0; r < pids.length; r++) {
    const c0 = c0s[r]
    const c1 = c1s[r]
    const c2 = c2s[r]
    const c3 = c3s[r]
    // Inserting: keys[0..min(k, m)) holds, in order, the min(k, m) smallest of the person's keys so far (k counts the keys
    // not rejected), and `worst` is keys[m - 1] once k >= m (+Infinity before): a larger key is none of the m smallest,
    // and is rejected. Sorting: keys[0..k) all of them.
    let k = 0
    let worst = Infinity
    for (let q = 0; q < 2 * words; q++) {
      let x = bitColumns[q][r] | 0
      while (x !== 0) {
        const low = x & -x
        x ^= low
        const i = 32 * q + 31 - Math.clz32(low)
        const key = rank(c0, c1, c2, c3, i) * span + i
        if (sorting) {
          keys[k++] = key
          continue
        }
        if (key >= worst) continue
        let at = k < m ? k : m - 1
        k++
        while (at > 0 && keys[at - 1] > key) {
          keys[at] = keys[at - 1]
          at--
        }
        keys[at] = key
        if (k >= m) worst = keys[m - 1]
      }
    }
    if (sorting && k > m) keys.subarray(0, k).sort()
    const kept = Math.min(k, m)
    for (let n = 0; n < kept; n++) out[pairs++] = pids[r] * span + (keys[n] % span)
  }
  // A buffer of their own: a message to DuckDB's thread copies a view's whole buffer.
  return pairs === out.length ? out : out.slice(0, pairs)
}

/**
 * Per predicate i, its bit in `words` 64-bit words as literal columns b0..b(words-1) of the predicates' rows: word
 * i >> 6 holds 2^(i & 63), the others 0. A row then brings its predicate's bits, and pass 1 only ORs them.
 */
export function predicateBits(words: number): PredicateColumns {
  const names = Array.from({ length: words }, (_, w) => `b${w}`)
  return {
    names,
    cells: (i) => names.map((_, w) => `CAST(${(i >> 6 === w ? 1n << BigInt(i & 63) : 0n).toString()} AS UBIGINT)`)
  }
}

/**
 * The `maxGroups` counts (and reference aggregates) of dialect.ts `truncatedCountSql` / `truncatedReferenceSql`, in
 * two passes; null when the definition has too many predicates for this form (then those statements run). `most`:
 * the persons per read at most (`personsPerRead`).
 */
export function twoPassTruncation(
  src: Pick<Source, 'all'> & Required<Pick<Source, 'numbers' | 'appendNumbers'>>,
  d: Dialect,
  ds: CatalogDataset,
  def: ThresholdQueryDefinition,
  t: Truncation,
  main: Where,
  reference: { where: Where; bucketMs: number } | null,
  most = PERSONS_PER_READ
): TruncatedRows | null {
  const words = Math.ceil(t.predicates.length / 64)
  if (words > MAX_PREDICATE_WORDS) return null
  const cap = whole(t.cap, 'the cap')
  const m = whole(t.maxGroups, 'maxGroups')
  const perRead = personsPerRead(m, whole(most, 'persons per read'))
  const span = 64 * words
  const mainJoin = predicateJoin(d, ds, def, t, main, null, predicateBits(words))
  const refJoin = reference && predicateJoin(d, ds, def, t, reference.where, null, predicateBits(words))
  const bucketJoin = reference && predicateJoin(d, ds, def, t, reference.where, reference.bucketMs)
  // Null for every period or none: it depends on the predicates only (dialect.ts predicateJoin).
  if (!mainJoin || (reference && (!refJoin || !bucketJoin))) return { counts: [], reference: reference ? [] : null }
  const a = predicateRows(mainJoin)
  const b = refJoin && predicateRows(refJoin)

  const all = (q: Sql) => src.all(q)
  const numbers = (q: Sql) => src.numbers(q)
  const serial = ++tableSerial
  const persons = `qa_truncation_persons_${serial}`
  const appended = `qa_truncation_appended_${serial}`
  const kept = `qa_truncation_kept_${serial}`
  try {
    const cols = ['i', 'p', ...mainJoin.extra].join(', ')
    const both = b
      ? { sql: `SELECT ${cols} FROM (${a.sql}) AS ta UNION ALL SELECT ${cols} FROM (${b.sql}) AS tb`, params: [...a.params, ...b.params] }
      : a
    const bits = Array.from({ length: words }, (_, w) => `bit_or(u.b${w}) AS w${w}`)
    const coefficients = Array.from({ length: RANK_WORDS }, (_, j) => `${d.digestWord('pw.hx', j)} AS c${j}`)
    const wordCols = Array.from({ length: words }, (_, w) => `pw.w${w} AS w${w}`)
    all({
      sql:
        `CREATE TEMP TABLE ${persons} AS SELECT row_number() OVER () AS pid, pw.p AS p, ${coefficients.join(', ')}, ${wordCols.join(', ')} ` +
        `FROM (SELECT g.*, ${d.personDigest(t.key, 'g.p', t.person.type)} AS hx FROM (SELECT u.p AS p, ${bits.join(', ')} FROM (${both.sql}) AS u GROUP BY u.p) AS g) AS pw`,
      params: both.params
    })
    // A kept pair is appended as one number x = pid * span + i, exact below 2^53: for fewer than 2^53 / span persons
    // (2^44 at 8 words), more rows than a persons table of at least 6 columns can have on one machine.
    all({ sql: `CREATE TEMP TABLE ${appended} (x DOUBLE)`, params: [] })
    all({ sql: `CREATE TEMP TABLE ${kept} (pid BIGINT, i INTEGER)`, params: [] })
    const n = Number(all({ sql: `SELECT count(*) FROM ${persons}`, params: [] })[0][0])
    const doubles = [
      ...Array.from({ length: RANK_WORDS }, (_, j) => `CAST(c${j} AS DOUBLE)`),
      ...Array.from({ length: words }, (_, w) => `CAST(w${w} & 4294967295 AS DOUBLE), CAST(w${w} >> 32 AS DOUBLE)`)
    ]
    for (let from = 0; from < n; from += perRead) {
      const columns = numbers({
        sql: `SELECT CAST(pid AS DOUBLE), ${doubles.join(', ')} FROM ${persons} WHERE pid > ${from} AND pid <= ${from + perRead}`,
        params: []
      })
      const pairs = keptPairs(columns, words, m)
      if (pairs.length > 0) src.appendNumbers(appended, pairs)
    }
    // As typed columns of a table written by a statement: pass 2's plan uses their ranges (its joins' filters, the
    // perfect hash of the last GROUP BY), which a derived column has none of.
    all({ sql: `INSERT INTO ${kept} SELECT CAST(x AS BIGINT) // ${span}, CAST(x AS BIGINT) % ${span} FROM ${appended}`, params: [] })

    // (i, p[, b], c) over the rows of predicateRows whose (i, p) is kept: a row joins its person's kept pairs by their keys.
    const keptCounts = (join: PredicateJoin, bucket: boolean): Sql => ({
      sql:
        `SELECT kp.i AS i, kp.p AS p${bucket ? ', r.b AS b' : ''}, count(*) AS c FROM ${join.rows} JOIN ` +
        `(SELECT ph.p AS p, ${join.keys.map((g) => `v.${g} AS ${g}, `).join('')}k.i AS i FROM ${kept} AS k JOIN ${persons} AS ph ON ph.pid = k.pid ` +
        `JOIN ${join.values} ON v.i = k.i) AS kp ON r.p = kp.p AND ${join.on('kp')} GROUP BY kp.i, kp.p${bucket ? ', r.b' : ''}`,
      params: join.params
    })
    const counted = keptCounts(mainJoin, false)
    const counts = all({ sql: `SELECT i, sum(${d.least('c', String(cap))}) AS n FROM (${counted.sql}) AS t GROUP BY i`, params: counted.params })
    if (!bucketJoin) return { counts, reference: null }
    const inBuckets = keptCounts(bucketJoin, true)
    const refRows = all({
      sql: `SELECT i, max(n), sum(n) FROM (SELECT i, b, sum(${d.least('c', String(cap))}) AS n FROM (${inBuckets.sql}) AS t GROUP BY i, b) AS pb GROUP BY i`,
      params: inBuckets.params
    })
    return { counts, reference: refRows }
  } finally {
    for (const table of [kept, appended, persons]) {
      try {
        // Straight to DuckDB, not through the source: a DROP reads no file, and the source refuses every statement once
        // the file is no longer the checked version (the failure being handled may be that one).
        duckAll(`DROP TABLE IF EXISTS ${table}`)
      } catch {
        // The counts are read (or the read failed with its own error): a table left behind goes with the connection.
      }
    }
  }
}
