/** The threshold release kind's spec (MIDE: TSLM, PPWLM, DPPWLM): its words, its CLI parameters, its answer in text. */
import type { KindSpec } from '../release-kinds'
import { RELEASE_PARAMS } from '../release-params'
import { formatCharge } from '../format-epsilon'
import { keyText } from './text'

const T = RELEASE_PARAMS.threshold

export const thresholdSpec: KindSpec<'threshold'> = {
  queryKind: 'threshold',
  title: 'Threshold query',
  words: 'threshold',
  accuracyPreview: false,
  mechanisms: {
    tslm: { name: 'TSLM (one shot)', words: 'TSLM, one shot', described: 'TSLM (one shot)' },
    ppwlm: { name: 'PPWLM (in steps)', words: 'PPWLM, in steps', described: 'PPWLM (in steps, spends less on clear cases)' },
    dppwlm: {
      name: 'DPPWLM (steps chosen from the data)',
      words: 'DPPWLM, in steps chosen from the data',
      described: 'DPPWLM (in steps chosen from the data)'
    }
  },
  cliUsage: 'threshold: --beta B --alpha A [--mechanism tslm|ppwlm|dppwlm] [--eps-max E] [--eps1 E] [--steps M] [--fine-steps F]',
  cliMechanism: 'threshold: tslm (one shot) | ppwlm (in steps) | dppwlm (steps from the data)',
  cliParams(cli) {
    cli.require(['beta', 'alpha'], 'for a threshold release')
    return {
      kind: 'threshold',
      mechanism: cli.choice('mechanism', T.mechanism.default, T.mechanism.choices),
      beta: cli.number('beta', T.beta.range),
      alpha: cli.number('alpha', T.alpha.range),
      epsMax: cli.string('eps-max') === undefined ? undefined : cli.number('eps-max', T.epsMax.range),
      eps1: cli.optionalNumber('eps1', T.eps1.default, T.eps1.range),
      steps: cli.optionalNumber('steps', T.steps.default, T.steps.range),
      fineSteps: cli.optionalNumber('fine-steps', T.fineSteps.default, T.fineSteps.range)
    }
  },
  answerLines(a) {
    const unit = a.groupBy.join(' / ')
    // The guarantee supports "over its threshold, or at most the band under it", never "over its threshold" alone.
    const meaning =
      a.tolerance === undefined
        ? "each over its threshold or under it by at most its mechanism's band (not recorded in this older release)"
        : `each over its threshold or at most ${Number(a.tolerance.toPrecision(4))} under it`
    const out = [`Flagged ${a.flagged.length} of ${a.predicates} (${unit}; ${meaning})${a.flagged.length ? ':' : '.'}`]
    for (const k of a.flagged.slice(0, 50)) out.push(`  ${k.map(keyText).join(' / ')}`)
    if (a.flagged.length > 50) out.push(`  ... and ${a.flagged.length - 50} more (--json lists all)`)
    return out
  },
  reportDecisions(a, named) {
    return {
      asked: a.predicates,
      flagged: a.flagged.length,
      flaggedNames: a.flagged.slice(0, named).map((k) => k.map((v, i) => `${a.groupBy[i] ?? ''}=${keyText(v)}`).join(', '))
    }
  },
  decisionsText: (d) => `${d.flagged} of ${d.asked} predicates flagged${d.named}`,
  paramWords(n, mechanism) {
    const parts: string[] = []
    const beta = n('beta')
    const alpha = n('alpha')
    if (beta !== null) parts.push(`misses a true violation at most ${Number((beta * 100).toPrecision(3))}% of the time (beta ${beta})`)
    // The band as the release recorded it; releases before it was recorded: 2 alpha is TSLM's and PPWLM's, DPPWLM's is wider.
    const band = n('tolerance') ?? (mechanism === 'dppwlm' || alpha === null ? null : 2 * alpha)
    if (alpha !== null)
      parts.push(
        band === null
          ? `groups somewhat under their threshold (DPPWLM's band, wider than 2 alpha, not recorded) may be flagged (alpha ${alpha})`
          : `groups within ${Number(band.toPrecision(4))} under their threshold may be flagged (alpha ${alpha})`
      )
    if (mechanism !== 'tslm') {
      if (n('steps') !== null) parts.push(`${n('steps')} steps`)
      if (n('eps1') !== null) parts.push(`first step ε ${formatCharge(n('eps1'))}`)
      if (mechanism === 'dppwlm' && n('fineSteps') !== null) parts.push(`${n('fineSteps')} fine steps`)
    }
    if (n('epsMax') !== null) parts.push(`denied above ε ${formatCharge(n('epsMax'))} per unit of sensitivity`)
    return parts
  }
}
