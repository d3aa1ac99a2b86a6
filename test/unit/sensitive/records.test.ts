import { describe, expect, it } from 'vitest'
import { buildUniverse, countOf, encodeRecord, findPoint } from '../../../src-worker/engine/sensitive/records'
import { seededRng } from '../../../src-worker/engine/random'

function check(cols: Array<number[] | string[]>, widths: number[], kinds: Array<'numeric' | 'categorical'>) {
  const u = buildUniverse(
    cols,
    kinds.map((kind, k) => ({ kind, binWidth: widths[k] }))
  )
  const n = cols[0].length
  const d = kinds.length
  expect(u.total).toBe(n)
  expect(u.counts.reduce((a, b) => a + b, 0)).toBe(n)
  // Strictly increasing lexicographic order (so distinct).
  for (let p = 1; p < u.size; p++) {
    let c = 0
    for (let k = 0; k < d && c === 0; k++) c = u.points[p * d + k] - u.points[(p - 1) * d + k]
    expect(c).toBeGreaterThan(0)
  }
  // Each record maps to its own binned tuple; counts match a direct tally.
  const tally = new Map<string, number>()
  for (let i = 0; i < n; i++) {
    const raw = cols.map((c) => c[i])
    const t = encodeRecord(u, raw)
    for (let k = 0; k < d; k++) {
      if (kinds[k] === 'numeric') expect(t[k]).toBe(Math.floor((raw[k] as number) / widths[k]))
    }
    expect(Array.from(u.points.subarray(u.recordPoint[i] * d, u.recordPoint[i] * d + d))).toEqual(Array.from(t))
    expect(findPoint(u, t)).toBe(u.recordPoint[i])
    tally.set(t.join(','), (tally.get(t.join(',')) ?? 0) + 1)
  }
  expect(u.size).toBe(tally.size)
  for (let p = 0; p < u.size; p++) expect(u.counts[p]).toBe(tally.get(Array.from(u.points.subarray(p * d, p * d + d)).join(',')))
  return u
}

describe('universe of binned tuples', () => {
  it('bins numeric columns with floor(value / width), keeps categories, and counts duplicates', () => {
    const rng = seededRng('records')
    const n = 500
    const a = Array.from({ length: n }, () => (rng.next() - 0.5) * 40)
    const b = Array.from({ length: n }, () => ['x', 'y', 'z'][Math.floor(rng.next() * 3)])
    const c = Array.from({ length: n }, () => rng.next() * 3)
    const u = check([a, b, c], [2.5, NaN, 0.5], ['numeric', 'categorical', 'numeric'])
    expect(u.categories[1].slice().sort()).toEqual(['x', 'y', 'z'])
    expect(countOf(u, encodeRecord(u, [0, 'nope', 0]))).toBe(0)
    expect(encodeRecord(u, [0, 'nope', 0])[1]).toBe(-1)
  })

  it('handles spans too wide for one packed key (string-key path)', () => {
    const rng = seededRng('records/wide')
    const n = 300
    const a = Array.from({ length: n }, () => Math.floor((rng.next() - 0.5) * 4e9))
    const b = Array.from({ length: n }, (_, i) => (i % 7 === 0 ? 5 : Math.floor((rng.next() - 0.5) * 4e9)))
    const a2 = a.map((v, i) => (i % 5 === 0 ? 17 : v))
    check([a2, b], [1, 1], ['numeric', 'numeric'])
  })

  it('rejects bad specs and values', () => {
    expect(() => buildUniverse([[1, 2]], [{ kind: 'numeric', binWidth: 0 }])).toThrow(RangeError)
    expect(() => buildUniverse([[1, NaN]], [{ kind: 'numeric' }])).toThrow(RangeError)
    expect(() => buildUniverse([[1e300]], [{ kind: 'numeric', binWidth: 1e-300 }])).toThrow(/wider bin/)
    expect(() => buildUniverse([[1, 2], [3]], [{ kind: 'numeric' }, { kind: 'numeric' }])).toThrow(RangeError)
  })
})
