/**
 * The synchronous DuckDB bridge (worker thread + Atomics): values as better-sqlite3 gives them, bound parameters, errors, restart;
 * numbers column by column (`duckNumbers`) and into a table (`duckAppendNumbers`).
 */
import { afterAll, describe, expect, it } from 'vitest'
import { DuckDbError, closeDuckDb, duckAll, duckAppendNumbers, duckNumbers, duckString } from '../../../src-main/services/sources/duckdb-sync'

afterAll(() => closeDuckDb())

describe('duckAll', () => {
  it('returns rows as arrays of plain values: integers as numbers, text, NULL, doubles, decimals', () => {
    const r = duckAll(`SELECT 42::BIGINT, 7::HUGEINT, 'a''b', NULL, 1.5::DOUBLE, 2.25::DECIMAL(10, 2), true`)
    expect(r.rows).toEqual([[42, 7, "a'b", null, 1.5, 2.25, true]])
    expect(r.types[0]).toBe('BIGINT')
  })

  it('binds parameters in order to ?', () => {
    const r = duckAll('SELECT i FROM range(10) t(i) WHERE i >= ? AND i < ? AND ? = ? ORDER BY i', [3, 6, 'x', 'x'])
    expect(r.rows.map((x) => x[0])).toEqual([3, 4, 5])
  })

  it('a failing statement is a DuckDbError; the next call works', () => {
    expect(() => duckAll('SELECT * FROM read_parquet(?)'.replace('?', duckString('/nonexistent/x.parquet')))).toThrow(DuckDbError)
    expect(duckAll('SELECT 1').rows).toEqual([[1]])
  })

  it('starts a new worker after it was stopped', async () => {
    await closeDuckDb()
    expect(duckAll('SELECT 2').rows).toEqual([[2]])
  })

  it('string literals double their quotes and refuse NUL', () => {
    expect(duckString("o'brien")).toBe("'o''brien'")
    expect(() => duckString('a\u0000b')).toThrow()
  })
})

describe('duckNumbers', () => {
  it('returns one Float64Array per column, in row order over several chunks, whole numbers exact to 2^53, NULL as NaN', () => {
    // 5,000 rows: more than one of DuckDB's 2,048-row chunks.
    const cols = duckNumbers(
      `SELECT CAST(i AS DOUBLE), CAST(i * 4294967296 + 4294967295 AS BIGINT) >> 32, CAST(i AS UBIGINT) & 4294967295, ` +
        `CASE WHEN i % 7 = 0 THEN NULL ELSE 9007199254740992 - i END, CAST(i AS INTEGER) + ?, ` +
        `CASE WHEN i % 5 = 0 THEN NULL ELSE CAST(i AS DOUBLE) / 4 END FROM range(5000) t(i) ORDER BY i`,
      [0.5]
    )
    expect(cols.length).toBe(6)
    for (const c of cols) expect(c).toBeInstanceOf(Float64Array)
    expect(cols[0].length).toBe(5000)
    expect([...cols[0]]).toEqual(Array.from({ length: 5000 }, (_, i) => i))
    expect([...cols[1]]).toEqual(Array.from({ length: 5000 }, (_, i) => i))
    expect(cols[2][4999]).toBe(4999)
    expect(cols[3][1]).toBe(2 ** 53 - 1)
    expect(cols[3][4999]).toBe(2 ** 53 - 4999)
    expect(Number.isNaN(cols[3][0]) && Number.isNaN(cols[3][4998])).toBe(true)
    expect(cols[4][3]).toBe(3.5)
    // A DOUBLE column with NULLs (a chunk's values are copied whole only when none is NULL).
    expect([...cols[5]]).toEqual(Array.from({ length: 5000 }, (_, i) => (i % 5 === 0 ? NaN : i / 4)))
  })

  it('no rows: empty columns; a failing statement is a DuckDbError', () => {
    const cols = duckNumbers('SELECT 1, 2 WHERE false')
    expect(cols.map((c) => c.length)).toEqual([0, 0])
    expect(() => duckNumbers('SELECT * FROM read_parquet(?)'.replace('?', duckString('/nonexistent/x.parquet')))).toThrow(DuckDbError)
  })
})

describe('duckAppendNumbers', () => {
  it('appends the values, in order and exact, as the rows of a temporary table, over several vectors', () => {
    duckAll('CREATE TEMP TABLE qa_append_test (x DOUBLE)')
    // 5,000 values: more than two of DuckDB's 2,048-row vectors; whole numbers to 2^53 and fractions.
    const values = Float64Array.from({ length: 5000 }, (_, i) => (i % 3 === 0 ? 2 ** 53 - i : i + 0.25))
    duckAppendNumbers('qa_append_test', values)
    duckAppendNumbers('qa_append_test', new Float64Array(0))
    duckAppendNumbers('qa_append_test', Float64Array.of(-1.5, 0))
    const back = duckNumbers('SELECT x FROM qa_append_test')[0]
    expect([...back]).toEqual([...values, -1.5, 0])
    duckAll('DROP TABLE qa_append_test')
  })

  it('a name that is not a plain identifier is refused before DuckDB sees it; a missing table is a DuckDbError, and the next call works', () => {
    duckAll('CREATE TEMP TABLE qa_append_victim (x DOUBLE)')
    expect(() => duckAppendNumbers('qa_append_victim"; DROP TABLE qa_append_victim; --', Float64Array.of(1))).toThrow(
      /temporary table of this program/
    )
    expect(duckAll('SELECT count(*) FROM qa_append_victim').rows).toEqual([[0]])
    expect(() => duckAppendNumbers('qa_append_missing', Float64Array.of(1))).toThrow(DuckDbError)
    expect(duckAll('SELECT 3').rows).toEqual([[3]])
    duckAll('DROP TABLE qa_append_victim')
  })
})
