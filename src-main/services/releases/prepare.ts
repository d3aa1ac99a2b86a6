/**
 * Step 1 of a release: validate the request against the saved query and compute the charge, data-independently (the
 * mechanism's worst-case epsilon for the requested accuracy, times the sensitivity), the partition cells it touches and
 * the guarantee sentence. The returned `execute` runs the mechanism later, after the charge is committed.
 */
import type Database from 'better-sqlite3'
import type { PrivacyNotion, ReleaseAnswer, ReleaseKind, ReleaseParams, ThresholdDecision, ThresholdReleaseParams } from '../../contract/ledger'
import { type Rng, keepRandomSubset } from '../../../src-worker/engine/random'
import { type ThresholdMechanism, checkThresholdParams, thresholdCharge } from '../../../src-worker/engine/mide/params'
import { buildUniverse, encodeRecord, releaseAiq, type Metric } from '../../../src-worker/engine/sensitive'
import { queriesAllowedByBudget, releaseAnomalySearch } from '../../../src-worker/engine/search'
import { UserError } from '../errors'
import { canonicalJson } from '../ledger/canonical'
import { type CellKey, WHOLE_DATASET, cellKey } from '../ledger/cells'
import { MAX_NANO, decimalToNano, epsilonAtMost, floatToNanoUp, nanoToDisplay } from '../ledger/units'
import { aiqGuarantee, num, searchGuarantee, thresholdGuarantee } from './guarantee'
import { type SavedQueryRow, aiqDefinition, loadSavedQuery, searchDefinition, thresholdDefinition } from './inputs'
import { publicThreshold, runThreshold } from './threshold-adapter'
import { getDataset } from '../datasets/catalog'
import { anomalyIdentificationQuery, anomalySearchQuery, loadAnomalyIdentificationData, loadAnomalySearchData, searchIndividuals } from '../datasets/anomaly-loaders'
import { aiqFrame, framedValues } from './aiq-frame'
import { keyPart } from '../datasets/column-types'
import { findColumn, storedValueFor } from '../datasets/query-definitions'
import { getQueryIncludingDeleted } from '../datasets/query-store'
import { cellsForUnit, datasetUnit, isPerPersonColumn, unitName } from '../datasets/privacy-unit'
import { checkLinkedSource } from '../sources/source'
import { sealSourceFingerprint } from './source-fingerprint'

export interface ExecutionResult {
  answer: ReleaseAnswer
  /** Sealed: data-dependent costs, for the privacy officer only. */
  exPost: Record<string, unknown>
}

export interface PreparedRelease {
  query: SavedQueryRow
  datasetName: string
  kind: ReleaseKind
  notion: PrivacyNotion
  mechanism: string
  chargeNano: number
  chargeExplained: string
  cells: CellKey[]
  guarantee: string
  /** The request's parameters as recorded (no data). */
  publicParams: Record<string, unknown>
  /** A one-line description for the ledger. */
  description: string
  /** Checks of the ledger that must hold at the charge: run again inside the charge's transaction (throws to refuse). */
  recheck?: () => void
  execute(rng: Rng): ExecutionResult
}

function finite(x: unknown, name: string, test: (v: number) => boolean, rule: string): number {
  if (typeof x !== 'number' || !Number.isFinite(x) || !test(x)) throw new UserError(`${name} must be ${rule} (got ${String(x)})`)
  return x
}

function checkedProduct(a: number, b: number): number {
  const p = a * b
  if (!Number.isSafeInteger(p) || p > MAX_NANO) throw new UserError('The charge is too large to be recorded; ask for less accuracy')
  return p
}

export function prepareRelease(db: Database.Database, queryId: number, params: ReleaseParams): PreparedRelease {
  const { query, datasetName } = loadSavedQuery(db, queryId)
  if (!params || typeof params !== 'object') throw new UserError('params are required (the accuracy you ask for)')
  if (params.kind !== query.kind) {
    throw new UserError(`Query "${query.name}" is a ${query.kind} query; its release takes ${query.kind} parameters (got ${String(params.kind)})`)
  }
  // A linked file or PostgreSQL relation (issue 16) must be there with the schema it was linked with before anything is
  // charged (public metadata); its fingerprint now is recorded in the ledger entry's params, sealed to the officers.
  const source = checkLinkedSource(db, query.datasetId)
  const prepared = prepareKind(db, query, datasetName, params)
  if (source) prepared.publicParams = { ...prepared.publicParams, source: sealSourceFingerprint(db, query.datasetId, source) }
  return prepared
}

function prepareKind(db: Database.Database, query: SavedQueryRow, datasetName: string, params: ReleaseParams): PreparedRelease {
  switch (params.kind) {
    case 'threshold':
      return prepareThreshold(db, query, datasetName, params)
    case 'anomaly-identification':
      return prepareAiq(db, query, datasetName, params.mechanism, params.epsilon)
    case 'anomaly-search':
      return prepareSearch(db, query, datasetName)
    default:
      throw new UserError(`Unknown release kind "${String((params as { kind: unknown }).kind)}"`)
  }
}

// ---------------------------------------------------------------------------------------------------------------

const MECHANISM_TEXT: Record<ThresholdReleaseParams['mechanism'], string> = {
  tslm: 'TSLM (one shot)',
  ppwlm: 'PPWLM (in steps, spends less on clear cases)',
  dppwlm: 'DPPWLM (in steps chosen from the data)'
}

function prepareThreshold(db: Database.Database, query: SavedQueryRow, datasetName: string, p: ThresholdReleaseParams): PreparedRelease {
  const def = thresholdDefinition(query)
  const mechanism = p.mechanism
  if (!(mechanism in MECHANISM_TEXT)) throw new UserError(`mechanism must be one of tslm, ppwlm, dppwlm (got "${String(mechanism)}")`)
  const beta = finite(p.beta, 'beta', (v) => v > 0 && v < 0.5, 'in (0, 0.5)')
  const alpha = finite(p.alpha, 'alpha', (v) => v > 0, 'a number > 0')
  const epsMax = p.epsMax === undefined ? undefined : finite(p.epsMax, 'eps-max', (v) => v > 0, 'a number > 0')
  const eps1 = p.eps1 === undefined ? 1e-5 : finite(p.eps1, 'eps1', (v) => v > 0, 'a number > 0')
  const steps = p.steps === undefined ? 4 : finite(p.steps, 'steps', (v) => Number.isInteger(v) && v >= 2 && v <= 50, 'a whole number from 2 to 50')
  const fineSteps = p.fineSteps === undefined ? 3 : finite(p.fineSteps, 'fine-steps', (v) => Number.isInteger(v) && v >= 1 && v <= 50, 'a whole number from 1 to 50')

  // Everything up to `execute` is computed from the definition and public tables only (the preview shows it).
  const pub = publicThreshold(db, query.datasetId, def)
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
  const engineEps = thresholdCharge(mechanism as ThresholdMechanism, engineParams).epsilon
  // How many predicates one unit can move (ALGORITHMS.md section 6): a row lies in one group; a person in at most
  // maxGroups (truncated to that many at run time), or in one when every group-by column holds one value per person.
  const unit = datasetUnit(db, query.datasetId)
  const k = pub.keys.length
  const onePerPerson = unit.kind === 'row' || pub.groupBy.every((c) => isPerPersonColumn(db, query.datasetId, c))
  const maxGroups = def.count.kind === 'persons' ? def.count.maxGroups : undefined
  const unitGroups = onePerPerson ? 1 : Math.min(maxGroups ?? k, k)
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
          ? `times ${unitGroups} groups a person may add to (maxGroups; persons in more are truncated)`
          : `times ${unitGroups} groups: a person may be in every predicate (set maxGroups to charge less)`
  const chargeExplained =
    `${perUnit} = ${nanoToDisplay(floatToNanoUp(engineEps / s))} for alpha ${num(alpha)}, beta ${num(beta)}, times sensitivity ${num(s)} ` +
    `(${pub.countText}${referenceFactor > 0 ? `; x max(1, ${num(referenceFactor)}) because the reference threshold comes from the same data` : ''}) = ${nanoToDisplay(floatToNanoUp(engineEps))} per predicate; ` +
    `${groupsText} = ${nanoToDisplay(chargeNano)}`
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
  const cells = cellsForUnit(
    db,
    query.datasetId,
    pub.keys.map((key) => {
      const conj: Record<string, string | number | null> = { ...fixed }
      pub.groupBy.forEach((c, j) => (conj[c] = key[j]))
      return cellKey(conj)
    })
  )
  const publicParams = { mechanism, alpha, beta, epsMax: epsMax ?? null, eps1, steps, fineSteps, sensitivity: s, unit: unitName(unit), unitGroups }
  const guarantee = thresholdGuarantee({ groupBy: pub.groupBy, countText: pub.countText, beta, alpha, chargeNano, predicates: k, unit, unitGroups, oneGroup: onePerPerson })
  return {
    query,
    datasetName,
    kind: 'threshold',
    notion: 'predicate-wise-dp',
    mechanism,
    chargeNano,
    chargeExplained,
    cells,
    guarantee,
    publicParams,
    description: `Threshold query "${query.name}" by ${MECHANISM_TEXT[mechanism]}, beta ${num(beta)}, alpha ${num(alpha)}, ${pub.keys.length} predicates`,
    execute(rng) {
      // After the charge: the true counts (and a reference threshold) come from the counted data here, and only here.
      const truth = pub.evaluate(rng)
      const counts = truth.counts.map((c) => c / s)
      const thresholds = truth.thresholds.map((c) => c / s)
      const run = runThreshold(mechanism, counts, thresholds, engineParams, rng)
      const flagged: Array<Array<string | number | null>> = []
      // Public part of each predicate (group, public threshold) with its released decision; never the count.
      const decisions: ThresholdDecision[] = pub.keys.map((key, i) => {
        const isFlagged = run.positive[i] !== 0
        if (isFlagged) flagged.push(key)
        // A reference threshold is computed from the dataset's own counts: it is not public, so it is not released.
        return { key, label: pub.labels[i], threshold: pub.thresholds === null ? null : pub.thresholds[i], flagged: isFlagged }
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
          groupBy: pub.groupBy,
          flagged,
          decisions,
          thresholdText: pub.thresholdText,
          countText: pub.countText
        },
        exPost: { spentMax: max, perPredicate }
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------

function prepareAiq(db: Database.Database, query: SavedQueryRow, datasetName: string, mechanism: 'dp' | 'sp', epsilon: number): PreparedRelease {
  const def = aiqDefinition(query)
  if (mechanism !== 'dp' && mechanism !== 'sp') throw new UserError(`mechanism must be dp or sp (got "${String(mechanism)}")`)
  finite(epsilon, 'epsilon', (v) => v > 0 && v <= 1e6, 'a number > 0')
  // Public: the columns and the records asked about decide the frame (clamp ranges, categories) before the charge.
  const resolved = anomalyIdentificationQuery(db, query.id)
  const frame = aiqFrame(
    resolved.columns.map((c, j) => ({ name: c.name, kind: c.type === 'text' ? 'categorical' : 'numeric', binWidth: c.type === 'text' ? NaN : (def.binWidths[j] as number) })),
    resolved.records,
    def.radius
  )
  const records = def.records!.length
  const perQueryNano = decimalToNano(epsilon, 'up')
  if (perQueryNano === 0) throw new UserError('epsilon is below the ledger resolution of 1e-9')
  // A person with r rows is r records away from the database without them (group privacy): the charge is r times the
  // row-level one, with r bounded by truncating each person to maxRowsPerPerson rows (default 1).
  const unit = datasetUnit(db, query.datasetId)
  const rowsPerUnit = unit.kind === 'person' ? (def.maxRowsPerPerson ?? 1) : 1
  const chargeNano = checkedProduct(checkedProduct(perQueryNano, records), rowsPerUnit)
  const notion: PrivacyNotion = mechanism === 'dp' ? 'eps-dp' : 'eps-k-sensitive'
  // (eps,k)-SP charges add up only on one neighbourhood graph: the dataset's first SP release fixes it.
  const graph = { columns: def.columns, binWidths: def.binWidths, metric: def.metric, radius: def.radius, beta: def.beta, k: def.k }
  const graphCheck = () => {
    if (mechanism === 'sp') checkSensitiveGraph(db, query.datasetId, graph)
  }
  graphCheck()
  const engineEps = epsilonAtMost(perQueryNano)
  return {
    query,
    datasetName,
    kind: 'anomaly-identification',
    notion,
    mechanism,
    chargeNano,
    chargeExplained:
      `${records} records asked x epsilon ${nanoToDisplay(perQueryNano)} each (sequential composition)` +
      (unit.kind === 'person' ? ` x ${rowsPerUnit} rows per person at most (group privacy; persons with more are truncated)` : '') +
      ` = ${nanoToDisplay(chargeNano)}`,
    cells: [WHOLE_DATASET],
    // Again inside the charge's transaction: another process may have fixed the graph since.
    recheck: graphCheck,
    guarantee: aiqGuarantee({ mechanism, epsilon, k: def.k, records, chargeNano, notion, unit, rowsPerUnit }),
    publicParams: { mechanism, epsilon, records, k: def.k, beta: def.beta, radius: def.radius, metric: def.metric, unit: unitName(unit), rowsPerUnit, graph },
    description: `Anomaly identification "${query.name}" (${mechanism === 'dp' ? 'optimal eps-DP' : `(eps,k)-sensitive, k = ${def.k}`}), ${records} records, epsilon ${num(epsilon)} each`,
    execute(rng) {
      const data = loadAnomalyIdentificationData({ db }, query.id)
      const keep = data.persons ? keptRows(data.persons, rowsPerUnit, rng) : null
      const pick = <T>(values: ArrayLike<T> | T[]): T[] => (keep ? keep.map((i) => values[i]) : Array.from(values))
      // The data, framed (aiq-frame.ts: no answer changes, nothing private can fail or widen the index), followed by the
      // records asked about, whose own copies are taken out of the histogram again: an empty selection is all zeros.
      const n = keep ? keep.length : data.rowCount
      const universe = buildUniverse(
        data.columns.map((c, j) => {
          const framed = framedValues(frame[j], pick(c.values as ArrayLike<number> & string[]))
          const asked = data.records.map((r) => r[j])
          return c.kind === 'numeric' ? Float64Array.from([...(framed as Float64Array), ...(asked as number[])]) : [...(framed as string[]), ...(asked as string[]).map(String)]
        }),
        data.columns.map((c) => ({ kind: c.kind, binWidth: c.kind === 'numeric' ? c.binWidth : undefined }))
      )
      for (let i = 0; i < records; i++) universe.counts[universe.recordPoint[n + i]] -= 1
      const tuples = new Int32Array(records * universe.dims)
      // The records converted like the columns (a timestamp given as ISO text is compared in ms, as stored).
      data.records.forEach((r, i) => tuples.set(encodeRecord(universe, r), i * universe.dims))
      const out = releaseAiq(rng, universe, {
        mechanism,
        metric: def.metric as Metric,
        radius: def.radius,
        beta: def.beta,
        k: def.k,
        epsilon: engineEps,
        queries: tuples
      })
      return {
        answer: { kind: 'anomaly-identification', columns: def.columns, records: def.records!.map((record, i) => ({ record, anomaly: out.bits[i] === 1 })) },
        exPost: { spentMax: engineEps * records }
      }
    }
  }
}

/**
 * An (eps,k)-SP epsilon protects the k-sensitive records of one neighbourhood graph, set by (columns, bins, metric,
 * radius, beta, k); epsilons on different graphs do not add up to a bound on either (a k = 1 release costs about 2.2 eps
 * on the k = 2 graph). So the dataset's first SP release fixes the graph (it is recorded in its ledger entry) and later SP
 * releases must use the same one; the eps-DP mechanism is always possible. Reads only the ledger (public to the analyst).
 */
function checkSensitiveGraph(db: Database.Database, datasetId: number, graph: Record<string, unknown>): void {
  const rows = db
    .prepare(`SELECT seq, detail FROM ledger_entries WHERE kind = 'charge' AND dataset_id = ? AND notion = 'eps-k-sensitive' ORDER BY seq`)
    .all(datasetId) as Array<{ seq: number; detail: string }>
  for (const r of rows) {
    const detail = JSON.parse(r.detail) as { queryId?: number; params?: { graph?: Record<string, unknown> } }
    let fixed = detail.params?.graph
    if (!fixed && typeof detail.queryId === 'number') {
      // Written before graphs were recorded: saved queries never change, so the query gives the graph.
      const q = getQueryIncludingDeleted(db, detail.queryId)
      if (q && q.definition.kind === 'anomaly-identification') {
        const d = q.definition
        fixed = { columns: d.columns, binWidths: d.binWidths, metric: d.metric, radius: d.radius, beta: d.beta, k: d.k }
      }
    }
    if (!fixed) continue
    if (canonicalJson(fixed) === canonicalJson(graph)) return
    const f = fixed as { columns: string[]; metric: string; radius: number; beta: number; k: number }
    throw new UserError(
      `This dataset's (eps,k)-sensitive privacy account is on the graph fixed by ledger entry ${r.seq} (columns ${f.columns.join(', ')}, metric ${f.metric}, radius ${num(f.radius)}, beta ${f.beta}, k ${f.k}, same bins); ` +
        'an SP release on another graph would not add up with it. Save the query with those settings, or release with the eps-DP mechanism (dp)',
      'graph-fixed'
    )
  }
}

/**
 * The rows kept when each person may add at most `max` rows: for a person with more, a uniformly random subset of that
 * many (drawn with `rng`, the secure generator in a release). Row indices in ascending order.
 */
export function keptRows(persons: readonly unknown[], max: number, rng: Rng): number[] {
  const byPerson = new Map<unknown, number[]>()
  persons.forEach((p, i) => {
    const list = byPerson.get(p)
    if (list) list.push(i)
    else byPerson.set(p, [i])
  })
  const kept: number[] = []
  for (const list of byPerson.values()) kept.push(...keepRandomSubset(rng, list, max))
  return kept.sort((a, b) => a - b)
}

// ---------------------------------------------------------------------------------------------------------------

/** The released posterior's grid: coarse, far above the noise's float resolution. */
export const POSTERIOR_GRID = 0.01

/** A posterior probability on the 0.01 grid, clamped to [0, 1], printed with at most 2 decimals. */
export function snapPosterior(p: number): number {
  if (!Number.isFinite(p)) throw new Error('the search returned a posterior that is not a number')
  const snapped = Math.round(Math.min(1, Math.max(0, p)) / POSTERIOR_GRID)
  return Number((snapped * POSTERIOR_GRID).toFixed(2))
}

function prepareSearch(db: Database.Database, query: SavedQueryRow, datasetName: string): PreparedRelease {
  const def = searchDefinition(query)
  // The individuals are public (definition or public table): their number and ids may shape the price and messages.
  const individuals = searchIndividuals(db, anomalySearchQuery(db, query.id))
  const eps = finite(def.epsilonPerQuery, 'epsilonPerQuery', (v) => v > 0 && v <= 1e6, 'a number > 0')
  const budget = finite(def.budget, 'budget', (v) => v > 0 && v <= 1e6, 'a number > 0')
  const floor = def.scoreFloor ?? 0
  if (!(def.tLow > floor)) throw new UserError(`tLow must be greater than the score floor L = ${num(floor)}`)
  const perQueryNano = decimalToNano(eps, 'up')
  if (perQueryNano === 0) throw new UserError('epsilon per query is below the ledger resolution of 1e-9')
  const maxQueries = queriesAllowedByBudget(budget, eps)
  if (maxQueries < 1) throw new UserError(`The search budget ${num(budget)} does not allow a single query at epsilon ${num(eps)}; raise the budget in the saved query`)
  const chargeNano = checkedProduct(perQueryNano, maxQueries)
  const top = Math.min(def.top ?? 4, individuals.length)
  const engineEps = epsilonAtMost(perQueryNano)
  // The engine stops when (T+1) eps > b: with b = maxQueries x engineEps it asks at most maxQueries questions.
  const engineBudget = maxQueries * engineEps
  if (queriesAllowedByBudget(engineBudget, engineEps) !== maxQueries) throw new Error('search budget rounding')
  const tau = def.tau ?? (def.delta === undefined ? 0.5 : undefined)
  return {
    query,
    datasetName,
    kind: 'anomaly-search',
    notion: 'anomaly-restricted-dp',
    mechanism: def.oracle,
    chargeNano,
    chargeExplained: `at most ${maxQueries} group questions (budget ${num(budget)} / epsilon ${num(eps)}) x epsilon ${nanoToDisplay(perQueryNano)} = ${nanoToDisplay(chargeNano)}`,
    cells: [WHOLE_DATASET],
    guarantee: searchGuarantee({ top, scoreColumn: def.scoreColumn, tLow: def.tLow, tHigh: def.tHigh, floor, individuals: individuals.length, maxQueries, chargeNano, unit: datasetUnit(db, query.datasetId) }),
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
    execute(rng) {
      // After the charge: the scores come from the searched data here, clipped to [L, inf) by the loader.
      const data = loadAnomalySearchData({ db }, query.id)
      // Shifted by L: the engine's oracle has sensitivity tLow and sees scores >= 0 (every normal score in [0, tLow - L]).
      const shifted = data.scores.map((x) => x - floor)
      const out = releaseAnomalySearch(
        shifted,
        {
          epsilon: engineEps,
          tLow: def.tLow - floor,
          tHigh: def.tHigh - floor,
          oracle: def.oracle,
          budget: engineBudget,
          tau,
          delta: def.delta,
          top,
          posteriorGrid: POSTERIOR_GRID
        },
        rng
      )
      if (out.posterior.length !== out.top.length) throw new Error('the search returned a posterior that does not match its top-S')
      return {
        answer: {
          kind: 'anomaly-search',
          top: out.top.map((i) => data.ids[i]),
          idColumn: def.idColumn ?? null,
          // Post-processing of the charged noisy answers, snapped to the coarse grid (ALGORITHMS.md section 4).
          posterior: out.posterior.map((p) => snapPosterior(p)),
          posteriorGrid: POSTERIOR_GRID
        },
        exPost: { spentMax: out.queries * engineEps, queries: out.queries, haltedBy: out.haltedBy, posterior: out.posterior }
      }
    }
  }
}
