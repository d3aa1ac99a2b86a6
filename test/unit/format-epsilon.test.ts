import { describe, expect, it } from 'vitest'
import { formatRemaining, formatCharge, formatEpsilon } from '../../src-main/contract/format-epsilon'

describe('one rounding rule for epsilon (6 significant digits; charges and budgets up, remainders down)', () => {
  it('keeps 6 significant digits, rounding charges up and remainders down', () => {
    expect(formatCharge('2.302585093')).toBe('2.30259')
    expect(formatRemaining('2.302585093')).toBe('2.30258')
    expect(formatCharge('1.304006')).toBe('1.30401')
    expect(formatCharge('19.56001')).toBe('19.5601')
    expect(formatCharge('3')).toBe('3')
    expect(formatCharge('3.000000000')).toBe('3')
    expect(formatCharge('0.000010000')).toBe('0.00001')
    expect(formatCharge('999999.5')).toBe('1000000')
    expect(formatCharge('0.9999995')).toBe('1')
    expect(formatRemaining('0.9999995')).toBe('0.999999')
    expect(formatCharge(0)).toBe('0')
    expect(formatCharge('123456789')).toBe('123457000')
  })

  it('negative amounts round away from zero when that is the safe side', () => {
    // A remainder of -3.835431 (budget lowered below the spend) is shown at most what it is.
    expect(formatRemaining('-3.835431')).toBe('-3.83544')
    expect(formatCharge('-3.835431')).toBe('-3.83543')
  })

  it('reads numbers at 15 digits, so float noise is not rounded up into a visible digit', () => {
    expect(formatCharge(2.30259)).toBe('2.30259')
    expect(formatCharge(0.1 + 0.2)).toBe('0.3')
    expect(formatCharge(Math.log(10))).toBe('2.30259')
    expect(formatCharge(1e-9)).toBe('1e-9')
    expect(formatEpsilon(null)).toBe('—')
    expect(formatEpsilon(Number.NaN)).toBe('—')
  })

  it('never shows a spend above its charge: rounding is monotone (random pairs)', () => {
    let seed = 12345
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
    for (let i = 0; i < 5000; i++) {
      const charged = next() * 10 ** Math.floor(next() * 6 - 3)
      const spent = charged * next()
      expect(Number(formatCharge(spent))).toBeLessThanOrEqual(Number(formatCharge(charged)))
      // And a charge is never shown below what it is, a remainder never above.
      expect(Number(formatCharge(charged))).toBeGreaterThanOrEqual(charged * (1 - 1e-14))
      expect(Number(formatRemaining(charged))).toBeLessThanOrEqual(charged * (1 + 1e-14))
    }
  })
})
