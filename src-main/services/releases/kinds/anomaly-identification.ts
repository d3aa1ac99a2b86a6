/**
 * Anomaly identification (optimal eps-DP or (eps,k)-sensitive privacy): the price is records asked x epsilon per record,
 * x on a person-level dataset the person bound's L = rowsPerBin x binsPerPerson (what one person can move a record's
 * ball count by, near each record asked: engine/sensitive/person-bound.ts); the answer is one released bit per record.
 */
import type Database from 'better-sqlite3'
import type { AnomalyIdentificationDefinition, PrivacyUnit } from '../../../contract/datasets'
import type { AnomalyIdentificationReleaseParams, PrivacyNotion } from '../../../contract/ledger'
import { RELEASE_PARAMS } from '../../../contract/release-params'
import { AIQ_PERSON_BOUND_DEFAULT } from '../../../contract/release-params'
import type { Metric, PersonBound } from '../../../../src-worker/engine/sensitive'
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

/** The person bound a definition asks for, with its defaults (AIQ_PERSON_BOUND_DEFAULT). */
export function aiqPersonBound(def: AnomalyIdentificationDefinition): PersonBound {
  return {
    rowsPerBin: def.rowsPerBin ?? AIQ_PERSON_BOUND_DEFAULT.rowsPerBin,
    binsPerPerson: def.binsPerPerson ?? AIQ_PERSON_BOUND_DEFAULT.binsPerPerson
  }
}

/**
 * The privacy map: records asked x epsilon per record (rounded up to the ledger's nano-epsilon per record), x on a
 * person-level dataset L = rowsPerBin x binsPerPerson: near each record asked a person counts at most that many rows,
 * so removing or adding them is at most L steps of one record, and the answer's flip distance moves by at most L.
 * From the definition and the dataset's signed unit only.
 */
function aiqPrice(db: Database.Database, datasetId: number, records: number, epsilon: number, def: AnomalyIdentificationDefinition) {
  const perQueryNano = decimalToNano(epsilon, 'up')
  if (perQueryNano === 0) throw new UserError('epsilon is below the ledger resolution of 1e-9')
  const unit = datasetUnit(db, datasetId)
  const bound = unit.kind === 'person' ? aiqPersonBound(def) : null
  const steps = bound ? bound.rowsPerBin * bound.binsPerPerson : 1
  const chargeNano = checkedProduct(checkedProduct(perQueryNano, records), steps)
  const chargeExplained =
    `${records} records asked x epsilon ${nanoToDisplay(perQueryNano)} each (sequential composition)` +
    (bound
      ? ` x ${steps} (near each record a person counts at most ${bound.rowsPerBin} row${bound.rowsPerBin === 1 ? '' : 's'} per bin in at most ${bound.binsPerPerson} bin${bound.binsPerPerson === 1 ? '' : 's'}: they move its neighbour count by at most ${steps})`
      : '') +
    ` = ${nanoToDisplay(chargeNano)}`
  return { unit, perQueryNano, bound, steps, chargeNano, chargeExplained }
}

/** The (eps,k)-SP neighbourhood graph a definition is on; graphs recorded before the neighbour limit was renamed name it beta. */
function graphOf(d: AnomalyIdentificationDefinition) {
  return { columns: d.columns, binWidths: d.binWidths, metric: d.metric, radius: d.radius, maxNeighbours: d.maxNeighbours, k: d.k }
}

function currentGraph(g: Record<string, unknown>): Record<string, unknown> {
  const { beta, ...rest } = g
  return beta === undefined || rest.maxNeighbours !== undefined ? rest : { ...rest, maxNeighbours: beta }
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
  const { unit, perQueryNano, bound, steps, chargeNano, chargeExplained } = aiqPrice(db, query.datasetId, records, epsilon, def)
  const notion: PrivacyNotion = mechanism === 'dp' ? 'eps-dp' : 'eps-k-sensitive'
  // (eps,k)-SP charges add up only on one neighbourhood graph: the dataset's first SP release fixes it.
  const graph = graphOf(def)
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
    accuracy: { kind: 'anomaly-identification', records, steps, epsilon },
    guarantee: aiqGuarantee({ mechanism, epsilon, k: def.k, maxNeighbours: def.maxNeighbours, records, chargeNano, notion, unit, bound }),
    publicParams: {
      mechanism,
      epsilon,
      records,
      k: def.k,
      maxNeighbours: def.maxNeighbours,
      radius: def.radius,
      metric: def.metric,
      unit: unitName(unit),
      ...(bound ? { rowsPerBin: bound.rowsPerBin, binsPerPerson: bound.binsPerPerson, personSteps: steps } : {}),
      graph
    },
    description: `Anomaly identification "${query.name}" (${mechanism === 'dp' ? 'optimal ε-DP' : `(ε,k)-sensitive, k = ${def.k}`}), ${records} records, ε ${num(epsilon)} each`,
    ...releaseRun<'release:anomaly-identification'>({
      task: 'release:anomaly-identification',
      read: () => ({
        ...aiqColumns(db, query.id, frame, bound),
        mechanism,
        metric: def.metric as Metric,
        radius: def.radius,
        beta: def.maxNeighbours,
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
 * After the charge, on the services' thread: the data read, framed (aiq-frame.ts: no answer changes, nothing private can
 * fail or widen the index), followed by the records asked about, whose own copies the task takes out of the histogram
 * again (an empty selection is all zeros); on a person-level dataset each row's person as a code, with the bound, which
 * the task applies near each record asked (its random priorities come from the task's secure generator). The universe
 * and the ball counts are built by the task (src-worker/tasks/release-anomaly-identification.ts).
 */
function aiqColumns(
  db: Database.Database,
  queryId: number,
  frame: ReturnType<typeof aiqFrame>,
  bound: PersonBound | null
): Pick<AiqReleasePayload, 'columns' | 'rows' | 'records' | 'persons'> {
  const data = loadAnomalyIdentificationData({ db }, queryId)
  const columns = data.columns.map((c, j): AiqReleasePayload['columns'][number] => {
    const framed = framedValues(frame[j], c.values as ArrayLike<number> & string[])
    const asked = data.records.map((r) => r[j])
    return c.kind === 'numeric'
      ? { kind: 'numeric', binWidth: c.binWidth, values: Float64Array.from([...(framed as Float64Array), ...(asked as number[])]) }
      : { kind: 'categorical', values: [...(framed as string[]), ...(asked as string[]).map(String)] }
  })
  // The records converted like the columns (a timestamp given as ISO text is compared in ms, as stored).
  const persons = data.persons && bound ? { codes: personCodes(data.persons), bound } : undefined
  return { columns, rows: data.rowCount, records: data.records, ...(persons ? { persons } : {}) }
}

/** Each row's person as a small whole number (the same person, the same code), for the task. */
function personCodes(persons: readonly unknown[]): Int32Array {
  const codes = new Map<unknown, number>()
  return Int32Array.from(persons, (p) => {
    let c = codes.get(p)
    if (c === undefined) codes.set(p, (c = codes.size))
    return c
  })
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
    let fixed = detail.params?.graph ? currentGraph(detail.params.graph) : undefined
    if (!fixed && typeof detail.queryId === 'number') {
      // Written before graphs were recorded: saved queries never change, so the query gives the graph.
      const q = getQueryIncludingDeleted(db, detail.queryId)
      if (q && q.definition.kind === 'anomaly-identification') fixed = graphOf(q.definition)
    }
    if (!fixed) continue
    if (canonicalJson(fixed) === canonicalJson(graph)) return
    const f = fixed as { columns: string[]; metric: string; radius: number; maxNeighbours: number; k: number }
    throw new UserError(
      `This dataset's (eps,k)-sensitive privacy account is on the graph fixed by ledger entry ${r.seq} (columns ${f.columns.join(', ')}, metric ${f.metric}, radius ${num(f.radius)}, max neighbours ${f.maxNeighbours}, k ${f.k}, same bins); ` +
        'an SP release on another graph would not add up with it. Save the query with those settings, or release with the eps-DP mechanism (dp)',
      'graph-fixed'
    )
  }
}

function aiqGuarantee(o: {
  mechanism: 'dp' | 'sp'
  epsilon: number
  k: number
  maxNeighbours: number
  records: number
  chargeNano: number
  notion: PrivacyNotion
  unit: PrivacyUnit
  bound: PersonBound | null
}): string {
  const worst = 1 / (1 + Math.exp(o.epsilon))
  const tail =
    o.mechanism === 'sp'
      ? ` Records that are not ${o.k}-sensitive (adding ${o.k} records would not make them normal) are answered more accurately; anomalies themselves are not hidden.`
      : ''
  const b = o.bound
  const who = b
    ? b.rowsPerBin === 1 && b.binsPerPerson === 1
      ? 'persons'
      : `persons' rows (each person at most ${b.rowsPerBin} per bin in at most ${b.binsPerPerson} bin${b.binsPerPerson === 1 ? '' : 's'})`
    : 'records'
  const counting = b
    ? ` Near each record asked, a person counts at most ${b.rowsPerBin} row${b.rowsPerBin === 1 ? '' : 's'} in a bin and in at most ${b.binsPerPerson} bin${b.binsPerPerson === 1 ? '' : 's'} within the radius (the record's own bin first, others chosen at random), so a record is an anomaly when at most ${o.maxNeighbours} ${who} are near it; this never turns an anomaly of the rows into a normal answer.`
    : ` A record is an anomaly when at most ${o.maxNeighbours} records (its own copies included) lie within the radius.`
  return (
    `Each of the ${o.records} answers is wrong with probability at most ${pct(worst)} when one record more or less would change it, ` +
    `and e^-${num(o.epsilon)} times less for each further record needed.${tail}${counting} ` +
    `The records asked about are public (they are part of the query). ` +
    `Privacy: ${NOTION_LABEL[o.notion]}${o.mechanism === 'sp' ? ` with k = ${o.k}` : ''}, epsilon ${nanoToDisplay(o.chargeNano)} for ${protectedUnit(o.unit)} in this release ` +
    `(${num(o.epsilon)} per record asked${b ? `, times ${b.rowsPerBin * b.binsPerPerson}: the most a person's rows move one record's neighbour count` : ''}).`
  )
}

export const anomalyIdentificationKind: ReleaseKindModule<AnomalyIdentificationReleaseParams> = { kind: 'anomaly-identification', prepare }
