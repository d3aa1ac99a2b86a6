import { type CliCommand, UsageError, choice, optString, parseNumberList, reqNumber, reqString } from '../command'
import { laplace, seededRng } from '../../../src-worker/engine/random'
import { relaxNoise } from '../../../src-worker/engine/mide/index'
import { freshSeed } from './threshold'

export const noiseCommand: CliCommand = {
  name: 'noise',
  required: () => ['kind', 'eps', 'samples'],
  summary: 'Samples from the Laplace and relaxation samplers, for audits',
  usage: 'noise --kind laplace|relax --eps E | --eps E1,E2 --samples N [--seed S]',
  options: {
    kind: { type: 'string', description: 'laplace (Lap(1/E)) or relax (v1 ~ Lap(1/E1), v2 its relaxation to E2)' },
    eps: { type: 'string', description: 'E for laplace; E1,E2 with E1 <= E2 for relax' },
    samples: { type: 'string', description: 'number of samples (>= 1)' },
    seed: { type: 'string', description: 'seed (default: a fresh one, reported with --json)' }
  },
  async run(values) {
    const kind = choice('kind', reqString(values, 'kind'), ['laplace', 'relax'] as const)
    const eps = parseNumberList('eps', reqString(values, 'eps'), { gt: 0 })
    if (kind === 'laplace' && eps.length !== 1) throw new UsageError(`--eps takes one value with --kind laplace (got ${eps.length})`)
    if (kind === 'relax') {
      if (eps.length !== 2) throw new UsageError(`--eps takes two values E1,E2 with --kind relax (got ${eps.length})`)
      if (eps[1] < eps[0]) throw new UsageError(`--eps E1,E2 must have E1 <= E2 (relaxation goes to a larger epsilon)`)
    }
    const n = reqNumber(values, 'samples', { integer: true, ge: 1 })
    const seedOpt = optString(values, 'seed')
    if (seedOpt !== undefined && seedOpt.trim() === '') throw new UsageError('--seed must not be empty')
    const seed = seedOpt ?? freshSeed()
    const rng = seededRng(seed)
    if (kind === 'laplace') {
      const samples = Array.from({ length: n }, () => laplace(rng, 1 / eps[0]))
      return { json: { kind, eps, samples, seed }, text: samples.map(String).join('\n') }
    }
    const samples: Array<[number, number]> = []
    for (let i = 0; i < n; i++) {
      const v1 = laplace(rng, 1 / eps[0])
      samples.push([v1, relaxNoise(rng, v1, eps[0], eps[1])])
    }
    return { json: { kind, eps, samples, seed }, text: samples.map(([a, b]) => `${a},${b}`).join('\n') }
  }
}
