/**
 * The alarm-period release kind's spec: the releases an alarm makes (ALGORITHMS.md section 7), one per evaluated period
 * (row-level, per-period) or per when-fires instance. Made by `alarm run-due`, never asked for with `release`.
 */
import type { KindSpec } from '../release-kinds'
import { thresholdSpec } from './threshold'

export const alarmPeriodSpec: KindSpec<'alarm-period'> = {
  queryKind: 'threshold',
  title: 'Alarm period',
  words: 'alarm period',
  accuracyPreview: false,
  mechanisms: {
    // A period's threshold mechanism is named by its own id (tslm, ppwlm, dppwlm: the threshold kind's).
    svt: { name: 'sparse vector (when it fires)', words: 'sparse vector, when it fires', described: 'sparse vector' }
  },
  cliUsage: '',
  cliMechanism: '',
  cliParams: null,
  answerLines(a) {
    if (a.threshold) return [`Alarm ${a.alarmId}, period ${a.from ?? '?'} to ${a.to ?? '?'}:`, ...thresholdSpec.answerLines(a.threshold)]
    return [`Alarm ${a.alarmId}: when-fires instance ${a.instance ?? '?'} from period ${a.firstPeriod ?? '?'}; its fires are in the alarm's history.`]
  },
  reportDecisions(a, named) {
    return a.threshold ? thresholdSpec.reportDecisions(a.threshold, named) : { asked: null, flagged: null, flaggedNames: [] }
  },
  decisionsText: (d) => (d.asked === '' ? "an instance's charge (its fires are in the alarm's history)" : thresholdSpec.decisionsText(d)),
  paramWords(n, mechanism) {
    const parts = mechanism === 'svt' ? [] : thresholdSpec.paramWords(n, mechanism)
    if (mechanism === 'svt' && n('fires') !== null) parts.push(`up to ${n('fires')} fires per instance`)
    if (n('alarmId') !== null) parts.push(`alarm ${n('alarmId')}`)
    return parts
  }
}
