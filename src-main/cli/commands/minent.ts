import { type CliCommand, UsageError, fmt, parseNumberList, reqString } from '../command'
import { minEntropy } from '../../../src-worker/engine/mide/index'

export const minentCommand: CliCommand = {
  name: 'minent',
  required: () => ['eps'],
  summary: 'Min-entropy privacy metric for a vector of per-predicate epsilons',
  usage: 'minent --eps 0.1,0.5,1',
  options: {
    eps: { type: 'string', description: 'comma-separated per-predicate epsilons (each > 0)' }
  },
  async run(values) {
    const raw = reqString(values, 'eps')
    const eps = parseNumberList('eps', raw, { gt: 0 })
    if (eps.length === 0) throw new UsageError('--eps needs at least one value')
    const r = minEntropy(eps)
    const p = Array.from(r.p)
    return {
      json: { k: r.k, gamma: r.gamma, gammaNormalized: r.normalized, p, exact: r.exact },
      text: [
        `k = ${r.k}`,
        `min-entropy gamma = ${fmt(r.gamma, 6)} nats (normalised by ln k: ${fmt(r.normalized, 6)})`,
        `minimising posterior p = ${p.map((x) => fmt(x, 6)).join(', ')}`
      ].join('\n')
    }
  }
}
