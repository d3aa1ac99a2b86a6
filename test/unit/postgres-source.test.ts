/** Pure parts of the PostgreSQL source: placeholders, the URL and password-variable checks, error kinds. */
import { describe, expect, it } from 'vitest'
import { PgError, numberedParams, pgFailureKind } from '../../src-main/services/sources/pg-sync'
import { checkPasswordEnv, checkPostgresUrl, postgresHosts } from '../../src-main/services/sources/linked-postgres'
import { pgCatalogType, pgStoredExpr } from '../../src-main/services/sources/dialect-postgres'

describe('PostgreSQL source helpers', () => {
  it('numbers ? placeholders outside quoted strings and identifiers', () => {
    expect(numberedParams("SELECT \"a?b\", 'it''s ?' FROM t WHERE x = ? AND y IN (?, ?)")).toBe(
      "SELECT \"a?b\", 'it''s ?' FROM t WHERE x = $1 AND y IN ($2, $3)"
    )
    expect(numberedParams('SELECT "x""?" FROM t WHERE ? = ?')).toBe('SELECT "x""?" FROM t WHERE $1 = $2')
  })

  it('refuses a URL with a password, in either place, without repeating it', () => {
    expect(checkPostgresUrl(' postgresql://reader@db.example:5432/hr ')).toBe('postgresql://reader@db.example:5432/hr')
    expect(checkPostgresUrl('postgres://reader@%2Ftmp%2Fsock/hr')).toBe('postgres://reader@%2Ftmp%2Fsock/hr')
    for (const bad of [
      'postgresql://reader:hunter2@db/hr',
      'postgresql://reader:@db/hr',
      'postgresql://reader@db/hr?sslmode=require&password=hunter2'
    ]) {
      expect(() => checkPostgresUrl(bad)).toThrow(/contains a password/)
      try {
        checkPostgresUrl(bad)
      } catch (e) {
        expect((e as Error).message).not.toContain('hunter2')
      }
    }
    expect(() => checkPostgresUrl('mysql://a@b/c')).toThrow(/must be a URL like postgresql:/)
    expect(() => checkPostgresUrl(42)).toThrow(/must be a URL/)
  })

  it('password variables end in PGPASSWORD; hosts are read as pg reads them', () => {
    expect(checkPasswordEnv(undefined)).toBe(null)
    expect(checkPasswordEnv('HR_PGPASSWORD')).toBe('HR_PGPASSWORD')
    for (const bad of ['QUIET_ALARM_PASSPHRASE', 'HOME', 'PGPASSWORD;rm', 'x'.repeat(200) + 'PGPASSWORD'])
      expect(() => checkPasswordEnv(bad)).toThrow(/ending in PGPASSWORD/)
    expect(postgresHosts('postgresql://r@DB.example:5432/hr')).toEqual(['db.example'])
    expect(postgresHosts('postgresql://r@%2Ftmp%2Fsock:5432/hr')).toEqual(['/tmp/sock'])
  })

  it('error kinds come from codes only', () => {
    expect(pgFailureKind(new PgError('password authentication failed', '28P01'))).toBe('auth')
    expect(pgFailureKind(new PgError('x', '42501'))).toBe('permission')
    expect(pgFailureKind(new PgError('x', '57014'))).toBe('timeout')
    expect(pgFailureKind(new PgError('x', '42P01'))).toBe('no-relation')
    expect(pgFailureKind(new PgError('x', 'ECONNREFUSED'))).toBe('unreachable')
    expect(pgFailureKind(new PgError('Connection terminated unexpectedly', null))).toBe('unreachable')
    expect(pgFailureKind(new PgError('x', '08006'))).toBe('unreachable')
    expect(pgFailureKind(new PgError('x', '22P02'))).toBe('data')
    expect(pgFailureKind(new PgError('x', 'XX000'))).toBe('other')
  })

  it('column types map to the catalog types and stored forms', () => {
    expect(['smallint', 'bigint', 'real', 'numeric', 'date', 'timestamp with time zone', 'boolean', 'uuid'].map(pgCatalogType)).toEqual([
      'integer',
      'integer',
      'real',
      'real',
      'timestamp',
      'timestamp',
      'text',
      'text'
    ])
    expect(pgStoredExpr({ name: 'a"b', pgType: 'text', type: 'text' })).toBe('("a""b" COLLATE "C")')
    // A date JavaScript cannot hold (infinite, or beyond its range) reads as NULL, never as a failing cast.
    expect(pgStoredExpr({ name: 'd', pgType: 'date', type: 'timestamp' })).toBe(
      `(CASE WHEN isfinite("d") AND "d" <= DATE '275760-09-13' THEN (CASE WHEN extract(epoch FROM CAST("d" AS timestamp)) BETWEEN -8640000000000 AND 8640000000000 THEN CAST(floor(extract(epoch FROM CAST("d" AS timestamp)) * 1000) AS bigint) END) END)`
    )
    expect(pgStoredExpr({ name: 'n', pgType: 'bigint', type: 'text' })).toBe('(CAST("n" AS text) COLLATE "C")')
  })
})
