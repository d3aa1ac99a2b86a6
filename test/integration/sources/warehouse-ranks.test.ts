/**
 * The keyed rank in the SQL of BigQuery, Snowflake and Databricks (warehouse-ranks.ts), which cannot be reached from
 * here: (1) golden text, as docs/dev/adding-an-engine.md shows it; (2) each form evaluated by DuckDB with the
 * warehouse's function names defined as the documented functions they stand for (TO_HEX of MD5's bytes = DuckDB's
 * hex md5, TO_NUMBER(s, 'X...') and conv(s, 16, 10) = s read as hex, TO_VARCHAR = CAST AS VARCHAR, INT64 / FLOAT64 =
 * BIGINT / DOUBLE, MOD = DuckDB's mod) equals keyed-hash.ts's rank for integer, text (UTF-8) and real persons, clamps
 * included, and for indices up to P - 1: the structure of each form (separators, digits taken, the real person's text,
 * the cubic) is checked, the warehouses' own functions are taken as documented.
 */
import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { WAREHOUSE_RANKS } from '../../../src-main/services/sources/warehouse-ranks'
import { keyedRank, personText } from '../../../src-main/services/sources/keyed-hash'
import { duckAll, duckString } from '../../../src-main/services/sources/duckdb-sync'

const KEY = '0123456789abcdef0123456789abcdef'
const WORDS = ['c0', 'c1', 'c2', 'c3']

const GOLDEN = {
  bigquery: {
    digest: `TO_HEX(MD5(CONCAT('${KEY}:', CAST(person AS STRING))))`,
    digestReal: `TO_HEX(MD5(CONCAT('${KEY}:', CAST(CAST(FLOOR(LEAST(GREATEST(person, CAST(-1000000000000 AS FLOAT64)), CAST(1000000000000 AS FLOAT64)) * 1000000) AS INT64) AS STRING))))`,
    word: `MOD(CAST(CONCAT('0x', SUBSTR(d, 9, 8)) AS INT64), 2147483647)`,
    rank: `MOD(MOD(MOD(c3 * i + c2, 2147483647) * i + c1, 2147483647) * i + c0, 2147483647)`
  },
  snowflake: {
    digest: `MD5(CONCAT('${KEY}:', TO_VARCHAR(person)))`,
    digestReal: `MD5(CONCAT('${KEY}:', TO_VARCHAR(CAST(FLOOR(LEAST(GREATEST(person, CAST(-1000000000000 AS DOUBLE)), CAST(1000000000000 AS DOUBLE)) * 1000000) AS BIGINT))))`,
    word: `(TO_NUMBER(SUBSTR(d, 9, 8), 'XXXXXXXX') % 2147483647)`,
    rank: `(((c3 * i + c2) % 2147483647 * i + c1) % 2147483647 * i + c0) % 2147483647`
  },
  databricks: {
    digest: `md5(concat('${KEY}:', CAST(person AS STRING)))`,
    digestReal: `md5(concat('${KEY}:', CAST(CAST(FLOOR(least(greatest(person, CAST(-1000000000000 AS DOUBLE)), CAST(1000000000000 AS DOUBLE)) * 1000000) AS BIGINT) AS STRING)))`,
    word: `(CAST(conv(substr(d, 9, 8), 16, 10) AS BIGINT) % 2147483647)`,
    rank: `(((c3 * i + c2) % 2147483647 * i + c1) % 2147483647 * i + c0) % 2147483647`
  }
} as const

const WAREHOUSES = ['bigquery', 'snowflake', 'databricks'] as const

describe('the keyed rank in warehouse SQL', () => {
  it('compiles to the golden text, which the docs show', () => {
    const doc = readFileSync(join(__dirname, '../../../docs/dev/adding-an-engine.md'), 'utf8')
    for (const w of WAREHOUSES) {
      const r = WAREHOUSE_RANKS[w]
      const forms = {
        digest: r.personDigest(KEY, 'person', 'text'),
        digestReal: r.personDigest(KEY, 'person', 'real'),
        word: r.digestWord('d', 1),
        rank: r.rank(WORDS, 'i')
      }
      expect(forms, w).toEqual(GOLDEN[w])
      for (const [name, sql] of Object.entries(forms)) expect(doc, `${w} ${name} in the docs`).toContain(sql)
      // Integer and timestamp persons are read as their decimal text, like text.
      expect(r.personDigest(KEY, 'person', 'integer')).toBe(GOLDEN[w].digest)
      expect(r.personDigest(KEY, 'person', 'timestamp')).toBe(GOLDEN[w].digest)
      expect(() => r.personDigest("x'; DROP TABLE t; --", 'p', 'text')).toThrow(/32 lowercase hex digits/)
      expect(() => r.rank(WORDS.slice(1), 'i')).toThrow(/4 coefficients/)
    }
  })

  it("evaluated with the warehouses' functions stood in for, each form equals keyed-hash.ts's rank", () => {
    // Stand-ins, each the documented behaviour of the warehouse function of that name (TEMP: this connection only).
    duckAll("CREATE OR REPLACE TEMP MACRO to_number(s, f) AS CAST('0x' || s AS BIGINT)") // Snowflake TO_NUMBER(hex, 'XXX...')
    duckAll('CREATE OR REPLACE TEMP MACRO to_varchar(x) AS CAST(x AS VARCHAR)') // Snowflake TO_VARCHAR
    duckAll("CREATE OR REPLACE TEMP MACRO conv(s, a, b) AS CAST(CAST('0x' || s AS BIGINT) AS VARCHAR)") // Databricks conv(hex, 16, 10)
    // BigQuery: TO_HEX(MD5(s)) is the lowercase hex of MD5's bytes, DuckDB's md5(s); INT64 and FLOAT64 are BIGINT and DOUBLE.
    const inDuckDb = (sql: string) =>
      sql
        .replace(/TO_HEX\(/g, '(')
        .replace(/\bINT64\b/g, 'BIGINT')
        .replace(/\bFLOAT64\b/g, 'DOUBLE')
    const persons: Array<{ type: 'text' | 'integer' | 'real'; sql: string; js: unknown }> = [
      { type: 'text', sql: duckString('p7'), js: 'p7' },
      { type: 'text', sql: duckString("o'brien é€"), js: "o'brien é€" },
      { type: 'integer', sql: 'CAST(-42 AS BIGINT)', js: -42 },
      { type: 'integer', sql: 'CAST(9007199254740991 AS BIGINT)', js: 9007199254740991 },
      { type: 'real', sql: 'CAST(3.25 AS DOUBLE)', js: 3.25 },
      { type: 'real', sql: 'CAST(-0.000001 AS DOUBLE)', js: -0.000001 },
      { type: 'real', sql: 'CAST(5e15 AS DOUBLE)', js: 5e15 },
      { type: 'real', sql: 'CAST(-1e300 AS DOUBLE)', js: -1e300 }
    ]
    const indices = [0, 1, 17, 29999, 2147483646]
    let checked = 0
    for (const w of WAREHOUSES) {
      const r = WAREHOUSE_RANKS[w]
      for (const p of persons) {
        const digest = r.personDigest(KEY, p.sql, p.type)
        const words = [0, 1, 2, 3].map((j) => r.digestWord(digest, j))
        for (const i of indices) {
          const sql = inDuckDb(r.rank(words, `CAST(${i} AS BIGINT)`))
          const got = Number(duckAll(`SELECT ${sql}`).rows[0][0])
          expect(got, `${w} ${p.type} ${String(p.js)} ${i}`).toBe(keyedRank(KEY, personText(p.js, p.type), i))
          checked++
        }
      }
    }
    expect(checked).toBe(WAREHOUSES.length * persons.length * indices.length)
  })
})
