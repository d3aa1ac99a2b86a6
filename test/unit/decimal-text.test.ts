/** Numbers as people type them, read exactly (contract/decimal-text.ts) and by the ledger's exact reader. */
import { describe, expect, it } from 'vitest'
import { decimalText } from '../../src-main/contract/decimal-text'
import { decimalToNano } from '../../src-main/services/chain/nano-epsilon'

describe('decimal text', () => {
  it('accepts every ordinary notation of a non-negative number, and the ledger reads it exactly', () => {
    for (const [typed, nano] of [
      ['2.5', 2_500_000_000],
      ['10000000.0', null],
      ['1e3', 1_000_000_000_000],
      ['1E-3', 1_000_000],
      ['+5', 5_000_000_000],
      ['.5', 500_000_000],
      ['5.', 5_000_000_000],
      [' 7 ', 7_000_000_000],
      ['0', 0]
    ] as const) {
      const t = decimalText(typed)
      expect(t, typed).not.toBeNull()
      if (nano !== null) expect(decimalToNano(t!, 'down'), typed).toBe(nano)
    }
  })

  it('refuses what is not a non-negative number', () => {
    for (const typed of ['', '-1', '1,000', '1_000', '0x10', 'e3', '1e', 'two', 'Infinity', 'NaN', '1.2.3'])
      expect(decimalText(typed), typed).toBeNull()
  })
})
