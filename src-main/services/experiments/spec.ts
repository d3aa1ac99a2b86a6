/**
 * Experiment specs: structural validation (one clear sentence per problem), workload loading, and the plan of cells.
 *
 * Cells: for each sweep, workload, mechanism and grid point (cartesian product, in the order listed), the parameters are
 * the engine defaults, overridden by the sweep's `params`, overridden by the grid point. A cell's KEY is its engine,
 * workload content hash, mechanism, and the parameters that mechanism uses; its SEED is deriveSeed(baseSeed, key).
 * So adding grid points, sweeps or workloads never changes an existing cell's seed or result, and cells with equal keys
 * (e.g. the defaults point that an alpha sweep repeats, or TSLM in an eps_1 sweep) are computed once and share results.
 */
import { deriveSeed } from '../../../src-worker/engine/random'
import type { ExperimentEngine, ExperimentSpec, ParamValue, SweepSpec, WorkloadRef } from '../../contract/experiments'
import { MAX_SEED_LENGTH, MAX_SPEC_NAME, MAX_TRIALS_PER_CELL, experimentSpecSchema } from '../../contract/schemas/experiment-spec'
import { issueSentence } from '../../contract/schemas/sentence'
import { isUserError } from '../platform/errors'
import { ENGINES, engineAdapter } from './engines'
import type { EngineAdapter, LoadedWorkload, WorkloadContext } from './engines/types'

export { MAX_TRIALS_PER_CELL }
export const MAX_CELLS = 20_000
export const MAX_TOTAL_TRIALS = 20_000_000
const MAX_ERRORS_SHOWN = 12

export interface PlannedCell {
  index: number
  sweep: string
  workload: number
  mechanism: string
  params: Record<string, ParamValue>
  key: string
  seed: string
}

export interface ExperimentPlan {
  spec: ExperimentSpec
  adapter: EngineAdapter
  workloads: LoadedWorkload[]
  cells: PlannedCell[]
  /** Distinct keys (what is actually computed). */
  distinctCells: number
}

export type PlanOutcome = { ok: true; plan: ExperimentPlan } | { ok: false; errors: string[] }

const isObj = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x)
const show = (x: unknown): string => {
  const s = typeof x === 'string' ? `"${x}"` : (JSON.stringify(x) ?? String(x))
  return s.length > 40 ? s.slice(0, 37) + '...' : s
}
const isParamValue = (v: unknown): v is ParamValue => (typeof v === 'number' && Number.isFinite(v)) || typeof v === 'string'

/** Check the shape of a spec; returns the typed spec (with a single `sweeps` list) or the problems found. */
export function checkSpec(raw: unknown): { spec: ExperimentSpec | null; errors: string[] } {
  const errors: string[] = []
  if (!isObj(raw)) return { spec: null, errors: ['The experiment spec must be a JSON object.'] }
  const known = new Set([
    '$schema',
    'version',
    'name',
    'engine',
    'workloads',
    'mechanisms',
    'params',
    'grid',
    'sweeps',
    'trials',
    'seed',
    'trialsPerBatch',
    'diagnostics',
    'description'
  ])
  for (const k of Object.keys(raw)) if (!known.has(k)) errors.push(`The spec has an unknown field "${k}"; remove it or check its spelling.`)
  if (raw.version !== undefined && raw.version !== 1) errors.push(`spec.version must be 1 (got ${show(raw.version)}).`)
  if (typeof raw.name !== 'string' || raw.name.trim() === '' || raw.name.length > MAX_SPEC_NAME) {
    errors.push(`spec.name must be a non-empty text of at most ${MAX_SPEC_NAME} characters.`)
  }
  const engine = raw.engine
  if (typeof engine !== 'string' || !(ENGINES as readonly string[]).includes(engine)) {
    errors.push(`spec.engine must be one of ${ENGINES.join(', ')} (got ${show(engine)}).`)
    return { spec: null, errors }
  }
  const adapter = engineAdapter(engine as ExperimentEngine)

  // Workloads
  const workloads: WorkloadRef[] = []
  if (!Array.isArray(raw.workloads) || raw.workloads.length === 0) {
    errors.push(`spec.workloads must be a non-empty list (${adapter.engine} workloads are of kind ${adapter.workloadKinds.join(' or ')}).`)
  } else {
    raw.workloads.forEach((w, i) => {
      const at = `spec.workloads[${i}]`
      if (!isObj(w)) return void errors.push(`${at} must be an object such as {"kind": "${adapter.workloadKinds[0]}", ...}.`)
      if (typeof w.kind !== 'string' || !adapter.workloadKinds.includes(w.kind as WorkloadRef['kind'])) {
        return void errors.push(
          `${at}.kind must be ${adapter.workloadKinds.map((k) => `"${k}"`).join(' or ')} for the ${adapter.engine} engine (got ${show(w.kind)}).`
        )
      }
      if (w.kind === 'saved-query') {
        if (!Number.isSafeInteger(w.queryId) || (w.queryId as number) < 1)
          return void errors.push(`${at}.queryId must be the number of a saved query (got ${show(w.queryId)}).`)
      } else if (typeof w.path !== 'string' || w.path.trim() === '') {
        return void errors.push(`${at}.path must be the path of a file.`)
      }
      if (w.label !== undefined && (typeof w.label !== 'string' || w.label.trim() === ''))
        return void errors.push(`${at}.label must be a non-empty text.`)
      workloads.push(w as unknown as WorkloadRef)
    })
  }

  // Trials, seed, batches
  const trials = raw.trials
  if (typeof trials !== 'number' || !Number.isInteger(trials) || trials < 1 || trials > MAX_TRIALS_PER_CELL) {
    errors.push(`spec.trials must be a whole number from 1 to ${MAX_TRIALS_PER_CELL} (got ${show(trials)}).`)
  }
  const seed = raw.seed
  if (!((typeof seed === 'string' && seed !== '' && seed.length <= MAX_SEED_LENGTH) || (typeof seed === 'number' && Number.isSafeInteger(seed)))) {
    errors.push(`spec.seed must be a non-empty text or a whole number (got ${show(seed)}).`)
  }
  const tpb = raw.trialsPerBatch
  if (tpb !== undefined && (typeof tpb !== 'number' || !Number.isInteger(tpb) || tpb < 1)) {
    errors.push(`spec.trialsPerBatch must be a whole number >= 1 (got ${show(tpb)}).`)
  }
  const diag = raw.diagnostics
  if (diag !== undefined) {
    if (
      !isObj(diag) ||
      (diag.crashCells !== undefined && !(Array.isArray(diag.crashCells) && diag.crashCells.every((c) => Number.isInteger(c) && c >= 0)))
    ) {
      errors.push('spec.diagnostics.crashCells must be a list of cell numbers (whole numbers >= 0).')
    }
  }

  // Sweeps
  const shorthand = raw.mechanisms !== undefined || raw.params !== undefined || raw.grid !== undefined
  let sweepsRaw: unknown[]
  let base: string
  if (raw.sweeps !== undefined) {
    if (shorthand) errors.push('Give either spec.sweeps or spec.mechanisms/params/grid, not both.')
    if (!Array.isArray(raw.sweeps) || raw.sweeps.length === 0) {
      errors.push('spec.sweeps must be a non-empty list of sweeps, each with mechanisms and optional params and grid.')
      sweepsRaw = []
    } else sweepsRaw = raw.sweeps
    base = 'spec.sweeps'
  } else {
    sweepsRaw = [{ label: 'main', mechanisms: raw.mechanisms, params: raw.params, grid: raw.grid }]
    base = 'spec'
  }
  const sweeps: SweepSpec[] = []
  const labels = new Set<string>()
  sweepsRaw.forEach((s, i) => {
    const at = base === 'spec' ? 'spec' : `spec.sweeps[${i}]`
    if (!isObj(s)) return void errors.push(`${at} must be an object with mechanisms, params and grid.`)
    const label = s.label === undefined ? `sweep ${i + 1}` : s.label
    if (typeof label !== 'string' || label.trim() === '') return void errors.push(`${at}.label must be a non-empty text.`)
    if (labels.has(label)) errors.push(`Two sweeps are labelled "${label}"; give each a distinct label.`)
    labels.add(label)
    const sweep = checkSweep(s, at, adapter, errors)
    if (sweep) sweeps.push({ ...sweep, label })
  })
  // The spec's schema (the source of spec.schema.json) refuses what the checks above let through (unknown fields of a
  // workload or a sweep, over-long text); its one sentence comes after theirs, which know the engine and say more.
  if (errors.length === 0) {
    const parsed = experimentSpecSchema.safeParse(raw, { reportInput: true })
    if (!parsed.success) errors.push(`${issueSentence(parsed.error, raw, 'The experiment spec', 'spec.')}.`)
  }
  if (errors.length > 0) return { spec: null, errors }
  const spec: ExperimentSpec = {
    version: 1,
    name: (raw.name as string).trim(),
    engine: adapter.engine,
    workloads,
    sweeps,
    trials: trials as number,
    seed: seed as string | number
  }
  if (tpb !== undefined) spec.trialsPerBatch = tpb as number
  if (isObj(diag) && Array.isArray(diag.crashCells)) spec.diagnostics = { crashCells: diag.crashCells as number[] }
  return { spec, errors }
}

function checkSweep(s: Record<string, unknown>, at: string, adapter: EngineAdapter, errors: string[]): SweepSpec | null {
  const before = errors.length
  const mechs = s.mechanisms
  const list = adapter.mechanisms.join(', ')
  if (!Array.isArray(mechs) || mechs.length === 0) {
    errors.push(`${at}.mechanisms must list at least one ${adapter.engine} mechanism (${list}).`)
  } else {
    const seen = new Set<unknown>()
    for (const m of mechs) {
      if (typeof m !== 'string' || !adapter.mechanisms.includes(m)) {
        errors.push(`${at}.mechanisms contains ${show(m)}, which is not a ${adapter.engine} mechanism; choose from ${list}.`)
      } else if (seen.has(m)) errors.push(`${at}.mechanisms lists "${m}" twice; list each mechanism once.`)
      seen.add(m)
    }
  }
  const names = adapter.params.map((p) => p.name)
  const checkName = (where: string, k: string): boolean => {
    if (names.includes(k)) return true
    errors.push(`${where} has an unknown parameter "${k}" for the ${adapter.engine} engine; known parameters are ${names.join(', ')}.`)
    return false
  }
  const params: Record<string, ParamValue> = {}
  if (s.params !== undefined) {
    if (!isObj(s.params)) errors.push(`${at}.params must be an object of parameter values, e.g. {"${names[0]}": 1}.`)
    else {
      for (const [k, v] of Object.entries(s.params)) {
        if (!checkName(`${at}.params`, k)) continue
        const def = adapter.params.find((p) => p.name === k)!
        if (!isParamValue(v) || !def.valid(v)) errors.push(`${at}.params.${k} must be ${def.describe} (got ${show(v)}).`)
        else params[k] = v
      }
    }
  }
  const grid: Record<string, ParamValue[]> = {}
  if (s.grid !== undefined) {
    if (!isObj(s.grid)) errors.push(`${at}.grid must be an object mapping parameter names to lists of values, e.g. {"${names[0]}": [1, 10]}.`)
    else {
      for (const [k, vs] of Object.entries(s.grid)) {
        if (!checkName(`${at}.grid`, k)) continue
        if (k in params) errors.push(`${at}.params.${k} and ${at}.grid.${k} both set ${k}; keep one of them.`)
        if (!Array.isArray(vs) || vs.length === 0) {
          errors.push(`${at}.grid.${k} must be a non-empty list of values.`)
          continue
        }
        const def = adapter.params.find((p) => p.name === k)!
        const seen = new Set<ParamValue>()
        vs.forEach((v, j) => {
          if (!isParamValue(v) || !def.valid(v)) errors.push(`${at}.grid.${k}[${j}] must be ${def.describe} (got ${show(v)}).`)
          else if (seen.has(v)) errors.push(`${at}.grid.${k} lists ${show(v)} twice; list each value once.`)
          seen.add(v as ParamValue)
        })
        grid[k] = vs as ParamValue[]
      }
    }
  }
  for (const def of adapter.params) {
    if (def.default === undefined && !(def.name in params) && !(def.name in grid)) {
      errors.push(`The ${adapter.engine} parameter ${def.name} has no default; set it in ${at}.params or ${at}.grid.`)
    }
  }
  if (errors.length > before) return null
  const out: SweepSpec = { mechanisms: mechs as string[] }
  if (Object.keys(params).length) out.params = params
  if (Object.keys(grid).length) out.grid = grid
  return out
}

const yieldToEventLoop = () => new Promise<void>((r) => setImmediate(r))

function gridPoints(grid: Record<string, ParamValue[]> | undefined): Array<Record<string, ParamValue>> {
  let points: Array<Record<string, ParamValue>> = [{}]
  for (const [k, vs] of Object.entries(grid ?? {})) {
    const next: Array<Record<string, ParamValue>> = []
    for (const p of points) for (const v of vs) next.push({ ...p, [k]: v })
    points = next
  }
  return points
}

export function formatParam(v: ParamValue): string {
  return typeof v === 'number' ? String(v) : v
}

function describeCell(adapter: EngineAdapter, label: string, mechanism: string, params: Record<string, ParamValue>): string {
  const ps = adapter
    .relevantParams(mechanism)
    .map((n) => `${n} ${formatParam(params[n])}`)
    .join(', ')
  return `${label}, ${mechanism}, ${ps}`
}

/** Count the cells of a checked spec without loading anything. */
export function countCells(spec: ExperimentSpec): number {
  let n = 0
  for (const s of spec.sweeps ?? []) n += spec.workloads.length * s.mechanisms.length * gridPoints(s.grid).length
  return n
}

/** Validate a spec completely: shape, workloads (read from disk / the store), every cell's parameters. */
export async function planExperiment(raw: unknown, ctx: WorkloadContext): Promise<PlanOutcome> {
  const { spec, errors } = checkSpec(raw)
  if (!spec) return { ok: false, errors: cap(errors) }
  const adapter = engineAdapter(spec.engine)
  const total = countCells(spec)
  if (total > MAX_CELLS) return { ok: false, errors: [`The spec has ${total} cells; at most ${MAX_CELLS} are allowed, so use fewer grid values.`] }

  const workloads: LoadedWorkload[] = []
  for (const ref of spec.workloads) {
    await yieldToEventLoop() // reading and parsing a file takes a few ms: let other work run in between
    try {
      workloads.push(await adapter.loadWorkload(ref, ctx))
    } catch (e) {
      if (!isUserError(e)) throw e
      errors.push(e.message)
    }
  }
  if (errors.length) return { ok: false, errors: cap(errors) }
  const seenLabels = new Set<string>()
  for (const w of workloads) {
    if (seenLabels.has(w.info.label)) errors.push(`Two workloads are labelled "${w.info.label}"; give each a distinct "label".`)
    seenLabels.add(w.info.label)
  }

  const cells: PlannedCell[] = []
  const cellErrors: string[] = []
  const keys = new Set<string>()
  const defaults: Record<string, ParamValue> = {}
  for (const d of adapter.params) if (d.default !== undefined) defaults[d.name] = d.default
  for (const sweep of spec.sweeps ?? []) {
    for (let w = 0; w < workloads.length; w++) {
      for (const mechanism of sweep.mechanisms) {
        for (const point of gridPoints(sweep.grid)) {
          if (cells.length % 500 === 499) await yieldToEventLoop()
          const params = { ...defaults, ...sweep.params, ...point }
          const problem = adapter.checkCell(mechanism, params, workloads[w])
          if (problem) {
            cellErrors.push(`Cell ${cells.length} (${describeCell(adapter, workloads[w].info.label, mechanism, params)}): ${problem}`)
          }
          const key = cellKey(adapter, workloads[w].info.hash, mechanism, params)
          keys.add(key)
          cells.push({
            index: cells.length,
            sweep: sweep.label ?? 'main',
            workload: w,
            mechanism,
            params,
            key,
            seed: deriveSeed(String(spec.seed), key)
          })
        }
      }
    }
  }
  errors.push(...cellErrors)
  if (keys.size * spec.trials > MAX_TOTAL_TRIALS) {
    errors.push(
      `The spec asks for ${keys.size * spec.trials} trials in total; at most ${MAX_TOTAL_TRIALS} are allowed, so use fewer cells or trials.`
    )
  }
  for (const c of spec.diagnostics?.crashCells ?? []) {
    if (c >= cells.length) errors.push(`spec.diagnostics.crashCells names cell ${c}, but the spec has only ${cells.length} cells.`)
  }
  if (errors.length) return { ok: false, errors: cap(errors) }
  return { ok: true, plan: { spec, adapter, workloads, cells, distinctCells: keys.size } }
}

export function cellKey(adapter: EngineAdapter, workloadHash: string, mechanism: string, params: Record<string, ParamValue>): string {
  const ps = adapter
    .relevantParams(mechanism)
    .map((n) => `${n}=${formatParam(params[n])}`)
    .join(',')
  return `${adapter.engine}:${workloadHash}:${mechanism}:${ps}`
}

function cap(errors: string[]): string[] {
  if (errors.length <= MAX_ERRORS_SHOWN) return errors
  return [
    ...errors.slice(0, MAX_ERRORS_SHOWN - 1),
    `There are ${errors.length - MAX_ERRORS_SHOWN + 1} more problems of the same kinds; fix the ones above first.`
  ]
}
