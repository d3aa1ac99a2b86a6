/**
 * Anomaly search (private noisy binary search, anomaly-restricted DP): the price is the most questions the saved
 * budget allows x epsilon per question; the answer is the top-|S| individuals and their posterior on one coarse grid.
 */
import type Database from 'better-sqlite3'
import type { AnomalySearchDefinition, PrivacyUnit } from '../../../contract/datasets'
import type { AnomalySearchReleaseParams } from '../../../contract/ledger'
import { RELEASE_PARAMS } from '../../../contract/release-params'
import {
  type SearchQuestion,
  cheapestDecidingEpsilon,
  queriesAllowedByBudget,
  searchFeasibility,
  verdictLevel
} from '../../../../src-worker/engine/search'
import { formatCharge } from '../../../contract/format-epsilon'
import { UserError } from '../../platform/errors'
import { WHOLE_DATASET } from '../../ledger/cells'
import { decimalToNano, epsilonAtMost, nanoToDisplay } from '../../chain/nano-epsilon'
import { NOTION_LABEL } from '../../chain/notions'
import { anomalySearchQuery, loadAnomalySearchData, searchIndividuals } from '../../datasets/anomaly-loaders'
import { datasetUnit } from '../../trust/privacy-unit'
import { num } from '../guarantee'
import { type SavedQueryRow, searchDefinition } from '../inputs'
import { type AccuracySpec, type PreparedRelease, type ReleaseKindModule, checked, checkedProduct, releaseRun } from './release-kind'

const P = RELEASE_PARAMS.anomalySearch

/**
 * The privacy map: the most questions the saved budget allows x epsilon per question (rounded up to the ledger's
 * nano-epsilon per question), from the saved definition only; and the engine's epsilon and budget, which cap its
 * questions at exactly that many.
 */
function searchPrice(def: AnomalySearchDefinition) {
  const eps = checked(def.epsilonPerQuery, 'epsilonPerQuery', P.epsilonPerQuery.range)
  const budget = checked(def.budget, 'budget', P.budget.range)
  const floor = def.scoreFloor ?? 0
  if (!(def.tLow > floor)) throw new UserError(`tLow must be greater than the score floor L = ${num(floor)}`)
  const perQueryNano = decimalToNano(eps, 'up')
  if (perQueryNano === 0) throw new UserError('epsilon per query is below the ledger resolution of 1e-9')
  const maxQueries = queriesAllowedByBudget(budget, eps)
  if (maxQueries < 1)
    throw new UserError(`The search budget ${num(budget)} does not allow a single query at epsilon ${num(eps)}; raise the budget in the saved query`)
  const chargeNano = checkedProduct(perQueryNano, maxQueries)
  const engineEps = epsilonAtMost(perQueryNano)
  // The engine stops when (T+1) eps > b: with b = maxQueries x engineEps it asks at most maxQueries questions.
  const engineBudget = maxQueries * engineEps
  if (queriesAllowedByBudget(engineBudget, engineEps) !== maxQueries) throw new Error('search budget rounding')
  const chargeExplained = `at most ${maxQueries} group questions (budget ${num(budget)} / epsilon ${num(eps)}) x epsilon ${nanoToDisplay(perQueryNano)} = ${nanoToDisplay(chargeNano)}`
  return { eps, budget, floor, maxQueries, chargeNano, engineEps, engineBudget, chargeExplained }
}

/** The question a search asks, as the feasibility bounds see it (public: the list's size, the saved parameters). */
function searchQuestion(
  def: AnomalySearchDefinition,
  individuals: number,
  top: number,
  tau: number | undefined,
  floor: number,
  epsilon: number
): SearchQuestion {
  return { individuals, top, oracle: def.oracle, epsilon, tLow: def.tLow - floor, tHigh: def.tHigh - floor, tau, delta: def.delta }
}

/** How the search stops, in words: "the top posterior reaches 0.5". */
function stopText(tau: number | undefined, delta: number | undefined): string {
  const parts = []
  if (tau !== undefined) parts.push(`the top posterior passes ${num(tau)}`)
  if (delta !== undefined) parts.push(`the top log-odds pass log(1/${num(delta)})`)
  return parts.join(' or ')
}

/**
 * A search never spends on a question it cannot answer: before the charge, from public inputs only, the budget must
 * allow the questions that separate the listed individuals down to the top |S| and the paper's expected number for
 * the stopping rule (engine/search/feasibility.ts); otherwise refused with the smallest budget that can, nothing spent.
 */
function refuseUndecidable(
  def: AnomalySearchDefinition,
  individuals: number,
  top: number,
  tau: number | undefined,
  floor: number,
  maxQueries: number
) {
  const eps = def.epsilonPerQuery
  const f = searchFeasibility(searchQuestion(def, individuals, top, tau, floor, eps))
  if (maxQueries >= f.neededQueries) return
  const why: string[] = [
    `narrowing ${individuals.toLocaleString('en-US')} individuals down to the top ${top} needs at least ${f.separatingQueries} questions even if every answer were exact`
  ]
  if (f.expectedQueries > f.separatingQueries)
    why.push(
      `the ${def.oracle} oracle's answers at epsilon ${num(eps)} per question are wrong with probability up to ${num(f.errorProbability)}, so the paper's analysis (Prop. 3) expects ${Number.isFinite(f.expectedQueries) ? f.expectedQueries : 'unboundedly many'} questions to get there${stopText(tau, def.delta) ? ` and ${stopText(tau, def.delta)}` : ''}`
    )
  const cheapest = cheapestDecidingEpsilon({ ...searchQuestion(def, individuals, top, tau, floor, eps) })
  const needed = Number.isFinite(f.neededQueries) ? Number((f.neededQueries * eps).toPrecision(12)) : Infinity
  const fix = [
    Number.isFinite(needed) ? `a budget of at least ${formatCharge(needed)} (${f.neededQueries} questions at epsilon ${num(eps)})` : null,
    cheapest && cheapest.budget < needed
      ? `${Number.isFinite(needed) ? 'or ' : ''}epsilon ${num(cheapest.epsilon)} per question with a budget of at least ${formatCharge(cheapest.budget)} (${cheapest.queries} questions)`
      : null
  ].filter((x) => x !== null)
  throw new UserError(
    `Refused, nothing spent: this search may ask at most ${maxQueries} question${maxQueries === 1 ? '' : 's'} (budget ${num(def.budget)} / epsilon ${num(eps)} per question), ` +
      `but ${why.join(', and ')}: it would end undecided. ` +
      (fix.length > 0 ? `Save the search with ${fix.join(' ')}.` : 'No epsilon per question makes this search decidable.'),
    'cannot-decide'
  )
}

function prepare(db: Database.Database, query: SavedQueryRow, datasetName: string): PreparedRelease {
  const def = searchDefinition(query)
  // The individuals are public (definition or public table): their number and ids may shape the price and messages.
  const individuals = searchIndividuals(db, anomalySearchQuery(db, query.id))
  const { eps, budget, floor, maxQueries, chargeNano, engineEps, engineBudget, chargeExplained } = searchPrice(def)
  const top = Math.min(def.top ?? P.top.default, individuals.length)
  const tau = def.tau ?? (def.delta === undefined ? P.tau.default : undefined)
  refuseUndecidable(def, individuals.length, top, tau, floor, maxQueries)
  const accuracy = searchAccuracySpec(db, query.id)
  const { question, neededQueries } = accuracy
  // The public ids of the individuals, in the order of the scores the task is given (set by the read).
  let ids: string[] = []
  return {
    query,
    datasetName,
    kind: 'anomaly-search',
    notion: 'anomaly-restricted-dp',
    mechanism: def.oracle,
    chargeNano,
    chargeExplained,
    cells: [WHOLE_DATASET],
    fitOptions: { alternatives: (remainingNano) => searchFits(question, neededQueries, remainingNano) },
    accuracy,
    guarantee: searchGuarantee({
      top,
      scoreColumn: def.scoreColumn,
      tLow: def.tLow,
      tHigh: def.tHigh,
      floor,
      individuals: individuals.length,
      maxQueries,
      chargeNano,
      unit: datasetUnit(db, query.datasetId)
    }),
    publicParams: {
      oracle: def.oracle,
      epsilonPerQuery: eps,
      budget,
      maxQueries,
      tLow: def.tLow,
      tHigh: def.tHigh,
      scoreFloor: floor,
      individuals: individuals.length,
      tau: tau ?? null,
      delta: def.delta ?? null,
      top
    },
    description: `Anomaly search "${query.name}" (${def.oracle} oracle) over ${individuals.length} public individuals, at most ${maxQueries} questions at ε ${num(eps)}`,
    ...releaseRun<'release:anomaly-search'>({
      task: 'release:anomaly-search',
      read() {
        // After the charge: the scores come from the searched data here, clipped to [L, inf) by the loader.
        const data = loadAnomalySearchData({ db }, query.id)
        ids = data.ids
        return {
          // Shifted by L: the engine's oracle has sensitivity tLow and sees scores >= 0 (every normal score in [0, tLow - L]).
          // A source may hold +infinity (a linked file's or a warehouse's double): the largest double stands for it, so
          // the engine's finiteness check cannot fail on a value after the charge (finite scores are unchanged).
          scores: data.scores.map((x) => Math.min(x - floor, Number.MAX_VALUE)),
          request: {
            epsilon: engineEps,
            tLow: def.tLow - floor,
            tHigh: def.tHigh - floor,
            oracle: def.oracle,
            budget: engineBudget,
            tau,
            delta: def.delta,
            top,
            posteriorGrid: P.posteriorGrid
          }
        }
      },
      finish(out) {
        if (out.posterior.length !== out.top.length) throw new Error('the search returned a posterior that does not match its top-S')
        const top = out.top.map((i) => ids[i])
        const v = searchVerdict(top, out.posterior, out.posteriorGrid, tau, def.delta, def.idColumn ?? null)
        return {
          answer: {
            kind: 'anomaly-search',
            top,
            idColumn: def.idColumn ?? null,
            // Post-processing of the charged noisy answers, snapped by the engine to the one coarse grid (ALGORITHMS.md section 4).
            posterior: out.posterior,
            posteriorGrid: out.posteriorGrid,
            ...v
          },
          exPost: { spentMax: out.queries * engineEps, queries: out.queries, haltedBy: out.haltedBy, posterior: out.posterior }
        }
      }
    })
  }
}

/** What a saved search asks, for its accuracy preview and its refusal (public: the definition and the list's size). */
export function searchAccuracySpec(db: Database.Database, queryId: number): Extract<AccuracySpec, { kind: 'anomaly-search' }> {
  const q = anomalySearchQuery(db, queryId)
  const def = q.definition
  const individuals = searchIndividuals(db, q).length
  const { eps, floor, maxQueries } = searchPrice(def)
  const top = Math.min(def.top ?? P.top.default, individuals)
  const tau = def.tau ?? (def.delta === undefined ? P.tau.default : undefined)
  const question = searchQuestion(def, individuals, top, tau, floor, eps)
  return { kind: 'anomaly-search', question, maxQueries, neededQueries: searchFeasibility(question).neededQueries, grid: P.posteriorGrid }
}

/**
 * A denied search's way forward (its parameters are saved, so its next version): the largest budget of whole questions at
 * the same epsilon that what is left allows, never fewer than the search needs to decide; else the cheapest epsilon per
 * question that decides within what is left; else nothing (the officer must raise the budget). Public inputs only.
 */
function searchFits(question: SearchQuestion, neededQueries: number, remainingNano: number): string[] {
  const eps = question.epsilon
  const left = remainingNano / 1e9
  const n = Math.floor(left / eps + 1e-9)
  if (n >= neededQueries)
    return [
      `edit the search (a new version) with a budget of at most ${formatCharge(Number((n * eps).toPrecision(12)))} (${n} questions at epsilon ${num(eps)}; it needs at least ${neededQueries} to decide)`
    ]
  const c = cheapestDecidingEpsilon(question)
  if (c !== null && c.budget <= left)
    return [
      `edit the search (a new version) at epsilon ${num(c.epsilon)} per question with a budget of ${formatCharge(c.budget)} (${c.queries} questions, the fewest that decide)`
    ]
  return [
    `no search that can decide fits${c ? ` (the cheapest needs ${formatCharge(c.budget)}: ${c.queries} questions at epsilon ${num(c.epsilon)})` : ''}; only the privacy officer can raise the budget`
  ]
}

/**
 * The verdict a search's answer supports, from the released (snapped) posterior only: conclusive when the top posterior
 * reaches the stopping rule's level (engine/search/release.ts `verdictLevel`). Otherwise the ids are candidates and the
 * sentence says so without naming any.
 */
export function searchVerdict(
  top: Array<string | number>,
  posterior: number[],
  grid: number,
  tau: number | undefined,
  delta: number | undefined,
  idColumn: string | null
): { conclusive: boolean; decisiveAt: number; verdict: string } {
  const decisiveAt = verdictLevel(tau, delta, grid)
  const best = posterior[0] ?? 0
  const shown = best.toFixed(2)
  if (top.length > 0 && best >= decisiveAt)
    return {
      conclusive: true,
      decisiveAt,
      verdict: `Most likely the anomaly: ${idColumn ? `${idColumn} ` : 'row '}${String(top[0])}, with posterior ${shown} (the search stops once one reaches ${decisiveAt}); it is someone else with probability ${(1 - best).toFixed(2)} by the search's own account.`
    }
  return {
    conclusive: false,
    decisiveAt,
    verdict: `Inconclusive: the most likely individual has posterior ${shown} (a finding needs ${decisiveAt}); no one is singled out.`
  }
}

function searchGuarantee(o: {
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

export const anomalySearchKind: ReleaseKindModule<AnomalySearchReleaseParams> = { kind: 'anomaly-search', prepare }
