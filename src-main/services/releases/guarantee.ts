/** Guarantee sentences: what a release promises, in words, with epsilon next to them (never alone). */
import type { PrivacyNotion } from '../../contract/ledger'
import type { PrivacyUnit } from '../../contract/datasets'
import { NOTION_LABEL } from '../ledger/notions'
import { nanoToDisplay } from '../ledger/units'

export function pct(p: number): string {
  const x = p * 100
  if (x >= 10) return `${Number(x.toPrecision(3))}%`
  return `${Number(x.toPrecision(2))}%`
}

export function num(x: number): string {
  return Number(x.toPrecision(4)).toString()
}

/** Who a guarantee protects, in words: "each person (person column "p")" or "each row". */
export function protectedUnit(unit: PrivacyUnit): string {
  return unit.kind === 'person' ? `each person (person column "${unit.column}")` : 'each row (each row is a different person)'
}

export function thresholdGuarantee(o: {
  groupBy: string[]
  countText: string
  beta: number
  alpha: number
  chargeNano: number
  predicates: number
  unit: PrivacyUnit
  unitGroups: number
  /** The unit lies in one group by construction (a row; a person when the group-by columns hold one value per person). */
  oneGroup: boolean
}): string {
  const group = o.groupBy.length === 1 ? o.groupBy[0] : `(${o.groupBy.join(', ')})`
  const spread = o.oneGroup ? 'it lies in one group' : `it adds to at most ${o.unitGroups} of the ${o.predicates} groups`
  return (
    `Each ${group} whose ${o.countText} truly exceeds its threshold is missed with probability at most ${pct(o.beta)}. ` +
    `A ${group} within ${num(2 * o.alpha)} below its threshold may be flagged although it is under it. ` +
    `The ${o.predicates} groups and their thresholds are public (from the query or public datasets). ` +
    `Privacy: ${NOTION_LABEL['predicate-wise-dp']}, epsilon ${nanoToDisplay(o.chargeNano)} for ${protectedUnit(o.unit)} in this release (${spread}).`
  )
}

export function aiqGuarantee(o: {
  mechanism: 'dp' | 'sp'
  epsilon: number
  k: number
  records: number
  chargeNano: number
  notion: PrivacyNotion
  unit: PrivacyUnit
  rowsPerUnit: number
}): string {
  const worst = 1 / (1 + Math.exp(o.epsilon))
  const tail =
    o.mechanism === 'sp'
      ? ` Records that are not ${o.k}-sensitive (adding ${o.k} records would not make them normal) are answered more accurately; anomalies themselves are not hidden.`
      : ''
  return (
    `Each of the ${o.records} answers is wrong with probability at most ${pct(worst)} when one record more or less would change it, ` +
    `and e^-${num(o.epsilon)} times less for each further record needed.${tail} ` +
    `The records asked about are public (they are part of the query). ` +
    `Privacy: ${NOTION_LABEL[o.notion]}${o.mechanism === 'sp' ? ` with k = ${o.k}` : ''}, epsilon ${nanoToDisplay(o.chargeNano)} for ${protectedUnit(o.unit)} in this release ` +
    `(${num(o.epsilon)} per record asked${o.unit.kind === 'person' ? `, times at most ${o.rowsPerUnit} row${o.rowsPerUnit === 1 ? '' : 's'} per person` : ''}).`
  )
}

export function searchGuarantee(o: {
  top: number
  scoreColumn: string
  tLow: number
  tHigh: number
  floor: number
  individuals: number
  maxQueries: number
  chargeNano: number
  unit: PrivacyUnit
}): string {
  const who = o.unit.kind === 'person' ? `every person (person column "${o.unit.column}")` : 'every individual'
  return (
    `Shows the ${o.top} of the ${o.individuals} listed individuals most likely to be the one whose ${o.scoreColumn} exceeds ${num(o.tHigh)}, ` +
    `after at most ${o.maxQueries} noisy group questions. The list of individuals is public (it is part of the query); scores below ${num(o.floor)} are raised to ${num(o.floor)} before the search. ` +
    `Privacy: ${NOTION_LABEL['anomaly-restricted-dp']}, epsilon at most ${nanoToDisplay(o.chargeNano)}: ${who} whose ${o.scoreColumn} is at most ${num(o.tLow)} is protected; the anomaly is not.`
  )
}
