/** Shared set-up of the experiments tests: small workloads in a temp folder and spec builders. */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { ExperimentSpec } from '../../../src-main/contract/experiments'

/** A threshold workload with `k` predicates whose counts sit within a few units of their thresholds (so mechanisms err). */
export function writeThresholdWorkload(dir: string, k = 60, name = 'w.csv'): string {
  const lines = ['predicate,count,threshold']
  for (let i = 0; i < k; i++) {
    const count = 100 + 7 * i
    const threshold = count + ((i % 9) - 4) * 1.5
    lines.push(`p${i},${count},${threshold}`)
  }
  const path = join(dir, name)
  writeFileSync(path, lines.join('\n') + '\n')
  return path
}

export function thresholdSpec(path: string, over: Partial<ExperimentSpec> = {}): ExperimentSpec {
  return {
    name: 'test sweep',
    engine: 'threshold',
    workloads: [{ kind: 'csv', path, label: 'w' }],
    mechanisms: ['nlm', 'tslm', 'ppwlm', 'dppwlm'],
    grid: { alpha: [1, 3] },
    trials: 24,
    seed: 'test-seed',
    ...over
  }
}
