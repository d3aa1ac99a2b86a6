/**
 * DuckDB's column expressions (dialect-duckdb.ts `storedExpr`) for wide integer types: a value within +-(2^53 - 1) is read
 * as that number, any other value as NULL, never a failed read; for typed columns (Parquet) and for text read as its
 * linked type (CSV).
 */
import { afterAll, describe, expect, it } from 'vitest'
import { closeDuckDb, duckAll } from '../../../src-main/services/sources/duckdb-sync'
import { storedExpr } from '../../../src-main/services/sources/dialect-duckdb'

afterAll(() => closeDuckDb())

const SAFE = '9007199254740991'
const cases: Array<{ duckType: string; values: Array<[string, number | null]> }> = [
  {
    duckType: 'UBIGINT',
    values: [
      ['0', 0],
      ['5', 5],
      [SAFE, Number(SAFE)],
      ['9007199254740992', null],
      ['18446744073709551615', null]
    ]
  },
  {
    duckType: 'UHUGEINT',
    values: [
      ['0', 0],
      [SAFE, Number(SAFE)],
      ['9007199254740992', null],
      ['340282366920938463463374607431768211455', null]
    ]
  },
  {
    duckType: 'BIGINT',
    values: [
      ['-' + SAFE, -Number(SAFE)],
      ['-9007199254740992', null],
      ['7', 7],
      [SAFE, Number(SAFE)],
      ['9223372036854775807', null]
    ]
  },
  {
    duckType: 'HUGEINT',
    values: [
      ['-170141183460469231731687303715884105728', null],
      ['-' + SAFE, -Number(SAFE)],
      ['-9007199254740992', null],
      [SAFE, Number(SAFE)],
      ['9007199254740992', null]
    ]
  }
]

function read(duckType: string, literals: string[], text: boolean): unknown[] {
  const c = { name: 'x', duckType, type: 'integer' as const }
  const cell = (v: string) => (text ? `'${v}'` : `CAST('${v}' AS ${duckType})`)
  const rows = [...literals.map((v, k) => `(${k}, ${cell(v)})`), `(${literals.length}, NULL)`].join(', ')
  return duckAll(`SELECT ${storedExpr(c, text)} FROM (VALUES ${rows}) AS t(k, "x") ORDER BY k`).rows.map((r) => r[0])
}

describe('wide integers read by DuckDB', () => {
  for (const { duckType, values } of cases) {
    it(`${duckType}: within +-(2^53 - 1) as the number, beyond it NULL (typed column and text)`, () => {
      const expected = [...values.map(([, v]) => v), null]
      expect(
        read(
          duckType,
          values.map(([v]) => v),
          false
        )
      ).toEqual(expected)
      expect(
        read(
          duckType,
          values.map(([v]) => v),
          true
        )
      ).toEqual(expected)
    })
  }

  it('text that is not a value of the linked unsigned type is NULL', () => {
    expect(read('UBIGINT', ['-1', 'abc', ''], true)).toEqual([null, null, null, null])
  })
})
