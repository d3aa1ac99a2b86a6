import { afterEach, describe, expect, it } from 'vitest'
import { laplaceFromBits } from '../../../src-worker/engine/batch-samplers'
import { runShiftedLaplace } from '../../../src-worker/engine/mide/single-step'
import { ThresholdWorkspace } from '../../../src-worker/engine/mide/workspace'
import { PAPER_DEFAULTS, runThresholdTrials, singleStepEpsilon } from '../../../src-worker/engine/mide/index'
import { deriveSeed, seededRng } from '../../../src-worker/engine/random'
import { binomialLowerTail, binomialUpperTail } from './stats'
import { useWasmKernels, wasmKernelsEnabled } from '../../../src-worker/engine/wasm/kernels'

describe('NLM/TSLM decisions read from the uniform (single-step.ts)', () => {
  it('equal the inverse-CDF Laplace draw of the same words compared with c - shift (all but draws within rounding of a cut)', () => {
    // counts from far below to far above their thresholds, in units of the noise scale
    const k = 2000
    const thresholds = Float64Array.from({ length: k }, (_, i) => 100 + (i % 13))
    for (const [eps, shift] of [
      [2.3, 1],
      [2.3, 0],
      [0.05, 20],
      [40, 0.01]
    ]) {
      const counts = Float64Array.from({ length: k }, (_, i) => thresholds[i] + ((i / k) * 24 - 12) / eps)
      counts[7] = thresholds[7] - shift // tau = 0 exactly
      const ws = new ThresholdWorkspace(k) // reused across trials, as a Monte Carlo batch does
      let differ = 0
      let positives = 0
      for (let t = 0; t < 20; t++) {
        const core = runShiftedLaplace(counts, thresholds, eps, shift, 0.05, seededRng(`single/${eps}/${t}`), ws)
        const w = new Int32Array(2 * k)
        seededRng(`single/${eps}/${t}`).fillLaneWords(w)
        for (let i = 0; i < k; i++) {
          const d = counts[i] + laplaceFromBits(w[2 * i], w[2 * i + 1], 1 / eps) > thresholds[i] - shift ? 1 : 0
          if (d !== core.decisions[i]) differ++
          positives += d
        }
        expect(core.steps[0].decidedPositive).toBe(core.decisions.reduce((a, b) => a + b, 0))
      }
      expect(differ, `eps ${eps}, shift ${shift}`).toBeLessThanOrEqual(1)
      expect(positives).toBeGreaterThan(0.3 * 20 * k) // both outcomes occur: the comparison has power
      expect(positives).toBeLessThan(0.7 * 20 * k)
    }
  })

  it('decides positive with probability P(Lap(1/eps) > c - shift - g) per predicate (binomial, fixed seeds, lane words)', () => {
    // 33 predicates (the kernel's pairs and the twin's odd last one) from 3 noise scales below to 3 above their cut
    const k = 33
    const eps = 0.8
    const shift = 0.5
    const thresholds = new Float64Array(k).fill(50)
    const counts = Float64Array.from({ length: k }, (_, i) => 50 - shift + ((i - 16) / 16) * (3 / eps))
    const n = 6000
    const positives = new Array<number>(k).fill(0)
    const ws = new ThresholdWorkspace(k)
    for (let t = 0; t < n; t++) {
      const core = runShiftedLaplace(counts, thresholds, eps, shift, 0.05, seededRng(deriveSeed('single/binomial', t)), ws)
      for (let i = 0; i < k; i++) positives[i] += core.decisions[i]
    }
    const perCheck = 1e-4 / k // family level 1e-4 (Bonferroni), two-sided
    for (let i = 0; i < k; i++) {
      const tau = thresholds[i] - shift - counts[i]
      const p = tau >= 0 ? 0.5 * Math.exp(-tau * eps) : 1 - 0.5 * Math.exp(tau * eps)
      expect(binomialUpperTail(n, p, positives[i]), `predicate ${i}`).toBeGreaterThan(perCheck / 2)
      expect(binomialLowerTail(n, p, positives[i]), `predicate ${i}`).toBeGreaterThan(perCheck / 2)
    }
  })

  it('recomputes its cuts when the inputs change on the same workspace', () => {
    const ws = new ThresholdWorkspace(3)
    const thresholds = new Float64Array([10, 10, 10])
    const high = runShiftedLaplace(new Float64Array([1e6, 1e6, 1e6]), thresholds, 1, 0, 0.05, seededRng(1), ws)
    expect(Array.from(high.decisions)).toEqual([1, 1, 1])
    const low = runShiftedLaplace(new Float64Array([-1e6, -1e6, -1e6]), thresholds, 1, 0, 0.05, seededRng(1), ws)
    expect(Array.from(low.decisions)).toEqual([0, 0, 0])
  })

  describe('the WebAssembly kernel (wasm/single-step.wat)', () => {
    afterEach(() => useWasmKernels(true))

    it('runs here (WebAssembly with SIMD)', () => {
      expect(wasmKernelsEnabled()).toBe(true)
    })

    it('gives the decisions of its JavaScript twin: odd sizes, tau = 0, cuts at both ends, a workspace reused for new inputs', () => {
      let positives = 0
      let compared = 0
      for (const k of [17, 1001, 2000]) {
        const thresholds = Float64Array.from({ length: k }, (_, i) => 100 + (i % 13))
        for (const [eps, shift] of [
          [2.3, 1],
          [0.05, 20],
          [40, 0.01]
        ]) {
          // noise units from -40 to 40: cuts near -1 and near 2^53 as well as in between
          const counts = Float64Array.from({ length: k }, (_, i) => thresholds[i] + ((i / k) * 80 - 40) / eps)
          counts[3] = thresholds[3] - shift // tau = 0 exactly
          const runs = (on: boolean) => {
            useWasmKernels(on)
            const ws = new ThresholdWorkspace(k)
            const out: number[][] = []
            for (const c of [counts, thresholds]) {
              for (let t = 0; t < 5; t++) {
                const core = runShiftedLaplace(c, thresholds, eps, shift, 0.05, seededRng(`twin/${k}/${eps}/${t}`), ws)
                out.push([core.steps[0].decidedPositive, ...core.decisions])
              }
            }
            return out
          }
          const kernel = runs(true)
          expect(kernel).toEqual(runs(false))
          for (const r of kernel) positives += r[0]
          compared += kernel.length * k
        }
      }
      expect(positives).toBeGreaterThan(0.2 * compared) // both outcomes occur
      expect(positives).toBeLessThan(0.8 * compared)
    })

    it('leaves Monte Carlo results as they were (error counts over the decisions, kernel or not)', () => {
      const k = 999
      const counts = Float64Array.from({ length: k }, (_, i) => 50 + (i % 40))
      const thresholds = Float64Array.from({ length: k }, (_, i) => 60 + (i % 7))
      const trials = (on: boolean) => {
        useWasmKernels(on)
        return runThresholdTrials('tslm', { counts, thresholds }, PAPER_DEFAULTS, 'twin-trials', 0, 8)
      }
      const kernel = trials(true)
      expect(kernel).toEqual(trials(false))
      // the error counts are those of the decisions themselves
      const { alpha, beta } = PAPER_DEFAULTS
      const ws = new ThresholdWorkspace(k)
      for (const r of kernel) {
        const core = runShiftedLaplace(
          counts,
          thresholds,
          singleStepEpsilon(alpha, beta),
          alpha,
          beta,
          seededRng(deriveSeed('twin-trials', r.trial)),
          ws
        )
        let fn = 0
        let fp = 0
        for (let i = 0; i < k; i++) {
          const truth = counts[i] > thresholds[i] ? 1 : 0
          if (truth === 1 && core.decisions[i] === 0) fn++
          if (truth === 0 && core.decisions[i] === 1) fp++
        }
        expect([r.falseNegatives, r.falsePositives]).toEqual([fn, fp])
      }
    })
  })
})
