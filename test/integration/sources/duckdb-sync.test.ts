/** The synchronous DuckDB bridge (worker thread + Atomics): values as better-sqlite3 gives them, bound parameters, errors, restart. */
import { afterAll, describe, expect, it } from 'vitest'
import { DuckDbError, closeDuckDb, duckAll, duckString } from '../../../src-main/services/sources/duckdb-sync'

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
