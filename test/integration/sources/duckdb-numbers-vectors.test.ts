/**
 * `duckNumbers` copies a DOUBLE vector without NULLs in one step (duckdb-sync.ts): sound only if every vector a result
 * hands back is flat, as long as its chunk, and says "no NULLs" only when it has none. DuckDB builds constant vectors
 * (a literal, a constant NULL), dictionary vectors (a Parquet column's dictionary pages) and selections (a filter)
 * inside a query; the copy must give what the value-by-value read (`duckAll`) gives for each, NULLs as NaN. If a
 * result's vector were copied as it lies (a constant vector's one value, a dictionary's indices), a release's middle
 * (duckdb-truncation.ts) would read other persons' bits and coefficients than DuckDB holds for them.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { closeDuckDb, duckAll, duckNumbers, duckString } from '../../../src-main/services/sources/duckdb-sync'

let dir: string
let pq: string

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'qa-numbers-vectors-'))
  pq = join(dir, 'dictionary.parquet')
  // Few distinct values over 10,000 rows: Parquet writes the columns as dictionary pages (d with NULLs, e without).
  duckAll(
    `COPY (SELECT i, CASE WHEN i % 11 = 0 THEN NULL ELSE CAST(i % 5 AS DOUBLE) + 0.5 END AS d, CAST(i % 3 AS DOUBLE) * 2 AS e ` +
      `FROM range(10000) t(i)) TO ${duckString(pq)} (FORMAT parquet, ROW_GROUP_SIZE 3000)`
  )
})

afterAll(async () => {
  await closeDuckDb()
  rmSync(dir, { recursive: true, force: true })
})

/** The same statement read value by value (`duckAll`), NULL as NaN. */
function byValue(sql: string): number[][] {
  const rows = duckAll(sql).rows
  const n = rows.length ? rows[0].length : 0
  return Array.from({ length: n }, (_, j) => rows.map((r) => (r[j] === null ? NaN : Number(r[j]))))
}

function same(sql: string): void {
  const got = duckNumbers(sql).map((c) => [...c])
  expect(got, sql).toEqual(byValue(sql))
}

describe('duckNumbers over every vector shape a result may hold', () => {
  it('constant vectors: a literal, a constant NULL, a parameter-free expression, beside a flat column, over several chunks', () => {
    same(`SELECT CAST(i AS DOUBLE), 1.5::DOUBLE, NULL::DOUBLE, CAST(7 AS DOUBLE) * 2 FROM range(5000) t(i) ORDER BY i`)
    const [, one, nulls] = duckNumbers(`SELECT CAST(i AS DOUBLE), 1.5::DOUBLE, NULL::DOUBLE FROM range(5000) t(i)`)
    expect(one.every((x) => x === 1.5)).toBe(true)
    expect(nulls.every((x) => Number.isNaN(x))).toBe(true)
  })

  it('dictionary vectors (a Parquet column of few values, with and without NULLs) and a filter', () => {
    const file = `read_parquet(${duckString(pq)})`
    same(`SELECT d, e FROM ${file} ORDER BY i`)
    same(`SELECT d, e FROM ${file} WHERE i % 7 <> 3 ORDER BY i`)
    // Without ORDER BY: the file's own order, chunk by chunk as the scan gives them.
    same(`SELECT e, d FROM ${file}`)
  })

  it('a NULL only in some chunks: a chunk without NULLs beside one with them', () => {
    same(`SELECT CASE WHEN i >= 4096 AND i < 4100 THEN NULL ELSE CAST(i AS DOUBLE) END FROM range(8192) t(i) ORDER BY i`)
    same(`SELECT CASE WHEN i < 2048 THEN NULL ELSE CAST(i AS DOUBLE) END FROM range(4096) t(i) ORDER BY i`)
  })
})
