import { describe, expect, it } from 'vitest'
import { deriveSeed, seededRng } from '../../../src-worker/engine/random'
import { chooseNextStep, runDppwlm } from '../../../src-worker/engine/mide/data-dependent'
import { PAPER_DEFAULTS } from '../../../src-worker/engine/mide/params'
import { ThresholdWorkspace } from '../../../src-worker/engine/mide/workspace'
import { runThresholdTrials } from '../../../src-worker/engine/mide/evaluation'
import { thresholdTrialBatch } from '../../../src-worker/tasks/mide-tasks'

// DPPWLM remembers candidate scores in the workspace across trials: the memo must change nothing, bit for bit.
describe('DPPWLM candidate score memo', () => {
  it('a workspace reused across trials (memo filled) gives the same runs as a fresh one per trial', () => {
    const rng = seededRng('score-memo-instance')
    const k = 60
    const counts = Float64Array.from({ length: k }, () => Math.floor(rng.next() * 40))
    const thresholds = Float64Array.from({ length: k }, (_, i) => counts[i] + Math.floor(rng.next() * 9) - 4)
    for (const p of [{}, { eps1: 1e-5, steps: 8 }, { eps1: 1e-3, steps: 6, fineSteps: 5 }]) {
      const params = { ...PAPER_DEFAULTS, ...p }
      const shared = new ThresholdWorkspace(k)
      for (let t = 0; t < 25; t++) {
        const a = runDppwlm(counts, thresholds, params, seededRng(deriveSeed('memo', t)), shared)
        const got = { d: Array.from(a.decisions), e: Array.from(a.exPost), s: a.steps, l: a.levels }
        const b = runDppwlm(counts, thresholds, params, seededRng(deriveSeed('memo', t)), new ThresholdWorkspace(k))
        expect(got).toEqual({ d: Array.from(b.decisions), e: Array.from(b.exPost), s: b.steps, l: b.levels })
      }
      expect(shared.scoreMemo.size).toBeGreaterThan(0)
    }
  })

  it('chooseNextStep with a memo filled by other inputs picks exactly what it picks without one', () => {
    const plan = [1e-5, 1e-4, 1e-3, 1e-2, 0.1]
    const memo = new Map<string, number>()
    const rng = seededRng('score-memo-choose')
    for (let it = 0; it < 40; it++) {
      const nU = 1 + Math.floor(rng.next() * 20)
      const undecided = Int32Array.from({ length: nU }, (_, i) => i)
      const noisy = Float64Array.from({ length: nU }, () => rng.next() * 10)
      const thresholds = Float64Array.from({ length: nU }, () => rng.next() * 10)
      const decided = new Map([[1e-5, 1 + Math.floor(rng.next() * 30)]])
      const without = chooseNextStep(plan, 1, 1e-5, undecided, noisy, thresholds, decided, 0.05, 3)
      const withMemo = chooseNextStep(plan, 1, 1e-5, undecided, noisy, thresholds, decided, 0.05, 3, memo)
      expect(withMemo).toEqual(without)
    }
    expect(memo.size).toBeGreaterThan(0)
  })
})

describe("a worker's cell workspaces (mide-tasks.ts)", () => {
  it("batches of one cell share the cell's workspace: each batch's metrics are those of a fresh run, in any order", () => {
    const rng = seededRng('cell-workspaces')
    const k = 80
    const counts = Float64Array.from({ length: k }, () => Math.floor(rng.next() * 40))
    const thresholds = Float64Array.from({ length: k }, (_, i) => counts[i] + Math.floor(rng.next() * 9) - 4)
    const cells = [
      { cellSeed: 'cell-a', ...PAPER_DEFAULTS, eps1: 1e-5, steps: 8, epsMax: 8 },
      { cellSeed: 'cell-b', ...PAPER_DEFAULTS, eps1: 1e-3, steps: 6, epsMax: 8 }
    ]
    const ctx = { progress: () => {}, signal: new AbortController().signal } as unknown as Parameters<typeof thresholdTrialBatch>[1]
    // Interleaved batches, one cell's later batch before its earlier one.
    const order: Array<[number, number]> = [
      [0, 10],
      [1, 0],
      [0, 0],
      [1, 10],
      [0, 20]
    ]
    for (const [c, first] of order) {
      const cell = cells[c]
      const batch = thresholdTrialBatch({ ...cell, mechanism: 'dppwlm', counts, thresholds, firstTrial: first, count: 10 }, ctx)
      const fresh = runThresholdTrials('dppwlm', { counts, thresholds }, cell, cell.cellSeed, first, 10)
      expect(fresh.every((r) => !r.denied)).toBe(true)
      expect(Array.from(batch.metrics.fnr)).toEqual(fresh.map((r) => r.fnr ?? NaN))
      expect(Array.from(batch.metrics.epsilonExPost)).toEqual(fresh.map((r) => r.epsStar))
      expect(Array.from(batch.metrics.minEntropyNats)).toEqual(fresh.map((r) => r.minEntropyNats))
    }
  })
})
