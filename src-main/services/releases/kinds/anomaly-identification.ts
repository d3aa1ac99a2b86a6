/**
 * Anomaly identification (optimal eps-DP or (eps,k)-sensitive privacy): the price is records asked x epsilon per record
 * (x rows per person on a person-level dataset); the answer is one released bit per record.
 */
import type Database from 'better-sqlite3'
import type { PrivacyUnit } from '../../../contract/datasets'
import type { AnomalyIdentificationReleaseParams, PrivacyNotion } from '../../../contract/ledger'
import { RELEASE_PARAMS } from '../../../contract/release-params'
import { type Rng, keepRandomSubset } from '../../../../src-worker/engine/random'
import type { Metric } from '../../../../src-worker/engine/sensitive'
import type { AiqReleasePayload } from '../../../../src-worker/tasks/release-anomaly-identification'
import { UserError } from '../../platform/errors'
import { canonicalJson } from '../../chain/canonical'
import { WHOLE_DATASET } from '../../ledger/cells'
import { decimalToNano, epsilonAtMost, nanoToDisplay } from '../../chain/nano-epsilon'
import { NOTION_LABEL } from '../../chain/notions'
import { anomalyIdentificationQuery, loadAnomalyIdentificationData } from '../../datasets/anomaly-loaders'
import { getQueryIncludingDeleted } from '../../datasets/query-store'
import { datasetUnit } from '../../trust/privacy-unit'
import { unitName } from '../../catalog/unit-record'
import { aiqFrame, framedValues } from '../aiq-frame'
import { num, pct, protectedUnit } from '../guarantee'
import { type SavedQueryRow, aiqDefinition } from '../inputs'
import { type PreparedRelease, type ReleaseKindModule, checked, checkedProduct, releaseRun } from './release-kind'

const P = RELEASE_PARAMS.anomalyIdentification

/**
 * The privacy map: records asked x epsilon per record (rounded up to the ledger's nano-epsilon per record), x the rows
 * one person may add on a person-level dataset (group privacy), from the definition and the dataset's signed unit only.
 */
function aiqPrice(db: Database.Database, datasetId: number, records: number, epsilon: number, maxRowsPerPerson: number | undefined) {
  const perQueryNano = decimalToNano(epsilon, 'up')
  if (perQueryNano === 0) throw new UserError('epsilon is below the ledger resolution of 1e-9')
  const unit = datasetUnit(db, datasetId)
  // A person with r rows is r records away from the database without them (group privacy): the charge is r times the
  // row-level one, with r bounded by truncating each person to maxRowsPerPerson rows (default 1).
  const rowsPerUnit = unit.kind === 'person' ? (maxRowsPerPerson ?? 1) : 1
  const chargeNano = checkedProduct(checkedProduct(perQueryNano, records), rowsPerUnit)
  const chargeExplained =
    `${records} records asked x epsilon ${nanoToDisplay(perQueryNano)} each (sequential composition)` +
    (unit.kind === 'person' ? ` x ${rowsPerUnit} rows per person at most (group privacy; persons with more are truncated)` : '') +
    ` = ${nanoToDisplay(chargeNano)}`
  return { unit, perQueryNano, rowsPerUnit, chargeNano, chargeExplained }
}

function prepare(db: Database.Database, query: SavedQueryRow, datasetName: string, params: AnomalyIdentificationReleaseParams): PreparedRelease {
  const { mechanism, epsilon } = params
  const def = aiqDefinition(query)
  if (!(P.mechanism.choices as readonly string[]).includes(mechanism)) throw new UserError(`mechanism must be dp or sp (got "${String(mechanism)}")`)
  checked(epsilon, 'epsilon', P.epsilon.range)
  // Public: the columns and the records asked about decide the frame (clamp ranges, categories) before the charge.
  const resolved = anomalyIdentificationQuery(db, query.id)
  const frame = aiqFrame(
    resolved.columns.map((c, j) => ({
      name: c.name,
      kind: c.type === 'text' ? 'categorical' : 'numeric',
      binWidth: c.type === 'text' ? NaN : (def.binWidths[j] as number)
    })),
    resolved.records,
    def.radius
  )
  const records = def.records!.length
  const { unit, perQueryNano, rowsPerUnit, chargeNano, chargeExplained } = aiqPrice(db, query.datasetId, records, epsilon, def.maxRowsPerPerson)
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
    chargeExplained,
    cells: [WHOLE_DATASET],
    // Again inside the charge's transaction: another process may have fixed the graph since.
    recheck: graphCheck,
    guarantee: aiqGuarantee({ mechanism, epsilon, k: def.k, records, chargeNano, notion, unit, rowsPerUnit }),
    publicParams: {
      mechanism,
      epsilon,
      records,
      k: def.k,
      beta: def.beta,
      radius: def.radius,
      metric: def.metric,
      unit: unitName(unit),
      rowsPerUnit,
      graph
    },
    description: `Anomaly identification "${query.name}" (${mechanism === 'dp' ? 'optimal eps-DP' : `(eps,k)-sensitive, k = ${def.k}`}), ${records} records, epsilon ${num(epsilon)} each`,
    ...releaseRun<'release:anomaly-identification'>({
      task: 'release:anomaly-identification',
      read: (rng) => ({
        ...aiqColumns(db, query.id, frame, rowsPerUnit, rng),
        mechanism,
        metric: def.metric as Metric,
        radius: def.radius,
        beta: def.beta,
        k: def.k,
        epsilon: engineEps
      }),
      finish: (out) => ({
        answer: {
          kind: 'anomaly-identification',
          columns: def.columns,
          records: def.records!.map((record, i) => ({ record, anomaly: out.bits[i] === 1 }))
        },
        exPost: { spentMax: engineEps * records }
      })
    })
  }
}

/**
 * After the charge, on the services' thread: the data read, each person truncated to `rowsPerUnit` rows at random
 * (`rng`, secure), framed (aiq-frame.ts: no answer changes, nothing private can fail or widen the index), followed by
 * the records asked about, whose own copies the task takes out of the histogram again (an empty selection is all
 * zeros). The universe and the ball counts are built by the task (src-worker/tasks/release-anomaly-identification.ts).
 */
function aiqColumns(
  db: Database.Database,
  queryId: number,
  frame: ReturnType<typeof aiqFrame>,
  rowsPerUnit: number,
  rng: Rng
): Pick<AiqReleasePayload, 'columns' | 'rows' | 'records'> {
  const data = loadAnomalyIdentificationData({ db }, queryId)
  const keep = data.persons ? keptRows(data.persons, rowsPerUnit, rng) : null
  const pick = <T>(values: ArrayLike<T> | T[]): T[] => (keep ? keep.map((i) => values[i]) : Array.from(values))
  const columns = data.columns.map((c, j): AiqReleasePayload['columns'][number] => {
    const framed = framedValues(frame[j], pick(c.values as ArrayLike<number> & string[]))
    const asked = data.records.map((r) => r[j])
    return c.kind === 'numeric'
      ? { kind: 'numeric', binWidth: c.binWidth, values: Float64Array.from([...(framed as Float64Array), ...(asked as number[])]) }
      : { kind: 'categorical', values: [...(framed as string[]), ...(asked as string[]).map(String)] }
  })
  // The records converted like the columns (a timestamp given as ISO text is compared in ms, as stored).
  return { columns, rows: keep ? keep.length : data.rowCount, records: data.records }
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

function aiqGuarantee(o: {
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

export const anomalyIdentificationKind: ReleaseKindModule<AnomalyIdentificationReleaseParams> = { kind: 'anomaly-identification', prepare }
