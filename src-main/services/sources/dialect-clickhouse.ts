/**
 * The ClickHouse compiler (linked ClickHouse tables, local or `Distributed`, read through `@clickhouse/client`). SQL
 * that runs on Debian's ClickHouse 18.16 and on current servers: no window functions, no JOIN, no `IS NOT DISTINCT
 * FROM`, no query parameters on old servers.
 *
 * Columns are read by their names and converted to the stored forms an import gives, never failing on a value
 * (the rule of dialect.ts): 8- to 32-bit integers as Int64; 64-bit and wider integers as Int64 when within
 * +-(2^53 - 1), else NULL; floats as Float64 with NaN as NULL; decimals as Float64; Date, Date32, DateTime and
 * DateTime64 as whole ms since the epoch (UTC whatever the column's time zone; their ranges lie within JavaScript's
 * dates); anything else as its text (`toString`). Strings compare byte-wise (= SQLite's BINARY).
 *
 * Values never enter SQL as text the user typed. On a server with query parameters each value is a typed parameter
 * `{pN:Int64|Float64|String}`; on an older one (18.16) it is inlined as a literal built here from the value's JS type
 * only: a safe integer or finite float (checked, printed by JS) in a CAST, or a string with every byte outside
 * [A-Za-z0-9 _-] written as \xHH (so no quote, backslash or brace reaches the SQL). Identifiers (from the server's
 * own catalog) are backquoted with the same escaping. `bindClickHouse` does either; the tests run both against a real
 * server with hostile strings.
 *
 * The `maxGroups` bound (`truncation` below) is computed in ONE level that reads the table and groups by person, so
 * that on a Distributed table sharded by the person the whole per-person stage can run on the shards (see
 * linked-clickhouse.ts for when that is sound): per person, the distinct predicate indices of its rows are sorted by
 * (keyed rank, i) with `arraySort` and the first `maxGroups` kept (the kept set `ORDER BY person, rank, i LIMIT m BY
 * person` gives, which needs a second level); the person's rows in a kept predicate are capped with
 * `arrayEnumerateUniq` (the n-th row of the same predicate, or (predicate, bucket), is kept while n <= cap), so the
 * level returns at most `maxGroups x cap` small values per person, and the outer levels only count them per predicate
 * (and per time bucket, summed over all persons of every shard, before the max over buckets).
 */
import type { ColumnType, ThresholdQueryDefinition } from '../../contract/datasets'
import type { StoredValue } from '../catalog/column-types'
import type { CatalogColumn, CatalogDataset } from '../catalog/catalog'
import { findColumn } from '../catalog/columns'
import { type Dialect, type Truncation, type Where, keyExpr, whereCondition } from './dialect'
import { RANK_MODULUS, RANK_WORDS, REAL_PERSON_CLAMP, checkedKey } from './keyed-hash'

export interface ChSchemaColumn {
  /** The column's name in the table. */
  name: string
  /** system.columns.type when linked (e.g. "Nullable(Int64)", "DateTime('UTC')"). */
  chType: string
  /** The type the catalog gives it. */
  type: ColumnType
}

export interface LinkedChTable {
  database: string
  table: string
  /** system.tables.engine when linked (e.g. "MergeTree", "Distributed"). */
  engine: string
  columns: ChSchemaColumn[]
}

const SAFE = Number.MAX_SAFE_INTEGER

// ---------------------------------------------------------------------------------------------------------------
// Literals, identifiers, parameters

/** Bytes written as themselves in a literal or identifier; every other byte is \xHH. */
const PLAIN_BYTE = /[A-Za-z0-9 _-]/

function escapedBytes(s: string): string {
  let out = ''
  for (const b of Buffer.from(s, 'utf8')) {
    const ch = String.fromCharCode(b)
    out += b < 0x80 && PLAIN_BYTE.test(ch) ? ch : `\\x${b.toString(16).padStart(2, '0')}`
  }
  return out
}

/** A ClickHouse identifier: backquoted, every byte outside [A-Za-z0-9 _-] escaped. */
export function chIdent(name: string): string {
  if (name === '') throw new Error('an empty identifier')
  return `\`${escapedBytes(name)}\``
}

/** A string as a ClickHouse literal: quoted, every byte outside [A-Za-z0-9 _-] escaped (no quote or backslash survives). */
export function chString(s: string): string {
  return `'${escapedBytes(s)}'`
}

export type ChParamType = 'Int64' | 'Float64' | 'String'

/** The ClickHouse type of a bound value (its JS type decides; NULL is inlined, never bound). */
export function chParamType(v: number | string): ChParamType {
  if (typeof v === 'string') return 'String'
  if (!Number.isFinite(v)) throw new Error('a non-finite number cannot be a ClickHouse value')
  return Number.isSafeInteger(v) ? 'Int64' : 'Float64'
}

/** A value as a typed literal (servers without query parameters). */
export function chLiteral(v: StoredValue): string {
  if (v === null) return 'NULL'
  if (typeof v === 'string') return chString(v)
  const type = chParamType(v)
  // -0 is 0 (a literal "-0" would be the minus of 0); JS prints only digits, '-', '.', 'e' and '+' here.
  const text = String(v + 0)
  if (!/^-?\d+(\.\d+)?(e[+-]\d+)?$/.test(text)) throw new Error('an unexpected number form')
  return `CAST(${text} AS ${type})`
}

/**
 * The `?` placeholders of `sql` (outside quotes and backquotes) bound to `params`: as `{pN:Type}` query parameters when
 * the server has them (`useParameters`), else as literals (`chLiteral`). Returns the SQL and the parameters' values.
 */
export function bindClickHouse(
  sql: string,
  params: readonly StoredValue[],
  useParameters: boolean
): { sql: string; queryParams?: Record<string, string | number> } {
  let out = ''
  let n = 0
  let quote: string | null = null
  const queryParams: Record<string, string | number> = {}
  for (let k = 0; k < sql.length; k++) {
    const ch = sql[k]
    if (quote) {
      out += ch
      if (ch === '\\') out += sql[++k] ?? ''
      else if (ch === quote) quote = null
      continue
    }
    if (ch === "'" || ch === '`' || ch === '"') quote = ch
    if (ch !== '?') {
      out += ch
      continue
    }
    if (n >= params.length) throw new Error('more placeholders than parameters')
    const v = params[n++]
    if (v === null || !useParameters) {
      out += chLiteral(v)
    } else {
      const name = `p${n}`
      queryParams[name] = typeof v === 'number' ? v + 0 : v
      out += `{${name}:${chParamType(v)}}`
    }
  }
  if (quote) throw new Error('an unterminated quote in generated SQL')
  if (n !== params.length) throw new Error('fewer placeholders than parameters')
  return Object.keys(queryParams).length ? { sql: out, queryParams } : { sql: out }
}

// ---------------------------------------------------------------------------------------------------------------
// Types and columns

/** The type inside Nullable(...) and LowCardinality(...). */
export function baseType(chType: string): string {
  let t = chType.trim()
  for (;;) {
    const m = /^(Nullable|LowCardinality)\((.*)\)$/.exec(t)
    if (!m) return t
    t = m[2].trim()
  }
}

const SMALL_INT = /^U?Int(8|16|32)$/
const WIDE_INT = /^U?Int(64|128|256)$/
const FLOAT = /^Float(32|64)$/
const DECIMAL = /^Decimal(32|64|128|256)?\(/

/** The catalog type of a ClickHouse column type (declared: no row is read). */
export function chCatalogType(chType: string): ColumnType {
  const t = baseType(chType)
  if (SMALL_INT.test(t) || WIDE_INT.test(t)) return 'integer'
  if (FLOAT.test(t) || DECIMAL.test(t)) return 'real'
  if (/^(Date|Date32)$/.test(t) || /^DateTime(\(|64\(|$)/.test(t)) return 'timestamp'
  return 'text'
}

/** A table column read as the catalog type's stored form (see the file comment); never fails on a value. */
export function chStoredExpr(c: ChSchemaColumn): string {
  const id = chIdent(c.name)
  const t = baseType(c.chType)
  switch (c.type) {
    case 'integer':
      if (SMALL_INT.test(t)) return `toInt64(${id})`
      // Beyond 2^53 a value is not an exact JS number: NULL (`if` computes both branches: toInt64 wraps, never throws).
      return `if(${id} >= ${-SAFE} AND ${id} <= ${SAFE}, toInt64(${id}), NULL)`
    case 'real':
      return FLOAT.test(t) ? `if(isNaN(${id}), NULL, toFloat64(${id}))` : `toFloat64(${id})`
    case 'timestamp':
      if (t === 'Date') return `(toInt64(toUInt16(${id})) * 86400000)`
      if (t === 'Date32') return `(toInt64(toInt32(${id})) * 86400000)`
      if (t.startsWith('DateTime64')) return `toUnixTimestamp64Milli(${id})`
      return `(toInt64(toUInt32(${id})) * 1000)`
    default:
      return t === 'String' ? id : `toString(${id})`
  }
}

export function chRelation(t: Pick<LinkedChTable, 'database' | 'table'>): string {
  return `${chIdent(t.database)}.${chIdent(t.table)}`
}

const CH_TYPES: Record<ColumnType, string> = { integer: 'Int64', timestamp: 'Int64', real: 'Float64', text: 'String' }

// ---------------------------------------------------------------------------------------------------------------
// The maxGroups bound in one per-person level

/** Names used as aliases: a prefix no column of the table starts with. */
function aliasPrefix(columns: readonly ChSchemaColumn[]): string {
  let p = 'qa_'
  while (columns.some((c) => c.name.toLowerCase().startsWith(p))) p = `q${p}`
  return p
}

interface Piece {
  sql: string
  params: StoredValue[]
}

/** Equality key of a stored value within one column (numbers and text never share a column). */
const valueKey = (v: number | string) => (typeof v === 'number' ? `n${v + 0}` : `s${v}`)

/**
 * The public predicate index of a row, 0-based, or -1 for a row in no predicate: each key column's value mapped to the
 * position of that value among the predicates' values (`transform`, a hash lookup), NULL to its own code, and the codes
 * combined column by column into the predicate's index (each step maps the pairs that occur in the predicate list to
 * small numbers, so nothing overflows whatever the number of columns). Null when no predicate can match a row.
 */
function predicateIndex(
  d: Dialect,
  ds: CatalogDataset,
  def: ThresholdQueryDefinition,
  keys: CatalogColumn[],
  predicates: Truncation['predicates']
): Piece | null {
  const live = predicates.flatMap((vals, i) => (vals ? [{ vals, i }] : []))
  if (live.length === 0) return null
  const params: StoredValue[] = []
  let acc: number[] = []
  let expr = ''
  keys.forEach((col, j) => {
    const distinct = new Map<string, { value: number | string; code: number }>()
    let hasNull = false
    for (const { vals } of live) {
      const v = vals[j]
      if (v === null) hasNull = true
      else if (!distinct.has(valueKey(v))) distinct.set(valueKey(v), { value: typeof v === 'number' ? v + 0 : v, code: distinct.size + 1 })
    }
    const nullCode = hasNull ? distinct.size + 1 : 0
    const codeOf = (v: StoredValue) => (v === null ? nullCode : distinct.get(valueKey(v))!.code)
    const value = keyExpr(d, ds, def, col)
    const chType = CH_TYPES[col.type]
    const zero = col.type === 'text' ? "''" : col.type === 'real' ? 'toFloat64(0)' : 'toInt64(0)'
    // Reals: -0 and 0 are one key (as `=` has it).
    const probe = col.type === 'real' ? `(ifNull(${value}, ${zero}) + 0)` : `ifNull(${value}, ${zero})`
    const vals = [...distinct.values()]
    for (const x of vals) params.push(x.value)
    const lookup = vals.length
      ? `transform(${probe}, CAST([${vals.map(() => '?').join(', ')}] AS Array(${chType})), CAST([${vals.map((x) => x.code).join(', ')}] AS Array(UInt64)), toUInt64(0))`
      : 'toUInt64(0)'
    const code = `if(isNull(${value}), toUInt64(${nullCode}), ${lookup})`
    const codes = live.map(({ vals }) => codeOf(vals[j]))
    if (j === 0) {
      acc = codes
      expr = code
      return
    }
    // Combine: (prefix id) * radix + code, then the occurring pairs renumbered 1..n (0: none).
    const radix = distinct.size + 2
    const pairs = acc.map((a, k) => a * radix + codes[k])
    const ids = new Map<number, number>()
    for (const p of pairs) if (!ids.has(p)) ids.set(p, ids.size + 1)
    expr = `transform(${expr} * ${radix} + ${code}, CAST([${[...ids.keys()].join(', ')}] AS Array(UInt64)), CAST([${[...ids.values()].join(', ')}] AS Array(UInt64)), toUInt64(0))`
    acc = pairs.map((p) => ids.get(p)!)
  })
  // The codes with no predicate are 0 (a column value no predicate has); the predicates' ids are distinct.
  if (new Set(acc).size !== acc.length) throw new Error('two predicates with one key')
  return {
    sql: `transform(${expr}, CAST([${acc.join(', ')}] AS Array(UInt64)), CAST([${live.map((l) => l.i).join(', ')}] AS Array(Int64)), toInt64(-1))`,
    params
  }
}

/** text(person) of keyed-hash.ts in ClickHouse. */
function personTextExpr(person: string, personType: ColumnType): string {
  return personType === 'real'
    ? `toString(toInt64(floor(least(greatest(${person}, toFloat64(${-REAL_PERSON_CLAMP})), toFloat64(${REAL_PERSON_CLAMP})) * 1000000)))`
    : `toString(${person})`
}

/**
 * The keyed rank's coefficients (keyed-hash.ts) of the person `p`, as aliases `<prefix>c0..c3` defined once per person
 * (outside any lambda): c_j = bytes 4j .. 4j+3 of MD5(key ":" text(p)) as a big-endian UInt32 (= hex digits 8j+1 ..
 * 8j+8), mod P, as Int64.
 */
function rankCoefficients(key: string, person: string, personType: ColumnType, prefix: string): string {
  const digest = `MD5(concat('${checkedKey(key)}:', ${personTextExpr(person, personType)})) AS ${prefix}d`
  return Array.from(
    { length: RANK_WORDS },
    (_, j) =>
      `(toInt64(reinterpretAsUInt32(reverse(substring(${j === 0 ? `(${digest})` : `${prefix}d`}, ${4 * j + 1}, 4)))) % ${RANK_MODULUS}) AS ${prefix}c${j}`
  ).join(', ')
}

/** rank(person, i) = c3 i^3 + c2 i^2 + c1 i + c0 mod P by Horner (keyed-hash.ts), over the coefficient aliases; below 2^63 throughout. */
function rankExpr(prefix: string, i: string): string {
  let r = `${prefix}c${RANK_WORDS - 1}`
  for (let j = RANK_WORDS - 2; j >= 0; j--) r = `((${r} * ${i} + ${prefix}c${j}) % ${RANK_MODULUS})`
  return r
}

function wholeNumber(x: number, what: string): number {
  if (!Number.isSafeInteger(x) || x < 1) throw new Error(`${what} must be a whole number >= 1`)
  return x
}

interface PerPersonLevel {
  sql: string
  params: StoredValue[]
  /** The output arrays' names: `main` the kept predicate of each counted main-period row; `ref` the kept (predicate, bucket) code of each counted reference row. */
  main: string
  ref: string | null
}

/** (predicate, time bucket) as one Int64: i * 2^33 + (bucket + 2^32) (hour buckets of JS dates lie within +-2^32). */
const BUCKET_SPAN = 8589934592
const BUCKET_OFFSET = 4294967296

/**
 * The one level that reads the table: per person (GROUP BY), the kept predicates (over the rows of the main period
 * and, with `reference`, of the reference period) and, per kept predicate, the person's rows up to the cap, as
 * arrays; with `bucketMs`, the same per kept (predicate, bucket of the reference period).
 */
function perPersonLevel(
  d: Dialect,
  ds: CatalogDataset,
  def: ThresholdQueryDefinition,
  t: Truncation,
  columns: readonly ChSchemaColumn[],
  main: Where,
  reference: Where | null,
  bucketMs: number | null
): PerPersonLevel | null {
  const keys = def.groupBy.map((g) => findColumn(ds, g, 'group-by column'))
  const index = predicateIndex(d, ds, def, keys, t.predicates)
  if (!index) return null
  const cap = wholeNumber(t.cap, 'the cap')
  const m = wholeNumber(t.maxGroups, 'maxGroups')
  const a = aliasPrefix(columns)
  const mainCond = whereCondition(main)
  const refCond = reference ? whereCondition(reference) : null
  const person = d.column(ds, t.person)
  const rank = rankExpr(a, 'x')
  const kept = `arraySlice(arraySort(x -> (${rank}, x), groupUniqArray(${a}i)), 1, ${m})`
  // Aliases are defined outside lambdas (what a lambda's body defines is computed again for every element).
  // The person's rank coefficients: one MD5 per person (a function of the GROUP BY key), not one per predicate.
  const select: string[] = [rankCoefficients(t.key, `${a}p`, t.person.type, a)]
  const params: StoredValue[] = []
  let ref: string | null = null
  if (bucketMs === null) {
    // The person's main-period rows by predicate index; the n-th row of a kept predicate counts while n <= cap.
    select.push(
      `arrayFilter((x, n) -> n <= ${cap} AND has(${a}kept, x), groupArrayIf(${a}i, ifNull(${mainCond.sql}, 0)) AS ${a}rows, arrayEnumerateUniq(${a}rows)) AS ${a}main`
    )
    params.push(...mainCond.params)
  } else {
    if (!refCond) throw new Error('a reference bucket needs the reference period')
    const t0 = findColumn(ds, (def.threshold as { column: string }).column, 'reference column')
    const code = `${a}i * ${BUCKET_SPAN} + (ifNull(${d.floorDiv(d.column(ds, t0), bucketMs)}, 0) + ${BUCKET_OFFSET})`
    select.push(
      `arrayFilter((x, n) -> n <= ${cap} AND has(${a}kept, intDiv(x, ${BUCKET_SPAN})), groupArrayIf(${code}, ifNull(${refCond.sql}, 0)) AS ${a}refrows, arrayEnumerateUniq(${a}refrows)) AS ${a}ref`
    )
    params.push(...refCond.params)
    ref = `${a}ref`
  }
  const inPeriods = refCond ? `((${mainCond.sql}) OR (${refCond.sql}))` : `(${mainCond.sql})`
  const periodParams = refCond ? [...mainCond.params, ...refCond.params] : mainCond.params
  // The kept set is defined once, in HAVING (which every person passes: each has a predicate).
  const sql =
    `SELECT ${select.join(', ')} FROM ${d.relation(ds)} ` +
    `WHERE (${index.sql} AS ${a}i) >= 0 AND (${person} AS ${a}p) IS NOT NULL AND ${inPeriods} ` +
    `GROUP BY ${a}p HAVING notEmpty(${kept} AS ${a}kept)`
  return { sql, params: [...params, ...index.params, ...periodParams], main: `${a}main`, ref }
}

function clickhouseTruncation(columns: readonly ChSchemaColumn[]): NonNullable<Dialect['truncation']> {
  return {
    count(d, ds, def, t, main, reference) {
      const level = perPersonLevel(d, ds, def, t, columns, main, reference, null)
      if (!level) return null
      return {
        sql: `SELECT x AS i, count() AS n FROM (${level.sql}) ARRAY JOIN ${level.main} AS x GROUP BY x`,
        params: level.params,
        perPerson: true
      }
    },
    reference(d, ds, def, t, main, reference, bucketMs) {
      const level = perPersonLevel(d, ds, def, t, columns, main, reference, bucketMs)
      if (!level) return null
      // The per-bucket count is summed over every person (of every shard) before the max over the buckets.
      const perBucket = `SELECT intDiv(x, ${BUCKET_SPAN}) AS i, count() AS n FROM (${level.sql}) ARRAY JOIN ${level.ref} AS x GROUP BY x`
      return { sql: `SELECT i, max(n), sum(n) FROM (${perBucket}) GROUP BY i`, params: level.params, perPerson: true }
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The dialect

export function clickhouseDialect(table: LinkedChTable): Dialect {
  const byName = new Map(table.columns.map((c) => [c.name, c]))
  return {
    engine: 'clickhouse',
    relation: () => chRelation(table),
    column: (_ds: CatalogDataset, col: CatalogColumn) => {
      const c = byName.get(col.name)
      if (!c) throw new Error(`column ${col.position} is not in the linked table's schema`)
      return chStoredExpr(c)
    },
    least: (a, b) => `least(${a}, ${b})`,
    floorDiv: (x, b) => {
      if (!Number.isSafeInteger(b) || b < 1) throw new Error('bucket width must be a whole number >= 1')
      // `%` keeps the dividend's sign: subtract the non-negative remainder first (then the division is exact).
      return `intDiv(${x} - (((${x} % ${b}) + ${b}) % ${b}), ${b})`
    },
    asc: (e) => `${e} ASC NULLS FIRST`,
    // A ClickHouse table has no row order (parts are read in parallel): anomaly identification does not depend on it.
    fileOrder: () => '',
    typed: (e, type) => (e === 'NULL' ? `CAST(NULL AS Nullable(${CH_TYPES[type]}))` : `CAST(${e} AS ${CH_TYPES[type]})`),
    sameValue: (a, b) => `(${a} = ${b} OR (isNull(${a}) AND isNull(${b})))`,
    values: (rows, names, alias) =>
      `(SELECT ${names.map((n, j) => `tupleElement(t, ${j + 1}) AS ${n}`).join(', ')} FROM (SELECT arrayJoin([${rows.map((r) => `tuple(${r.join(', ')})`).join(', ')}]) AS t)) AS ${alias}`,
    personDigest: (key, person, personType) => `lower(hex(MD5(concat('${checkedKey(key)}:', ${personTextExpr(person, personType)}))))`,
    digestWord: (digest, j) => `(toInt64(reinterpretAsUInt32(reverse(unhex(substring(${digest}, ${8 * j + 1}, 8))))) % ${RANK_MODULUS})`,
    // No common table expressions to materialize: the maxGroups bound has its own form here (`truncation`).
    materialized: '',
    rankPartition: 'number',
    truncation: clickhouseTruncation(table.columns)
  }
}
