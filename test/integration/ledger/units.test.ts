import { describe, expect, it } from 'vitest'
import { decimalToNano, epsilonAtMost, floatToNanoUp, nanoToDecimal, nanoToDisplay } from '../../../src-main/services/chain/nano-epsilon'
import { cellSpend, cellKey, WHOLE_DATASET } from '../../../src-main/services/ledger/cells'
import { seededRng } from '../../../src-worker/engine/random'

describe('exact privacy arithmetic', () => {
  it('parses decimals exactly, rounding charges up and budgets down', () => {
    expect(decimalToNano('0.1', 'up')).toBe(100_000_000)
    expect(decimalToNano(0.1, 'up')).toBe(100_000_000)
    expect(decimalToNano('1e-7', 'up')).toBe(100)
    expect(decimalToNano('0.0000000001', 'up')).toBe(1)
    expect(decimalToNano('0.0000000001', 'down')).toBe(0)
    expect(decimalToNano('2.3025850929940457', 'up')).toBe(2_302_585_093)
    expect(decimalToNano('2.3025850929940457', 'down')).toBe(2_302_585_092)
    expect(() => decimalToNano('-1', 'up')).toThrow()
    expect(() => decimalToNano('abc', 'up')).toThrow()
  })

  it('ten charges of 0.1 sum to exactly 1.0 (a float sum would not)', () => {
    let floatSum = 0
    for (let i = 0; i < 10; i++) floatSum += 0.1
    expect(floatSum).not.toBe(1) // the reason for integers
    expect(10 * decimalToNano(0.1, 'up')).toBe(decimalToNano('1.0', 'down'))
  })

  it('a computed epsilon is never rounded down, and the mechanism never gets more than was charged', () => {
    const rng = seededRng('units')
    for (let i = 0; i < 2000; i++) {
      const x = Math.exp(8 * rng.next() - 6) // 0.0025 .. 7.4
      const nano = floatToNanoUp(x)
      // exact comparison with BigInt: nano / 1e9 >= x  (x * 1e9 computed in float is checked loosely, then exactly)
      expect(nano).toBeGreaterThanOrEqual(x * 1e9)
      const back = epsilonAtMost(nano)
      expect(back).toBeLessThanOrEqual(nano / 1e9)
      expect(back * 1e9).toBeLessThanOrEqual(nano)
      expect(back).toBeGreaterThan(0)
    }
    expect(epsilonAtMost(100_000_000)).toBeLessThan(0.1) // the double 0.1 is a little above one tenth
  })

  it('formats exactly or rounds in the safe direction', () => {
    expect(nanoToDecimal(1_500_000_000)).toBe('1.5')
    expect(nanoToDecimal(1)).toBe('0.000000001')
    expect(nanoToDisplay(2_302_585_093, 'up')).toBe('2.30259')
    expect(nanoToDisplay(2_302_585_093, 'down')).toBe('2.30258')
    expect(nanoToDisplay(100_000_000)).toBe('0.1')
  })
})

describe('partition cells', () => {
  const room = (b: string, r: string) => cellKey({ building: b, room: r })
  it('disjoint cells compose in parallel (max), shared cells sequentially (sum)', () => {
    const s = cellSpend([
      { cell: room('A', '1'), nano: 3 },
      { cell: room('A', '2'), nano: 5 }
    ])
    expect(s.maxNano).toBe(5)
    const t = cellSpend([
      { cell: room('A', '1'), nano: 3 },
      { cell: room('A', '2'), nano: 5 },
      { cell: room('A', '2'), nano: 4 }
    ])
    expect(t.maxNano).toBe(9)
  })
  it('a whole-dataset charge applies to every cell; a coarser cell covers its finer ones', () => {
    const s = cellSpend([
      { cell: room('A', '1'), nano: 3 },
      { cell: room('B', '1'), nano: 5 },
      { cell: WHOLE_DATASET, nano: 2 },
      { cell: cellKey({ building: 'A' }), nano: 4 }
    ])
    const total = (k: string) => s.cells.find((c) => c.cell === k)!.totalNano
    expect(total(room('A', '1'))).toBe(3 + 2 + 4)
    expect(total(room('B', '1'))).toBe(5 + 2)
    expect(total(cellKey({ building: 'A' }))).toBe(4 + 3 + 2)
    expect(s.maxNano).toBe(9)
  })
  it('cells over different columns that may share records are summed (never under-counted)', () => {
    const s = cellSpend([
      { cell: cellKey({ room: '1' }), nano: 3 },
      { cell: cellKey({ hour: 14 }), nano: 5 }
    ])
    expect(s.maxNano).toBe(8)
  })
})

describe('partition cells: the maximum over records, checked by brute force', () => {
  it('equals the maximum over every hypothetical record of the charges covering it', () => {
    const rng = seededRng('cells-brute')
    const cols = ['a', 'b', 'c']
    const values = [0, 1, 2]
    for (let trial = 0; trial < 200; trial++) {
      const charges: Array<{ cell: string; nano: number }> = []
      const n = 1 + Math.floor(rng.next() * 8)
      for (let i = 0; i < n; i++) {
        const conj: Record<string, number> = {}
        for (const c of cols) if (rng.next() < 0.5) conj[c] = values[Math.floor(rng.next() * 3)]
        charges.push({ cell: cellKey(conj), nano: 1 + Math.floor(rng.next() * 10) })
      }
      let brute = 0
      for (const a of values)
        for (const b of values)
          for (const c of values) {
            const rec: Record<string, number> = { a, b, c }
            let s = 0
            for (const ch of charges) {
              const conj = JSON.parse(ch.cell) as Record<string, number>
              if (Object.entries(conj).every(([k, v]) => rec[k] === v)) s += ch.nano
            }
            brute = Math.max(brute, s)
          }
      expect(cellSpend(charges).maxNano).toBe(brute)
    }
  })
})
