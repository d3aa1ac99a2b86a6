/**
 * The anomaly search form's state and the definition it stands for (pure, unit-tested in
 * test/unit/renderer/query-builders.test.ts). The individuals searched are public (the paper's model of n+1 known
 * individuals): listed in the form or a public dataset's column, matched on the required id column. Scores are clipped
 * to [L, inf) with the optional score floor L (default 0); the noise scale is (tLow - L) / eps.
 */
import type { AnomalySearchDefinition, DatasetInfo } from '../../../../src-main/contract'
import { parseNumber } from '../../components/numberText'
import { noPublicSourceReason, publicSources } from './thresholdDefinition'

export interface SearchForm {
  score: string
  idColumn: string
  individuals: { source: 'listed' | 'dataset'; listed: string; datasetId: string; column: string }
  scoreFloor: string
  tLow: string
  tHigh: string
  eps: string
  budget: string
  oracle: AnomalySearchDefinition['oracle']
  stop: 'tau' | 'delta'
  tau: string
  delta: string
  top: string
}

export const MAX_INDIVIDUALS = 100_000

/** The listed ids: one per non-empty line (trimmed); a sentence when there are too few, too many or a repeat. */
export function parseIndividuals(text: string): string[] | string {
  const ids: string[] = []
  const seen = new Map<string, number>()
  const lines = text.split(/\r?\n/)
  for (let i = 0; i < lines.length; i++) {
    const id = lines[i].trim()
    if (id === '') continue
    const first = seen.get(id)
    if (first !== undefined) return `Line ${i + 1} of the individuals repeats line ${first} (“${id.slice(0, 40)}”): list each id once.`
    seen.set(id, i + 1)
    ids.push(id)
  }
  if (ids.length < 2) return `List at least two individuals to search among, one id per line (${ids.length} so far).`
  if (ids.length > MAX_INDIVIDUALS)
    return `At most ${MAX_INDIVIDUALS.toLocaleString('en-US')} individuals can be listed; take more from a public dataset.`
  return ids
}

/** The definition, or one sentence saying what is missing (the save button stays disabled with it). */
export function buildSearchDefinition(form: SearchForm, dataset: DatasetInfo, datasets: readonly DatasetInfo[]): AnomalySearchDefinition | string {
  const numeric = dataset.columns.filter((c) => c.type === 'integer' || c.type === 'real')
  if (numeric.length === 0) return 'This dataset has no numeric column to search for an anomaly in.'
  if (!form.score) return 'Choose the score column: the anomaly is the individual whose score is far above the rest.'
  if (!form.idColumn) return 'Choose the column naming the individuals (the id column): the listed individuals are matched on it.'
  let individuals: Pick<AnomalySearchDefinition, 'individuals' | 'individualsFrom'>
  if (form.individuals.source === 'listed') {
    const ids = parseIndividuals(form.individuals.listed)
    if (typeof ids === 'string') return ids
    individuals = { individuals: ids }
  } else {
    const sources = publicSources(dataset, datasets)
    if (sources.length === 0) return noPublicSourceReason(dataset, datasets, 'A list of individuals from a dataset') + ' Or list the ids here.'
    const src = sources.find((d) => String(d.id) === form.individuals.datasetId)
    if (!src) return 'Choose the public dataset that lists the individuals.'
    if (!src.columns.some((c) => c.name === form.individuals.column)) return `Choose the column of “${src.name}” that holds the ids.`
    individuals = { individualsFrom: { datasetId: src.id, column: form.individuals.column } }
  }
  const floor = form.scoreFloor.trim() === '' ? 0 : parseNumber(form.scoreFloor)
  if (floor === null) return 'The score floor L must be a number (or empty for 0).'
  const tl = parseNumber(form.tLow)
  const th = parseNumber(form.tHigh)
  const e = parseNumber(form.eps)
  const b = parseNumber(form.budget)
  const t = parseNumber(form.top)
  if (tl === null || tl <= floor) return `Give t-low, above the score floor L = ${floor}: every individual scoring at or below it is protected.`
  if (th === null || th <= tl) return 'Give t-high (greater than t-low): the anomaly is above it.'
  if (e === null || e <= 0) return 'Give the ε of each noisy question (> 0).'
  if (b === null || b < e) return 'Give the budget (at least the ε per question): it bounds the total charge.'
  if (t === null || !Number.isInteger(t) || t < 1) return 'Give how many candidates to show (a whole number).'
  const d: AnomalySearchDefinition = {
    kind: 'anomaly-search',
    scoreColumn: form.score,
    idColumn: form.idColumn,
    ...individuals,
    tLow: tl,
    tHigh: th,
    epsilonPerQuery: e,
    budget: b,
    oracle: form.oracle,
    top: t
  }
  if (form.scoreFloor.trim() !== '') d.scoreFloor = floor
  if (form.stop === 'tau') {
    const x = parseNumber(form.tau)
    if (x === null || x <= 0 || x >= 1) return 'Give tau between 0 and 1.'
    d.tau = x
  } else {
    const x = parseNumber(form.delta)
    if (x === null || x <= 0 || x >= 1) return 'Give delta between 0 and 1.'
    d.delta = x
  }
  return d
}

/**
 * A saved search back in the form (to edit it as its next version), over the `blank` form of its dataset;
 * `buildSearchDefinition` of the result gives the definition again (unit-tested round trip).
 */
export function searchFormFromDefinition(def: AnomalySearchDefinition, blank: SearchForm): SearchForm {
  const individuals: SearchForm['individuals'] = def.individualsFrom
    ? { ...blank.individuals, source: 'dataset', datasetId: String(def.individualsFrom.datasetId), column: def.individualsFrom.column }
    : { ...blank.individuals, source: 'listed', listed: (def.individuals ?? []).join('\n') }
  return {
    ...blank,
    score: def.scoreColumn,
    idColumn: def.idColumn ?? blank.idColumn,
    individuals,
    scoreFloor: def.scoreFloor === undefined ? '' : String(def.scoreFloor),
    tLow: String(def.tLow),
    tHigh: String(def.tHigh),
    eps: String(def.epsilonPerQuery),
    budget: String(def.budget),
    oracle: def.oracle,
    stop: def.delta !== undefined ? 'delta' : 'tau',
    tau: def.tau === undefined ? blank.tau : String(def.tau),
    delta: def.delta === undefined ? blank.delta : String(def.delta),
    top: def.top === undefined ? blank.top : String(def.top)
  }
}
