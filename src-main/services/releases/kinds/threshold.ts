/**
 * Threshold queries (MIDE: TSLM, PPWLM, DPPWLM): the price is the mechanism's worst-case epsilon per predicate for the
 * accuracy asked, times the sensitivity, times the predicates one unit can move; the answer is one decision per predicate.
 */
import type Database from 'better-sqlite3'
import type { PrivacyUnit, ThresholdQueryDefinition } from '../../../contract/datasets'
import type { ThresholdDecision, ThresholdReleaseParams } from '../../../contract/ledger'
import { RELEASE_PARAMS } from '../../../contract/release-params'
import { RELEASE_KIND_SPECS } from '../../../contract/release-kinds'
import type { Rng } from '../../../../src-worker/engine/random'
import { type ThresholdMechanism, type ThresholdParams, checkThresholdParams } from '../../../../src-worker/engine/mide/params'
import { thresholdBounds } from '../../../../src-worker/engine/mide/guarantee'
import { type ThresholdReleaseResult, computeThresholdRelease } from '../../../../src-worker/tasks/release-threshold'
import { UserError } from '../../platform/errors'
import { type CellKey, cellKey } from '../../ledger/cells'
import { MAX_NANO, decimalToNano, floatToNanoUp, nanoToDisplay } from '../../chain/nano-epsilon'
import { NOTION_LABEL } from '../../chain/notions'
import { getDataset } from '../../catalog/catalog'
import { keyPart } from '../../catalog/column-types'
import { findColumn, storedValueFor } from '../../catalog/columns'
import { cellsForUnit, groupsOneUnitCanAddTo } from '../../ledger/unit-groups'
import { unitName } from '../../catalog/unit-record'
import { num, pct, protectedUnit } from '../guarantee'
import { type SavedQueryRow, thresholdDefinition } from '../inputs'
import { type PublicThreshold, publicThreshold } from '../threshold-adapter'
import {
  type ExecutionResult,
  type PreparedRelease,
  type ReleaseKindModule,
  type ReleaseRun,
  checked,
  checkedProduct,
  releaseRun
} from './release-kind'
import type { FitOptions } from '../fit-suggestion'

const P = RELEASE_PARAMS.threshold

/** The largest epsilon the ledger records. */
const MAX_EPSILON = MAX_NANO / 1e9

const MECHANISMS = RELEASE_KIND_SPECS.threshold.mechanisms

type ThresholdRequest = Required<Omit<ThresholdReleaseParams, 'kind' | 'epsMax'>> & { epsMax: number | undefined }

/** The request with its defaults, each parameter checked against its range (contract/release-params.ts). */
function thresholdRequest(p: ThresholdReleaseParams): ThresholdRequest {
  const mechanism = p.mechanism
  if (!Object.prototype.hasOwnProperty.call(MECHANISMS, mechanism))
    throw new UserError(`mechanism must be one of ${P.mechanism.choices.join(', ')} (got "${String(mechanism)}")`)
  const beta = checked(p.beta, 'beta', P.beta.range)
  const alpha = checked(p.alpha, 'alpha', P.alpha.range)
  const epsMax = p.epsMax === undefined ? undefined : checked(p.epsMax, 'eps-max', P.epsMax.range)
  const eps1 = p.eps1 === undefined ? P.eps1.default : checked(p.eps1, 'eps1', P.eps1.range)
  const steps = p.steps === undefined ? P.steps.default : checked(p.steps, 'steps', P.steps.range)
  const fineSteps = p.fineSteps === undefined ? P.fineSteps.default : checked(p.fineSteps, 'fine-steps', P.fineSteps.range)
  return { mechanism, beta, alpha, epsMax, eps1, steps, fineSteps }
}

interface ThresholdPrice {
  /** the compared quantity's sensitivity: the mechanism runs on counts / s */
  s: number
  engineParams: ThresholdParams
  unit: PrivacyUnit
  unitGroups: number
  onePerPerson: boolean
  chargeNano: number
  chargeExplained: string
  /**
   * The false-positive band in the units compared (engine/mide/guarantee.ts, times s): a group flagged may be this
   * much under its threshold; one further under is flagged with probability at most beta.
   */
  tolerance: number
}

/**
 * The privacy map: what one unit can lose in this release, from the definition, the public predicates and the
 * request only (the preview shows it). Refuses, with nothing spent, a charge above the eps-max asked for.
 */
function thresholdPrice(
  db: Database.Database,
  query: SavedQueryRow,
  def: ThresholdQueryDefinition,
  pub: PublicThreshold,
  req: ThresholdRequest
): ThresholdPrice {
  const { mechanism, alpha, beta, epsMax, eps1, steps, fineSteps } = req
  const countSensitivity = pub.sensitivity
  if (!(Number.isInteger(countSensitivity) && countSensitivity >= 1)) throw new Error('sensitivity must be a whole number >= 1')
  // A reference threshold is factor x an aggregate (max or mean over time buckets) of the same group's count in a
  // reference period of the same dataset. Adding one person raises the count by some a in [0, s] and every bucket's
  // count by at most s, so the max or mean over buckets by some b in [0, s]: the compared quantity count - factor x ref
  // moves by a - factor x b, which lies in [-factor s, s]. Its sensitivity is s max(1, factor) (not s (1 + factor):
  // both rise together). Removing a person is the same move backwards. The charge and the noise follow that.
  const referenceFactor = def.threshold.kind === 'reference' ? def.threshold.factor : 0
  const s = countSensitivity * Math.max(1, referenceFactor)
  if (pub.keys.length === 0) throw new UserError(`Query "${query.name}" has no predicates (its public group list is empty); nothing to release`)
  // The mechanism runs on counts / s (sensitivity 1), so the requested accuracy alpha becomes alpha / s.
  const engineParams = { alpha: alpha / s, beta, epsMax: 1e9, eps1, steps, fineSteps }
  const bad = checkThresholdParams(mechanism as ThresholdMechanism, engineParams)
  if (bad !== null) throw new UserError(bad.replace('alpha must', 'alpha / sensitivity must'))
  // Per predicate, one person moves the compared quantity by at most s: engineEps is what one predicate costs them.
  const bounds = thresholdBounds(mechanism, engineParams)
  const engineEps = bounds.epsilon
  const tolerance = bounds.band * s
  // From the request and the definition only: a charge the ledger cannot record, or a band or noise scale outside the
  // doubles, is refused here, before anything is spent (never charged and then failed).
  if (!(Number.isFinite(engineEps) && engineEps > 0 && engineEps <= MAX_EPSILON && Number.isFinite(tolerance) && Number.isFinite(1 / engineEps))) {
    throw new UserError(
      `This accuracy (alpha ${num(alpha)}, beta ${num(beta)}) needs an epsilon the ledger cannot record (at most ${MAX_EPSILON.toLocaleString('en-US')}); ask for a larger alpha or beta; nothing was spent.`
    )
  }
  // How many predicates one unit can move (ALGORITHMS.md section 6): a row lies in one group; a person in at most
  // maxGroups (truncated to that many at run time), or in one when every group-by column holds one value per person.
  const k = pub.keys.length
  const maxGroups = def.count.kind === 'persons' ? def.count.maxGroups : undefined
  const { unit, oneGroup: onePerPerson, groups: unitGroups } = groupsOneUnitCanAddTo(db, query.datasetId, pub.groupBy, k, maxGroups)
  refuseOverBoundParameters(query, def, pub, maxGroups)
  const chargeNano = checkedProduct(floatToNanoUp(engineEps), unitGroups)
  if (epsMax !== undefined && chargeNano > decimalToNano(epsMax, 'down')) {
    throw new UserError(
      `Denied: this accuracy needs epsilon ${nanoToDisplay(chargeNano)}, more than the eps-max of ${num(epsMax)} you set; nothing was spent. Ask for a larger alpha or beta.`,
      'denied'
    )
  }
  const perUnit = mechanism === 'tslm' ? 'ln(1/(2 beta))/alpha' : `ln(m/(2 beta))/alpha with m = ${steps}`
  const groupsText =
    unit.kind === 'row'
      ? 'a row lies in one group'
      : onePerPerson
        ? `a person lies in one group (${pub.groupBy.join(', ')} hold one value per person)`
        : maxGroups !== undefined && maxGroups < k
          ? `times ${unitGroups} groups a person may add to ("Groups one person may add to", maxGroups; persons in more are truncated)`
          : `times ${unitGroups} groups: a person may be in every predicate (set "Groups one person may add to", maxGroups in a query file, to charge less)`
  const chargeExplained =
    `${perUnit} = ${nanoToDisplay(floatToNanoUp(engineEps / s))} for alpha ${num(alpha)}, beta ${num(beta)}, times sensitivity ${num(s)} ` +
    `(${pub.countText}${referenceFactor > 0 ? `; x max(1, ${num(referenceFactor)}) because the reference threshold comes from the same data` : ''}) = ${nanoToDisplay(floatToNanoUp(engineEps))} per predicate; ` +
    `${groupsText} = ${nanoToDisplay(chargeNano)}`
  return { s, engineParams, unit, unitGroups, onePerPerson, chargeNano, chargeExplained, tolerance }
}

/** The partition cells the release touches (ALGORITHMS.md section 6), from the definition and public predicates. */
function thresholdCells(db: Database.Database, query: SavedQueryRow, def: ThresholdQueryDefinition, pub: PublicThreshold): CellKey[] {
  // Cells: the predicate's group keys, plus the filter's equality conditions (which only narrow the region).
  // Filter values are written in the group keys' canonical text form (as `groupKey` writes them: "3", ISO timestamps),
  // so that a cell named by a filter and the same cell named by a group-by compare equal.
  const dataset = getDataset(db, query.datasetId)
  const fixed: Record<string, string> = {}
  for (const f of def.filter ?? []) {
    if (f.op === '=' && (typeof f.value === 'string' || typeof f.value === 'number') && !pub.groupBy.includes(f.column)) {
      const col = findColumn(dataset, f.column, 'filter column')
      const part = keyPart(col.type, storedValueFor(col, f.value, `filter value for "${f.column}"`))
      if (part !== null) fixed[f.column] = part
    }
  }
  // Parallel composition over these cells is sound only when a unit lies in one of them (row-level data, or cells over
  // columns that hold one value per person); otherwise the charge is on the whole dataset.
  return cellsForUnit(
    db,
    query.datasetId,
    pub.keys.map((key) => {
      const conj: Record<string, string | number | null> = { ...fixed }
      pub.keyNames.forEach((c, j) => (conj[c] = key[j]))
      return cellKey(conj)
    })
  )
}

/**
 * The run, after the charge: the true counts (and a reference threshold) read from the counted data on the services'
 * thread, here and only here, divided by s; the mechanism in the task `release:threshold`; the answer (decisions only)
 * with the sealed costs.
 */
function thresholdRun(pub: PublicThreshold, req: ThresholdRequest, price: ThresholdPrice): ReleaseRun<'release:threshold'> {
  const s = price.s
  return {
    task: 'release:threshold',
    read(rng) {
      // `rng` (secure) draws the keyed-hash key of the groups kept for persons over the maxGroups bound.
      const truth = pub.evaluate(rng)
      return {
        mechanism: req.mechanism,
        counts: truth.counts.map((c) => c / s),
        thresholds: truth.thresholds.map((c) => c / s),
        params: price.engineParams
      }
    },
    finish: (run) => thresholdAnswer(pub, run, price.tolerance)
  }
}

function thresholdAnswer(pub: PublicThreshold, run: ThresholdReleaseResult, tolerance: number): ExecutionResult {
  const flagged: Array<Array<string | number | null>> = []
  // Public part of each predicate (group, public threshold) with its released decision; never the count.
  const decisions: ThresholdDecision[] = pub.keys.map((key, i) => {
    const isFlagged = run.positive[i] !== 0
    if (isFlagged) flagged.push(key)
    // A reference threshold is computed from the dataset's own counts: it is not public, so it is not released.
    return { key, shown: pub.shown[i], label: pub.labels[i], threshold: pub.thresholds === null ? null : pub.thresholds[i], flagged: isFlagged }
  })
  let max = 0
  const perPredicate = pub.keys.map((key, i) => {
    const e = run.epsilonPerPredicate[i]
    if (e > max) max = e
    return { predicate: key, epsilon: e }
  })
  return {
    answer: {
      kind: 'threshold',
      predicates: pub.keys.length,
      groupBy: pub.keyNames,
      flagged,
      decisions,
      thresholdText: pub.thresholdText,
      countText: pub.countText,
      tolerance
    },
    exPost: { spentMax: max, perPredicate }
  }
}

/**
 * The most text or decimal key values the maxGroups bound may bind in one statement: the bound joins the public
 * predicates as literal rows whose text and real values are bound parameters (sources/dialect.ts), and SQLite allows
 * 32,766 of them, PostgreSQL 65,535. Past that the aggregate would fail after the charge; the count depends only on the
 * public predicate list, so it is refused before, with nothing spent.
 */
export const MAX_BOUND_KEY_VALUES = 30_000

function refuseOverBoundParameters(query: SavedQueryRow, def: ThresholdQueryDefinition, pub: PublicThreshold, maxGroups: number | undefined): void {
  if (maxGroups === undefined || maxGroups >= pub.keys.length) return
  let bound = 0
  for (const key of pub.keys) for (const v of key) if (!(typeof v === 'number' && Number.isSafeInteger(v))) bound++
  // A reference threshold binds the list twice (the kept set is taken over both periods).
  if (def.threshold.kind === 'reference') bound *= 2
  if (bound > MAX_BOUND_KEY_VALUES) {
    throw new UserError(
      `Query "${query.name}" bounds groups per person (maxGroups) over ${pub.keys.length.toLocaleString('en-US')} groups with ` +
        `${bound.toLocaleString('en-US')} text or decimal key values, more than one statement can compare (${MAX_BOUND_KEY_VALUES.toLocaleString('en-US')}); ` +
        'split it into smaller group lists; nothing was spent.'
    )
  }
}

/**
 * The public thresholds the tolerance (the mechanism's false-positive band) reaches: a group whose threshold is at
 * most the tolerance may be flagged with nothing counted, so a flag there says nothing. From the public thresholds only
 * (null for a reference threshold, whose values are data).
 */
function reachedThresholds(pub: PublicThreshold, tolerance: number): { reached: number; smallest: number } | null {
  if (pub.thresholds === null || pub.thresholds.length === 0) return null
  let reached = 0
  let smallest = Infinity
  for (const c of pub.thresholds) {
    if (c <= tolerance) reached++
    if (c < smallest) smallest = c
  }
  return { reached, smallest }
}

function toleranceWarning(pub: PublicThreshold, alpha: number, tolerance: number): string[] {
  const r = reachedThresholds(pub, tolerance)
  if (r === null || r.reached === 0) return []
  const k = pub.thresholds!.length
  const which =
    r.reached === k
      ? `every group's threshold (the smallest is ${num(r.smallest)})`
      : `the threshold of ${r.reached} of the ${k} groups (the smallest is ${num(r.smallest)})`
  return [
    `Alpha ${num(alpha)} lets a group be flagged up to ${num(tolerance)} under its threshold, which reaches ${which}: ` +
      `those groups may be flagged with nothing counted, so a flag there says nothing. ` +
      (r.smallest > 0
        ? `An alpha below ${num((r.smallest * alpha) / tolerance)} (${tolerance === 2 * alpha ? 'half the smallest threshold' : `the smallest threshold over this mechanism's band of ${num(tolerance / alpha)} alpha`}) keeps every flag meaningful.`
        : 'A threshold of 0 or less is reached by any alpha.')
  ]
}

/**
 * What a denial may suggest: alpha only below half the smallest public threshold (a larger tolerance flags groups with
 * nothing counted), and what else would fit in the query's next version: fewer groups per person (maxGroups), or each
 * person counted fewer times per group (cap). Priced like the preview, from the definition and public tables only.
 */
function thresholdFitOptions(
  db: Database.Database,
  query: SavedQueryRow,
  def: ThresholdQueryDefinition,
  pub: PublicThreshold,
  req: ThresholdRequest,
  price: ThresholdPrice
): FitOptions {
  const r = reachedThresholds(pub, 0)
  const options: FitOptions = {}
  if (r !== null) {
    // The band grows with alpha (in proportion for TSLM and PPWLM, about so for DPPWLM): this request's ratio.
    const perAlpha = price.tolerance / req.alpha
    options.alphaBelow = Math.max(0, r.smallest / perAlpha)
    options.alphaWhy =
      r.smallest > 0
        ? `below ${num(r.smallest / perAlpha)} (${perAlpha === 2 ? 'half the smallest threshold' : `the smallest threshold over ${num(perAlpha)}, this mechanism's band in alphas`}, ${num(r.smallest)}: a larger alpha would flag groups with nothing counted)`
        : `(a threshold is ${num(r.smallest)}: any alpha would flag groups there with nothing counted)`
  }
  options.alternatives = (remainingNano) => {
    const out: string[] = []
    if (def.count.kind !== 'persons' || price.onePerPerson) return out
    const perGroupNano = price.chargeNano / price.unitGroups
    const groups = Math.floor(remainingNano / perGroupNano)
    if (groups >= 1 && groups < price.unitGroups)
      out.push(
        `edit the query (a new version) counting each person in at most ${groups} group${groups === 1 ? '' : 's'} ("Groups one person may add to" ${groups}, maxGroups; a person in more is kept in ${groups} chosen at random) (costs ${nanoToDisplay(perGroupNano * groups)})`
      )
    const count = def.count
    const cap = count.cap
    if (cap > 1) {
      const capPrice = (c: number) => {
        try {
          return thresholdPrice(db, query, { ...def, count: { ...count, cap: c } }, { ...pub, sensitivity: c }, req).chargeNano
        } catch {
          return Infinity
        }
      }
      let lo = 0
      let hi = cap
      // The largest cap below the current one whose price fits (the price grows with the cap).
      while (hi - lo > 1) {
        const mid = Math.floor((lo + hi) / 2)
        if (capPrice(mid) <= remainingNano) lo = mid
        else hi = mid
      }
      if (lo >= 1)
        out.push(
          `save the query counting each person at most ${lo} time${lo === 1 ? '' : 's'} per group (cap ${lo}) (costs ${nanoToDisplay(capPrice(lo))})`
        )
    }
    return out
  }
  return options
}

function prepare(db: Database.Database, query: SavedQueryRow, datasetName: string, p: ThresholdReleaseParams): PreparedRelease {
  const def = thresholdDefinition(query)
  const req = thresholdRequest(p)
  const { mechanism, alpha, beta, epsMax, eps1, steps, fineSteps } = req
  // Everything up to `execute` is computed from the definition and public tables only (the preview shows it).
  const pub = publicThreshold(db, query.datasetId, def)
  const price = thresholdPrice(db, query, def, pub, req)
  const { s, unit, unitGroups, chargeNano } = price
  const k = pub.keys.length
  return {
    query,
    datasetName,
    kind: 'threshold',
    notion: 'predicate-wise-dp',
    mechanism,
    chargeNano,
    chargeExplained: price.chargeExplained,
    cells: thresholdCells(db, query, def, pub),
    warnings: toleranceWarning(pub, alpha, price.tolerance),
    fitOptions: thresholdFitOptions(db, query, def, pub, req, price),
    guarantee: thresholdGuarantee({
      groupBy: pub.groupBy,
      countText: pub.countText,
      beta,
      tolerance: price.tolerance,
      chargeNano,
      predicates: k,
      unit,
      unitGroups,
      oneGroup: price.onePerPerson
    }),
    publicParams: {
      mechanism,
      alpha,
      beta,
      epsMax: epsMax ?? null,
      eps1,
      steps,
      fineSteps,
      sensitivity: s,
      tolerance: price.tolerance,
      unit: unitName(unit),
      unitGroups
    },
    description: `Threshold query "${query.name}" by ${MECHANISMS[mechanism].described}, beta ${num(beta)}, alpha ${num(alpha)}, ${k} predicates`,
    ...releaseRun(thresholdRun(pub, req, price))
  }
}

export type ThresholdRun = ThresholdReleaseResult

/** The mechanism on counts / s with the secure generator: the task's computation (src-worker/tasks/release-threshold.ts). */
export function runThreshold(
  mechanism: ThresholdMechanism,
  counts: Float64Array,
  thresholds: Float64Array,
  params: ThresholdParams,
  rng: Rng
): ThresholdRun {
  return computeThresholdRelease({ mechanism, counts, thresholds, params }, rng)
}

function thresholdGuarantee(o: {
  groupBy: string[]
  countText: string
  beta: number
  /** The false-positive band in the units compared. */
  tolerance: number
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
    `A ${group} within ${num(o.tolerance)} below its threshold may be flagged although it is under it; one further below is flagged with probability at most ${pct(o.beta)}. ` +
    `The ${o.predicates} groups and their thresholds are public (from the query or public datasets). ` +
    `Privacy: ${NOTION_LABEL['predicate-wise-dp']}, epsilon ${nanoToDisplay(o.chargeNano)} for ${protectedUnit(o.unit)} in this release (${spread}).`
  )
}

export const thresholdKind: ReleaseKindModule<ThresholdReleaseParams> = { kind: 'threshold', prepare }
