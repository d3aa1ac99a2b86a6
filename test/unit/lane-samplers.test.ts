/**
 * Laplace draws and relaxations in lanes (lane-samplers.ts, wasm/samplers.wat): the kernel gives its twin's bits; the
 * polynomial log and exp are within a few units in the last place of Math's; the draws follow their laws (KS and
 * binomial tests with fixed seeds, levels below); PPWLM gives the same results kernel or not.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { uniformFromBits } from '../../src-worker/engine/batch-samplers'
import { expNegative, laneSamplerMemory, laplaceLanes, logUnit, relaxLanes } from '../../src-worker/engine/lane-samplers'
import { PAPER_DEFAULTS, relaxNoise, runThresholdTrials } from '../../src-worker/engine/mide/index'
import { type Rng, seededRng } from '../../src-worker/engine/random'
import { useWasmKernels, wasmKernelsEnabled } from '../../src-worker/engine/wasm/kernels'
import { binomialLowerTail, binomialUpperTail, ksCritical, ksStatistic, laplaceCdf } from './mide/stats'

// KS of the draws, and per relaxation setting KS + two binomial tails: 1 + 2 x 3 = 7 checks at family level 1e-4.
const PER_CHECK = 1e-4 / 7

function bits(a: Float64Array): string {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('base64')
}

describe('lane samplers', () => {
  afterEach(() => useWasmKernels(true))

  it('the kernel runs here and gives the bits of its twin (odd counts: the twin finishes the last item)', () => {
    expect(wasmKernelsEnabled()).toBe(true)
    for (const n of [17, 1001, 20_000]) {
      const words = new Int32Array(4 * n)
      seededRng(`lanes/${n}`).fillSampleWords(words)
      const run = (on: boolean) => {
        useWasmKernels(on)
        const mem = laneSamplerMemory(n)
        expect(mem.kernel !== null).toBe(on)
        mem.words.set(words.subarray(0, 2 * n))
        laplaceLanes(mem, n, 1e5)
        const drawn = bits(Float64Array.from(mem.values))
        const out = [drawn]
        for (const [e1, e2] of [
          [1e-5, 7e-4],
          [7e-4, 0.05],
          [0.05, 3.7]
        ]) {
          mem.words.set(words)
          relaxLanes(mem, n, e1, e2)
          out.push(bits(Float64Array.from(mem.values)))
        }
        return out
      }
      expect(run(true)).toEqual(run(false))
    }
  })

  it('logUnit and expNegative are within a few units in the last place of Math.log and Math.exp', () => {
    const rng = seededRng('lanes/accuracy')
    let logErr = 0
    let expErr = 0
    for (let i = 0; i < 200_000; i++) {
      const u = rng.next() ** (1 + (i % 60)) || 1
      const l = Math.log(u)
      if (l !== 0) logErr = Math.max(logErr, Math.abs(logUnit(u) - l) / Math.abs(l))
      const x = rng.next() * 708
      expErr = Math.max(expErr, Math.abs(expNegative(x) - Math.exp(-x)) / Math.exp(-x))
    }
    expect(logErr).toBeLessThan(1e-15)
    expect(expErr).toBeLessThan(1e-15)
    expect(logUnit(1)).toBe(0)
    expect(logUnit(1 - 2 ** -53)).toBe(Math.log(1 - 2 ** -53))
    expect(expNegative(0)).toBe(1)
    expect(expNegative(1e6)).toBe(expNegative(708))
  })

  it('Laplace draws: KS against Laplace(0, 2), 200,000 draws, fixed seed', () => {
    const n = 200_000
    const mem = laneSamplerMemory(n)
    seededRng('lanes/ks').fillSampleWords(mem.words, 2 * n)
    laplaceLanes(mem, n, 2)
    expect(ksStatistic(mem.values, laplaceCdf(2))).toBeLessThan(ksCritical(n, PER_CHECK))
  })

  for (const [e1, e2] of [
    [0.5, 1.5],
    [1e-5, 1.5e-3],
    [1, 8]
  ] as const) {
    it(`relaxation e1=${e1} -> e2=${e2}: relaxNoise fed the same uniforms; v2 ~ Lap(1/e2), P(v2 = v1) = (e1/e2)^2`, () => {
      const n = 40_000
      const rng = seededRng(`lanes/relax/${e1}/${e2}`)
      const mem = laneSamplerMemory(n)
      rng.fillSampleWords(mem.words, 2 * n)
      laplaceLanes(mem, n, 1 / e1)
      const v1 = Float64Array.from(mem.values)
      rng.fillSampleWords(mem.words, 4 * n)
      const words = Int32Array.from(mem.words)
      relaxLanes(mem, n, e1, e2)
      let same = 0
      let apart = 0
      for (let q = 0; q < n; q++) {
        const uniforms = [uniformFromBits(words[4 * q], words[4 * q + 1]), uniformFromBits(words[4 * q + 2], words[4 * q + 3])]
        const fed: Rng = {
          kind: 'seeded',
          next: () => uniforms.shift()!,
          fillWords: () => {},
          fillSampleWords: () => {},
          fillLaneWords: () => {},
          laneState: () => null
        }
        const ref = relaxNoise(fed, v1[q], e1, e2)
        if (Math.abs(mem.values[q] - ref) > 1e-12 * Math.max(1, Math.abs(ref))) apart++ // a branch threshold within rounding
        if (mem.values[q] === v1[q]) same++
      }
      expect(apart).toBeLessThanOrEqual(1)
      expect(ksStatistic(mem.values, laplaceCdf(1 / e2))).toBeLessThan(ksCritical(n, PER_CHECK))
      const p = (e1 / e2) ** 2
      expect(binomialUpperTail(n, p, same)).toBeGreaterThan(PER_CHECK / 2)
      expect(binomialLowerTail(n, p, same)).toBeGreaterThan(PER_CHECK / 2)
    })
  }

  it('PPWLM trials are the same with the kernel or its twin', () => {
    const k = 501
    const counts = Float64Array.from({ length: k }, (_, i) => 100 + ((i * 37) % 200))
    const thresholds = Float64Array.from({ length: k }, (_, i) => 150 + (i % 100))
    const trials = (on: boolean) => {
      useWasmKernels(on)
      return runThresholdTrials('ppwlm', { counts, thresholds }, { ...PAPER_DEFAULTS, eps1: 0.01, steps: 6, epsMax: 8 }, 'lanes/ppwlm', 0, 20)
    }
    const kernel = trials(true)
    expect(kernel).toEqual(trials(false))
    expect(kernel.some((t) => t.steps > 1)).toBe(true)
  })
})
