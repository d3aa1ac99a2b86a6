/**
 * The catalog decisions that refuse a linked relation whose values are computed when read: ClickHouse DEFAULT and
 * MATERIALIZED expressions (constant or not, as system.columns.default_expression writes them on 18.16) and
 * PostgreSQL's generated columns by pg_attribute.attgenerated ('' plain, 's' stored, 'v' virtual on PostgreSQL 18).
 */
import { describe, expect, it } from 'vitest'
import { isConstantDefault } from '../../src-main/services/sources/linked-clickhouse'
import { type RelationCatalogRow, readTimeComputation } from '../../src-main/services/sources/linked-postgres'

describe('values computed when read', () => {
  it('ClickHouse: only a literal or a CAST of a literal is a constant default', () => {
    for (const constant of [
      "CAST(0, 'Int64')",
      "CAST(-3, 'Int64')",
      "'x'",
      "'it\\'s'",
      "CAST(NULL, 'Nullable(Int64)')",
      '1.5',
      '-2.5e-3',
      "CAST('2020-01-01', 'Date')",
      "CAST(300, 'UInt8')"
    ]) {
      expect(isConstantDefault(constant), constant).toBe(true)
    }
    for (const computed of [
      'toInt64(code)',
      "CAST(code, 'Int64')",
      "CAST(1 + 1, 'Int64')",
      'intDiv(100, x)',
      'now()',
      "CAST('a', 'Int64') + toInt64(code)",
      "'x' || code",
      "CAST(0, 'Int64'), toInt64(code)",
      ''
    ]) {
      expect(isConstantDefault(computed), computed).toBe(false)
    }
  })

  it('PostgreSQL: a virtual generated column, on the relation or a partition, is refused; a stored one is not', () => {
    const row = (over: Partial<RelationCatalogRow>): RelationCatalogRow => ({
      kind: 'r',
      root: true,
      rowSecurityActive: false,
      populated: true,
      computedColumns: '',
      ...over
    })
    expect(readTimeComputation([row({})])).toBeNull()
    expect(readTimeComputation([row({ kind: 'p' }), row({ root: false })])).toBeNull()
    expect(readTimeComputation([row({ computedColumns: 'token' })])).toMatch(
      /^has virtual generated columns \(token\): they are computed from other columns each time the table is read, .*; make them STORED generated columns/
    )
    expect(readTimeComputation([row({ kind: 'p' }), row({ root: false, computedColumns: 'token, "Other"' })])).toMatch(
      /^has virtual generated columns \(token, "Other"\): /
    )
    expect(readTimeComputation([row({ kind: 'v', computedColumns: 'token' })])).toMatch(/^is a view: /)
  })
})
