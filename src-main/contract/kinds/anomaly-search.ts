/** The anomaly search release kind's spec (ALGORITHMS.md section 4): its words, CLI parameters, answer in text. */
import type { KindSpec } from '../release-kinds'
import { formatCharge } from '../format-epsilon'
import { keyText } from './text'

export const anomalySearchSpec: KindSpec<'anomaly-search'> = {
  queryKind: 'anomaly-search',
  title: 'Anomaly search',
  words: 'anomaly search',
  accuracyPreview: true,
  mechanisms: {
    direct: { name: 'noisy binary search, direct oracle', words: 'noisy binary search, direct oracle', described: 'direct oracle' },
    binary: { name: 'noisy binary search, yes/no oracle', words: 'noisy binary search, yes/no oracle', described: 'binary oracle' },
    rr: { name: 'noisy binary search, randomized response', words: 'noisy binary search, randomized response', described: 'rr oracle' }
  },
  cliUsage: 'anomaly search: (parameters from the saved query)',
  cliMechanism: '',
  // Its epsilon per question, budget, oracle and stopping rule are the saved query's.
  cliParams: () => ({ kind: 'anomaly-search' }),
  answerLines(a) {
    if (a.conclusive === false) {
      // An undecided search names no one: its ids are candidates, not a verdict (they are in --json).
      const out = [a.verdict ?? 'Inconclusive.']
      if (a.posterior) out.push(`Posterior of the ${a.posterior.length} most likely, by rank: ${a.posterior.map((p) => p.toFixed(2)).join(', ')}`)
      return out
    }
    const out = a.verdict ? [a.verdict] : []
    out.push(`Most likely to be the anomaly (most likely first)${a.idColumn ? `, by ${a.idColumn}` : ', by row number'}:`)
    out.push(`  ${a.top.map((t, i) => (a.posterior ? `${keyText(t)} (${a.posterior[i].toFixed(2)})` : keyText(t))).join(', ')}`)
    return out
  },
  reportDecisions(a, named) {
    // An inconclusive search identified nobody: its candidates are not named as findings.
    if (a.conclusive === false) return { asked: null, flagged: 0, flaggedNames: [] }
    return { asked: null, flagged: a.top.length, flaggedNames: a.top.slice(0, named).map(keyText) }
  },
  decisionsText: (d) => (d.flagged === '0' ? 'inconclusive: nobody identified' : `top ${d.flagged} reported${d.named}`),
  paramWords(n) {
    // The saved query's parameters.
    const parts: string[] = []
    if (n('epsilonPerQuery') !== null) parts.push(`ε ${formatCharge(n('epsilonPerQuery'))} per question`)
    if (n('budget') !== null)
      parts.push(`at most ε ${formatCharge(n('budget'))} in all${n('maxQueries') !== null ? ` (${n('maxQueries')} questions)` : ''}`)
    if (n('tLow') !== null && n('tHigh') !== null) parts.push(`protected at or below ${n('tLow')}, the anomaly above ${n('tHigh')}`)
    if (n('top') !== null) parts.push(`the ${n('top')} most likely reported`)
    if (n('tau') !== null) parts.push(`stops at posterior ${n('tau')}`)
    if (n('individuals') !== null) parts.push(`${n('individuals')} individuals searched`)
    return parts
  }
}
