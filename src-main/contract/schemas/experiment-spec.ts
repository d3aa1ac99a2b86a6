/**
 * The experiment spec (`spec.json`, `quiet-alarm sweep --spec FILE`, `experiments/validate|start`): its shape as one
 * schema, which gives the JSON Schema users write against (resources/schemas/spec.schema.json) and is checked by
 * services/experiments/spec.ts after its own per-engine checks (mechanism names, parameter ranges and defaults, which
 * depend on the engine and report every problem, not only the first).
 */
import { z } from 'zod'
import type { ExperimentSpec } from '../experiments'
import { LIMITS, finiteNumber, rangedNumber, text } from './common'

export const EXPERIMENT_ENGINES = ['threshold', 'aiq', 'search'] as const
export const MAX_TRIALS_PER_CELL = 100_000
export const MAX_SPEC_NAME = LIMITS.name
export const MAX_SEED_LENGTH = 200
const PATH_MAX = 4096

const label = () => text(LIMITS.name).refine((s) => s.trim() !== '', { error: 'must be a non-empty text' })
const path = () => text(PATH_MAX).refine((s) => s.trim() !== '', { error: 'must be the path of a file' })
const paramValue = () =>
  z
    .union([finiteNumber(), text(LIMITS.value)], { error: 'must be a number or a text switch such as "none"' })
    .describe('A number, or a text switch such as "none".')
const params = () => z.record(text(LIMITS.column), paramValue()).describe('Parameter name -> value (names depend on the engine).')
const grid = () => z.record(text(LIMITS.column), z.array(paramValue()).min(1)).describe('Parameter name -> the values to sweep (cartesian product).')

export const workloadRefSchema = z.discriminatedUnion('kind', [
  z
    .strictObject({ kind: z.literal('csv'), path: path(), label: label().optional() })
    .describe('threshold: a CSV with columns predicate,count,threshold (one row per predicate).'),
  z
    .strictObject({ kind: z.literal('saved-query'), queryId: rangedNumber({ integer: true, ge: 1 }), label: label().optional() })
    .describe('threshold: a saved threshold query, evaluated with the ground truth.'),
  z
    .strictObject({
      kind: z.literal('series'),
      path: path(),
      column: text(LIMITS.column).optional(),
      windows: path().optional(),
      key: text(LIMITS.value).optional(),
      label: label().optional()
    })
    .describe('search: a labelled series in the NAB layout (labels in combined_windows.json next to the file).'),
  z
    .strictObject({
      kind: z.literal('records'),
      path: path(),
      columns: z
        .array(
          z.strictObject({
            name: text(LIMITS.column, { nonEmpty: true }),
            kind: z.enum(['numeric', 'categorical']).optional(),
            binWidth: rangedNumber({ gt: 0 }).optional()
          })
        )
        .min(1),
      metric: z.enum(['l1', 'linf', 'l2', 'hamming']).optional(),
      label: label().optional()
    })
    .describe('aiq: a CSV of records; every distinct binned tuple of `columns` is queried.')
])

export const sweepSchema = z.strictObject({
  label: label().optional().describe('Names the sweep in results and charts.'),
  mechanisms: z.array(text(LIMITS.column, { nonEmpty: true })).min(1),
  params: params().optional(),
  grid: grid().optional()
})

export const experimentSpecSchema = z
  .strictObject({
    $schema: z.string().optional(),
    version: z.literal(1).optional(),
    name: label(),
    description: z.string().optional(),
    engine: z.enum(EXPERIMENT_ENGINES),
    workloads: z.array(workloadRefSchema).min(1),
    mechanisms: z
      .array(text(LIMITS.column, { nonEmpty: true }))
      .min(1)
      .optional()
      .describe('Shorthand for one sweep (or use `sweeps`).'),
    params: params().optional(),
    grid: grid().optional(),
    sweeps: z.array(sweepSchema).min(1).optional(),
    trials: rangedNumber({ integer: true, ge: 1, le: MAX_TRIALS_PER_CELL }).describe('Monte Carlo trials per cell.'),
    seed: z
      .union([text(MAX_SEED_LENGTH, { nonEmpty: true }), z.int()], { error: 'must be a non-empty text or a whole number' })
      .describe("Base seed; each cell's seed is derived from it and the cell's key."),
    trialsPerBatch: rangedNumber({ integer: true, ge: 1, le: MAX_TRIALS_PER_CELL })
      .optional()
      .describe('Trials per worker message (results do not depend on it).'),
    diagnostics: z
      .strictObject({ crashCells: z.array(rangedNumber({ integer: true, ge: 0 })).optional() })
      .optional()
      .describe('Test hook, honoured only by workers started with QA_DIAGNOSTICS=1.')
  })
  .refine((s) => s.sweeps === undefined || (s.mechanisms === undefined && s.params === undefined && s.grid === undefined), {
    error: 'must give either sweeps or mechanisms/params/grid, not both'
  })
  .refine((s) => s.sweeps !== undefined || s.mechanisms !== undefined, { error: 'must give sweeps, or mechanisms for a single sweep' })
  .describe('An experiment (a simulation: seeded, ground truth, never charged): one engine, its workloads, sweeps, trials per cell and a base seed.')

/** Compile-time: a spec that fits the schema is an `ExperimentSpec` (the contract's type, also the shape stored), and back. */
type SpecFromSchema = Omit<z.infer<typeof experimentSpecSchema>, '$schema' | 'description'>
type Agree<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never
export const specSchemaMatchesTheContract: Agree<SpecFromSchema, ExperimentSpec> = true
