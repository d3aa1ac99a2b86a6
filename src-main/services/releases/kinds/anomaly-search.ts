/**
 * Anomaly search (private noisy binary search, anomaly-restricted DP): the price is the most questions the saved
 * budget allows x epsilon per question; the answer is the top-|S| individuals and their posterior on one coarse grid.
 */
import type Database from 'better-sqlite3'
import type { AnomalySearchDefinition, PrivacyUnit } from '../../../contract/datasets'
import type { AnomalySearchReleaseParams } from '../../../contract/ledger'
import { RELEASE_PARAMS } from '../../../contract/release-params'
import { queriesAllowedByBudget } from '../../../../src-worker/engine/search'
import { UserError } from '../../platform/errors'
import { WHOLE_DATASET } from '../../ledger/cells'
import { decimalToNano, epsilonAtMost, nanoToDisplay } from '../../chain/nano-epsilon'
import { NOTION_LABEL } from '../../chain/notions'
import { anomalySearchQuery, loadAnomalySearchData, searchIndividuals } from '../../datasets/anomaly-loaders'
import { datasetUnit } from '../../trust/privacy-unit'
import { num } from '../guarantee'
import { type SavedQueryRow, searchDefinition } from '../inputs'
import { type PreparedRelease, type ReleaseKindModule, checked, checkedProduct, releaseRun } from './release-kind'

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

function prepare(db: Database.Database, query: SavedQueryRow, datasetName: string): PreparedRelease {
  const def = searchDefinition(query)
  // The individuals are public (definition or public table): their number and ids may shape the price and messages.
  const individuals = searchIndividuals(db, anomalySearchQuery(db, query.id))
  const { eps, budget, floor, maxQueries, chargeNano, engineEps, engineBudget, chargeExplained } = searchPrice(def)
  const top = Math.min(def.top ?? P.top.default, individuals.length)
  const tau = def.tau ?? (def.delta === undefined ? P.tau.default : undefined)
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
    description: `Anomaly search "${query.name}" (${def.oracle} oracle) over ${individuals.length} public individuals, at most ${maxQueries} questions at epsilon ${num(eps)}`,
    ...releaseRun<'release:anomaly-search'>({
      task: 'release:anomaly-search',
      read() {
        // After the charge: the scores come from the searched data here, clipped to [L, inf) by the loader.
        const data = loadAnomalySearchData({ db }, query.id)
        ids = data.ids
        return {
          // Shifted by L: the engine's oracle has sensitivity tLow and sees scores >= 0 (every normal score in [0, tLow - L]).
          scores: data.scores.map((x) => x - floor),
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
        return {
          answer: {
            kind: 'anomaly-search',
            top: out.top.map((i) => ids[i]),
            idColumn: def.idColumn ?? null,
            // Post-processing of the charged noisy answers, snapped by the engine to the one coarse grid (ALGORITHMS.md section 4).
            posterior: out.posterior,
            posteriorGrid: out.posteriorGrid
          },
          exPost: { spentMax: out.queries * engineEps, queries: out.queries, haltedBy: out.haltedBy, posterior: out.posterior }
        }
      }
    })
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
