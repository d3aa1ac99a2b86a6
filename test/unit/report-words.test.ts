import { describe, expect, it } from 'vitest'
import { headlineCells, paramsInWords } from '../../src-main/services/reports/report-html'
import type { ReportExperiment } from '../../src-main/contract/reports'

describe('report wording', () => {
  it('a release’s parameters in words, only those its mechanism uses', () => {
    const tslm = paramsInWords({ kind: 'threshold', mechanism: 'tslm', params: { beta: 0.05, alpha: 1, eps1: 0.00001, fineSteps: 3, steps: 4 } })
    expect(tslm).toBe(
      'TSLM, one shot; misses a true violation at most 5% of the time (beta 0.05); groups within 2 under their threshold may be flagged (alpha 1)'
    )
    expect(tslm).not.toMatch(/eps1|fine|steps/)
    const pp = paramsInWords({ kind: 'threshold', mechanism: 'dppwlm', params: { beta: 0.01, alpha: 2.5, eps1: 0.00001, fineSteps: 3, steps: 4 } })
    expect(pp).toBe(
      "DPPWLM, in steps chosen from the data; misses a true violation at most 1% of the time (beta 0.01); groups somewhat under their threshold (DPPWLM's band, wider than 2 alpha, not recorded) may be flagged (alpha 2.5); 4 steps; first step ε 0.00001; 3 fine steps"
    )
    // A DPPWLM release states its band as recorded (2 alpha would be false: it is about 5.8 alpha at these steps).
    const recorded = paramsInWords({ kind: 'threshold', mechanism: 'dppwlm', params: { beta: 0.01, alpha: 2.5, tolerance: 16.53, steps: 4 } })
    expect(recorded).toContain('groups within 16.53 under their threshold may be flagged (alpha 2.5)')
  })

  it('the headline cells are the finished ends of each mechanism’s sweep, never a pending cell', () => {
    const cell = (index: number, mechanism: string, alpha: number, status: string) => ({
      index,
      sweep: 's',
      workload: 'w',
      mechanism,
      params: { alpha, beta: 0.05 },
      trials: 10,
      status,
      metrics: status === 'done' ? { fnr: { mean: 0, ciLow: 0, ciHigh: 0, n: 10 } } : {}
    })
    const x = {
      cells: [
        cell(0, 'tslm', 1, 'done'),
        cell(1, 'tslm', 10, 'done'),
        cell(2, 'tslm', 100, 'done'),
        cell(3, 'nlm', 1, 'done'),
        cell(4, 'nlm', 10, 'pending'),
        cell(5, 'nlm', 100, 'pending')
      ]
    } as unknown as ReportExperiment
    expect(headlineCells(x).map((c) => c.index)).toEqual([0, 2, 3])
  })
})
