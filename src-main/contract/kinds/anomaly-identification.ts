/** The anomaly identification release kind's spec (ALGORITHMS.md section 2): its words, CLI parameters, answer in text. */
import type { KindSpec } from '../release-kinds'
import { RELEASE_PARAMS } from '../release-params'
import { formatCharge } from '../format-epsilon'
import { keyText, padEnd } from './text'

const A = RELEASE_PARAMS.anomalyIdentification

export const anomalyIdentificationSpec: KindSpec<'anomaly-identification'> = {
  queryKind: 'anomaly-identification',
  title: 'Anomaly identification',
  words: 'anomaly identification',
  accuracyPreview: true,
  mechanisms: {
    dp: { name: 'ε-DP mechanism', words: 'optimal ε-DP', described: 'optimal ε-DP' },
    sp: { name: 'sensitive-privacy mechanism', words: 'sensitive privacy', described: '(ε,k)-sensitive' }
  },
  cliUsage: 'anomaly identification: --epsilon E [--mechanism dp|sp]',
  cliMechanism: 'anomaly identification: dp | sp',
  cliParams(cli) {
    cli.require(['epsilon'], 'for an anomaly identification release')
    return {
      kind: 'anomaly-identification',
      mechanism: cli.choice('mechanism', A.mechanism.default, A.mechanism.choices),
      epsilon: cli.number('epsilon', A.epsilon.range)
    }
  },
  answerLines(a) {
    const out = [`Answers (${a.columns.join(', ')}):`]
    for (const x of a.records) out.push(`  ${padEnd(x.record.join(', '), 30)} ${x.anomaly ? 'ANOMALY' : 'normal'}`)
    return out
  },
  reportDecisions(a, named) {
    const flagged = a.records.filter((r) => r.anomaly)
    return {
      asked: a.records.length,
      flagged: flagged.length,
      flaggedNames: flagged.slice(0, named).map((r) => r.record.map((v, i) => `${a.columns[i] ?? ''}=${keyText(v)}`).join(', '))
    }
  },
  decisionsText: (d) => `${d.flagged} of ${d.asked} records flagged${d.named}`,
  paramWords: (n) => (n('epsilon') !== null ? [`ε ${formatCharge(n('epsilon'))} per record asked`] : [])
}
