/**
 * The search's WebAssembly update kernel (wasm/search-update.wat) against its JavaScript twin (log-posterior.ts): the
 * same runs give the same bits, whole posterior included, for every oracle, for sizes that leave a partial last word
 * (the twin finishes it) and runs of hundreds of rounds. Without the kernel in this runtime the test fails
 * instead of comparing the twin with itself.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { seededRng } from '../../../src-worker/engine/random'
import { type SearchParams, privateBinarySearch } from '../../../src-worker/engine/search'
import { RandomPrefix } from '../../../src-worker/engine/search/random-prefix'
import { SearchMemory } from '../../../src-worker/engine/search/search-memory'
import { useWasmKernels, wasmKernelsEnabled } from '../../../src-worker/engine/wasm/kernels'
import { synthetic } from './synthetic'

function bits(a: Float64Array): string {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('base64')
}

describe('search update kernel', () => {
  afterEach(() => useWasmKernels(true))

  it('runs here (WebAssembly with SIMD)', () => {
    expect(wasmKernelsEnabled()).toBe(true)
  })

  it('gives the bits of the JavaScript twin: every oracle, partial last words, refreshes', () => {
    let compared = 0
    for (const n of [256, 1001, 4099]) {
      const scores = synthetic(n, n >> 1, `kernel/${n}`)
      for (const oracle of ['rr', 'binary', 'direct'] as const) {
        for (const eps of [0.25, 4]) {
          const params: SearchParams = {
            epsilon: eps,
            tLow: 1,
            tHigh: 2,
            oracle,
            top: 4,
            halting: { tau: eps > 1 ? 0.999999 : 0.5, maxQueries: 400 }
          }
          const seed = `kernel/${n}/${oracle}/${eps}`
          useWasmKernels(true)
          const a = privateBinarySearch(scores, params, seededRng(seed))
          useWasmKernels(false)
          const b = privateBinarySearch(scores, params, seededRng(seed))
          expect({ ...a, posterior: bits(a.posterior) }).toEqual({ ...b, posterior: bits(b.posterior) })
          compared += a.rounds
        }
      }
    }
    expect(compared).toBeGreaterThan(1000)
  })

  it('splits as the twin does (crossing members, deeper levels, rewritten parts): the same parts after every split', () => {
    let splits = 0
    for (const n of [256, 257, 1001, 4099, 4127]) {
      const memory = new SearchMemory(n)
      expect(memory.kernel).not.toBeNull()
      const withKernel = new RandomPrefix(n, seededRng(`members/${n}`), memory)
      const twin = new RandomPrefix(n, seededRng(`members/${n}`))
      // The kernel's side reads the weights in its memory (as the search's posterior keeps them), the twin a copy.
      const w = memory.weight
      const copy = new Float64Array(n)
      const rng = seededRng(`members/${n}/weights`)
      for (let round = 0; round < 60; round++) {
        // Uneven weights (some zero) so that the crossing part moves between rounds.
        let total = 0
        for (let i = 0; i < n; i++) total += w[i] = rng.next() < 0.05 ? 0 : rng.next() ** (1 + (round % 7))
        copy.set(w)
        expect(withKernel.split(w, total)).toBe(twin.split(copy, total))
        expect(Array.from(withKernel.parts)).toEqual(Array.from(twin.parts))
        splits++
      }
    }
    expect(splits).toBe(300)
  })

  it("deals a crossing part larger than the kernel memory's room in the twin's arrays, then in the kernel again", () => {
    // 4099 individuals: room for 449 a part in the kernel's memory, about 512 a part when all of them deal.
    const n = 4099
    const memory = new SearchMemory(n)
    expect(memory.subStride).toBeLessThan(n / 8)
    const withKernel = new RandomPrefix(n, seededRng('room'), memory)
    const twin = new RandomPrefix(n, seededRng('room'))
    const w = memory.weight
    const rng = seededRng('room/weights')
    let total = 0
    for (let i = 0; i < n; i++) total += w[i] = 0.5 + rng.next()
    const copy = Float64Array.from(w)
    // Everyone in part 0: the crossing part holds all n individuals.
    for (const p of [withKernel, twin]) {
      p.parts.fill(0)
      p.partMass.fill(0)
      p.partMass[0] = total
    }
    expect(withKernel.splitLabelled(w, total)).toBe(twin.splitLabelled(copy, total))
    expect(Array.from(withKernel.parts)).toEqual(Array.from(twin.parts))
    for (let round = 0; round < 20; round++) {
      expect(withKernel.split(w, total)).toBe(twin.split(copy, total))
      expect(Array.from(withKernel.parts)).toEqual(Array.from(twin.parts))
    }
  })
})
