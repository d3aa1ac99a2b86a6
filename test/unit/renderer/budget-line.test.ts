import { describe, expect, it } from 'vitest'
import { budgetLineDataset } from '../../../src-renderer/src/screens/ledger/budgetLineDefinition'

describe('the budget over the spend-per-cell bars', () => {
  it('one cell: a budget bar beside the spend (a one-point line drew nothing); several: the dashed line', () => {
    const one = budgetLineDataset(1, 10, '#b00')
    expect(one.data).toEqual([10])
    expect(one.type).toBe('bar')
    const many = budgetLineDataset(5, 3, '#b00')
    expect(many.type).toBe('line')
    expect(many.data).toEqual([3, 3, 3, 3, 3])
    expect(many.label).toBe('budget (ε 3)')
    expect(budgetLineDataset(2, 2.302585093, '#b00').label).toBe('budget (ε 2.30259)')
  })
})
