/**
 * The keyed rank of the `maxGroups` bound (keyed-hash.ts) in the SQL of warehouses that cannot be reached from here
 * (BigQuery, Snowflake, Databricks): the first dialect of such an engine takes its `personDigest` and `digestWord`
 * from here, and its rank from `rank` (dialect.ts writes the cubic with `%`, which BigQuery lacks: its `MOD` is here).
 * Each form computes exactly keyed-hash.ts's values: d = MD5(key ":" text(person)) as 32 lowercase hex digits, where
 * text(person) is the decimal text of an integer or timestamp (ms), the text itself, or for a real floor(x * 10^6)
 * with x clamped to [-10^12, 10^12] (a real person is never NaN here: the column expression reads NaN as NULL);
 * c_j = hex digits 8j+1 .. 8j+8 of d as an integer, mod P; rank = c3 i^3 + c2 i^2 + c1 i + c0 mod P by Horner, every
 * intermediate below 2^63. docs/dev/adding-an-engine.md shows them; a test holds them to their golden text and
 * evaluates them (they cannot be run here).
 */
import type { ColumnType } from '../../contract/datasets'
import { RANK_MODULUS, RANK_WORDS, REAL_PERSON_CLAMP, checkedKey } from './keyed-hash'

export type Warehouse = 'bigquery' | 'snowflake' | 'databricks'

export interface WarehouseRank {
  /** d of `person` (an expression of catalog type `personType`): 32 lowercase hex digits. */
  personDigest(key: string, person: string, personType: ColumnType): string
  /** c_j of the digest expression `digest`: an integer below P. */
  digestWord(digest: string, j: number): string
  /** rank(person, i) from the coefficient expressions c_0 .. c_3 and the predicate index `i`. */
  rank(words: readonly string[], i: string): string
}

function clampedReal(person: string, least: string, greatest: string, float: string): string {
  return `${least}(${greatest}(${person}, CAST(${-REAL_PERSON_CLAMP} AS ${float})), CAST(${REAL_PERSON_CLAMP} AS ${float}))`
}

function horner(words: readonly string[], i: string, mod: (x: string) => string): string {
  if (words.length !== RANK_WORDS) throw new Error(`the keyed rank has ${RANK_WORDS} coefficients`)
  let r = words[RANK_WORDS - 1]
  for (let j = RANK_WORDS - 2; j >= 0; j--) r = mod(`${r} * ${i} + ${words[j]}`)
  return r
}

export const WAREHOUSE_RANKS: Record<Warehouse, WarehouseRank> = {
  // MD5 gives BYTES and TO_HEX lowercase hex; a '0x' hex string casts to INT64; BigQuery has MOD, no % operator.
  bigquery: {
    personDigest: (key, person, personType) => {
      const text =
        personType === 'real'
          ? `CAST(CAST(FLOOR(${clampedReal(person, 'LEAST', 'GREATEST', 'FLOAT64')} * 1000000) AS INT64) AS STRING)`
          : `CAST(${person} AS STRING)`
      return `TO_HEX(MD5(CONCAT('${checkedKey(key)}:', ${text})))`
    },
    digestWord: (digest, j) => `MOD(CAST(CONCAT('0x', SUBSTR(${digest}, ${8 * j + 1}, 8)) AS INT64), ${RANK_MODULUS})`,
    rank: (words, i) => horner(words, i, (x) => `MOD(${x}, ${RANK_MODULUS})`)
  },
  // MD5 gives lowercase hex text; TO_NUMBER reads hex with an X per digit.
  snowflake: {
    personDigest: (key, person, personType) => {
      const text =
        personType === 'real'
          ? `TO_VARCHAR(CAST(FLOOR(${clampedReal(person, 'LEAST', 'GREATEST', 'DOUBLE')} * 1000000) AS BIGINT))`
          : `TO_VARCHAR(${person})`
      return `MD5(CONCAT('${checkedKey(key)}:', ${text}))`
    },
    digestWord: (digest, j) => `(TO_NUMBER(SUBSTR(${digest}, ${8 * j + 1}, 8), 'XXXXXXXX') % ${RANK_MODULUS})`,
    rank: (words, i) => horner(words, i, (x) => `(${x}) % ${RANK_MODULUS}`)
  },
  // Spark SQL: md5 gives lowercase hex text; conv turns base 16 into base-10 text.
  databricks: {
    personDigest: (key, person, personType) => {
      const text =
        personType === 'real'
          ? `CAST(CAST(FLOOR(${clampedReal(person, 'least', 'greatest', 'DOUBLE')} * 1000000) AS BIGINT) AS STRING)`
          : `CAST(${person} AS STRING)`
      return `md5(concat('${checkedKey(key)}:', ${text}))`
    },
    digestWord: (digest, j) => `(CAST(conv(substr(${digest}, ${8 * j + 1}, 8), 16, 10) AS BIGINT) % ${RANK_MODULUS})`,
    rank: (words, i) => horner(words, i, (x) => `(${x}) % ${RANK_MODULUS}`)
  }
}
