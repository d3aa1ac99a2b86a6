/**
 * Which failures of the whole-read scan are about reading the file, and so are never remembered as the file version's
 * verdict: a good file must not stay refused after an out-of-memory or an interrupted scan, while a failure the bytes
 * decide (a conversion, an invalid CSV) is remembered.
 */
import { describe, expect, it } from 'vitest'
import { DuckDbError } from '../../src-main/services/sources/duckdb-sync'
import { ioFailure } from '../../src-main/services/sources/linked-file-whole'

describe('whole-read scan faults', () => {
  it.each([
    'IO Error: Cannot open file "/x/a.csv": No such file or directory',
    'Out of Memory Error: failed to allocate data of size 256.0 MiB (1.4 GiB/1.5 GiB used)',
    'INTERRUPT Error: Interrupted!',
    'FATAL Error: Failed: database has been invalidated',
    'INTERNAL Error: Attempted to access index 3 within vector of size 3',
    'DuckDB stalled: no answer from its thread'
  ])('%s is a passing fault', (message) => {
    expect(ioFailure(new DuckDbError(message))).toBe(true)
  })

  it.each([
    'Invalid Input Error: Invalid unicode (byte sequence mismatch) detected in value construction',
    'Conversion Error: Could not convert string "abc" to INT64',
    'Invalid Input Error: CSV Error on Line: 7\nValue with unterminated quote found.'
  ])('%s is about the bytes', (message) => {
    expect(ioFailure(new DuckDbError(message))).toBe(false)
  })

  it('a failure outside DuckDB (the bridge) is a passing fault', () => {
    expect(ioFailure(new Error('worker exited'))).toBe(true)
  })
})
