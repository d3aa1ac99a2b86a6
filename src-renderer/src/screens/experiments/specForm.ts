/** The spec builder's form state and its conversion to and from an ExperimentSpec. */
import type { ExperimentSpec, ParamValue, SweepSpec } from '../../../../src-main/contract'
import { parseList } from '../../components/Fields'

export interface SweepForm {
  label: string
  mechanisms: string
  /** "key = value" per fixed parameter, separated by ";" */
  params: string
  grid: Array<{ key: string; values: string }>
}

export interface SpecForm {
  name: string
  trials: string
  seed: string
  sweeps: SweepForm[]
  /** Workloads and everything else are kept as they were (edited as JSON). */
  base: ExperimentSpec
}

const show = (v: ParamValue) => String(v)

export function formFromSpec(spec: ExperimentSpec): SpecForm {
  const sweeps: SweepSpec[] = spec.sweeps ?? [{ label: spec.name, mechanisms: spec.mechanisms ?? [], params: spec.params, grid: spec.grid }]
  return {
    name: spec.name,
    trials: String(spec.trials),
    seed: String(spec.seed),
    base: spec,
    sweeps: sweeps.map((s) => ({
      label: s.label ?? '',
      mechanisms: s.mechanisms.join(', '),
      params: Object.entries(s.params ?? {})
        .map(([k, v]) => `${k} = ${show(v)}`)
        .join('; '),
      grid: Object.entries(s.grid ?? {}).map(([key, vs]) => ({ key, values: vs.map(show).join(', ') }))
    }))
  }
}

function parseParams(text: string): Record<string, ParamValue> {
  const out: Record<string, ParamValue> = {}
  for (const part of text.split(/[;\n]+/)) {
    const m = /^\s*([^=\s]+)\s*=\s*(.+?)\s*$/.exec(part)
    if (!m) continue
    const n = Number(m[2])
    out[m[1]] = Number.isFinite(n) && m[2] !== '' ? n : m[2]
  }
  return out
}

export function specFromForm(f: SpecForm): ExperimentSpec {
  const { mechanisms: _m, params: _p, grid: _g, sweeps: _s, ...rest } = f.base
  const trials = Number(f.trials)
  const seedNum = Number(f.seed)
  return {
    ...rest,
    name: f.name,
    trials: Number.isFinite(trials) && f.trials.trim() !== '' ? trials : (f.trials as unknown as number),
    seed: /^\d+$/.test(f.seed.trim()) && Number.isSafeInteger(seedNum) ? seedNum : f.seed,
    sweeps: f.sweeps.map((s) => {
      const grid = Object.fromEntries(s.grid.filter((g) => g.key.trim() !== '').map((g) => [g.key.trim(), parseList(g.values)]))
      const params = parseParams(s.params)
      const out: SweepSpec = {
        mechanisms: s.mechanisms
          .split(/[,\s]+/)
          .map((x) => x.trim())
          .filter((x) => x !== '')
      }
      if (s.label.trim() !== '') out.label = s.label.trim()
      if (Object.keys(params).length > 0) out.params = params
      if (Object.keys(grid).length > 0) out.grid = grid
      return out
    })
  }
}
