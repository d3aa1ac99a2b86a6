/**
 * The request schemas (contract/schemas/requests.ts): one per contract method, every one strict, and the release
 * parameters' ranges exactly those of RELEASE_PARAMS (a bound moved in release-params.ts moves the schema with it).
 */
import { describe, expect, it } from 'vitest'
import { methodNames } from '../../src-main/contract'
import { RELEASE_PARAMS, type NumberRange } from '../../src-main/contract/release-params'
import { requestSchemas } from '../../src-main/contract/schemas/requests'
import { checkRequest } from '../../src-main/services/app/request-check'

describe('request schemas', () => {
  it('cover every contract method and refuse an unknown key in each, naming it', () => {
    expect(Object.keys(requestSchemas).sort()).toEqual([...methodNames].sort())
    for (const method of methodNames) {
      const out = checkRequest(method, { zzUnknown: 1 })
      expect(out.ok, method).toBe(false)
      // Either the unknown key, or a required field is named first; both are one sentence.
      if (!out.ok) expect(out.error.message, method).toMatch(/^(The request has an unknown field "zzUnknown"|[A-Za-z.[\]0-9]+ is required)/)
    }
  })

  it('are strict all the way down: every object in every request schema refuses keys it does not know', () => {
    // A non-strict object anywhere (a nested definition, a parameter block) would let a misspelt or smuggled field
    // through to a handler unseen; this walks every schema's structure (zod 4's definitions) and names the first one.
    type Def = { type: string; [k: string]: unknown }
    const defOf = (s: unknown): Def => (s as { _zod: { def: Def } })._zod.def
    const loose: string[] = []
    const seen = new Set<unknown>()
    const walk = (schema: unknown, where: string): void => {
      if (seen.has(schema)) return
      seen.add(schema)
      const def = defOf(schema)
      const inner = (k: string, w = where) => def[k] !== undefined && walk(def[k], w)
      switch (def.type) {
        case 'object': {
          if (defOf(def.catchall ?? { _zod: { def: { type: 'none' } } }).type !== 'never') loose.push(where || '(the request)')
          for (const [k, v] of Object.entries(def.shape as Record<string, unknown>)) walk(v, where ? `${where}.${k}` : k)
          return
        }
        case 'optional':
        case 'nullable':
        case 'default':
        case 'prefault':
        case 'readonly':
        case 'nonoptional':
        case 'catch':
          return void inner('innerType')
        case 'array':
          return void inner('element', `${where}[]`)
        case 'record':
          return void inner('valueType', `${where}{}`)
        case 'union':
          for (const o of def.options as unknown[]) walk(o, where)
          return
        case 'intersection':
          inner('left')
          return void inner('right')
        case 'pipe':
          inner('in')
          return void inner('out')
        case 'lazy':
          return walk((def.getter as () => unknown)(), where)
        case 'tuple':
          for (const o of def.items as unknown[]) walk(o, where)
          return
        default:
          return
      }
    }
    let objects = 0
    for (const method of methodNames) {
      const before = seen.size
      walk(requestSchemas[method], `${method}: `)
      objects += seen.size - before
    }
    expect(objects).toBeGreaterThan(methodNames.length)
    expect(loose).toEqual([])
  })

  /** Numbers just inside and just outside each bound of `range`. */
  function probes(range: NumberRange): Array<[number, boolean]> {
    const out: Array<[number, boolean]> = []
    // A step the double at the bound can tell from it (1e-9 vanishes beside 1e9), and below a bound near 0 a fraction of it.
    const step = (b: number) => (range.integer ? 1 : b === 0 ? 1e-9 : Math.max(Math.min(1e-9, Math.abs(b) / 2), Math.abs(b) * 1e-12))
    if (range.gt !== undefined) out.push([range.gt, false], [range.gt + step(range.gt), true])
    if (range.ge !== undefined) out.push([range.ge - step(range.ge), false], [range.ge, true])
    if (range.lt !== undefined) out.push([range.lt, false], [range.lt - step(range.lt), true])
    if (range.le !== undefined) out.push([range.le + step(range.le), false], [range.le, true])
    return out
  }

  it('take the release parameters ranges from RELEASE_PARAMS', () => {
    const T = RELEASE_PARAMS.threshold
    const base = { kind: 'threshold', mechanism: 'ppwlm', beta: T.beta.start, alpha: T.alpha.start }
    const threshold = {
      beta: T.beta.range,
      alpha: T.alpha.range,
      epsMax: T.epsMax.range,
      eps1: T.eps1.range,
      steps: T.steps.range,
      fineSteps: T.fineSteps.range
    }
    let probed = 0
    for (const [param, range] of Object.entries(threshold)) {
      for (const [value, ok] of probes(range)) {
        const out = checkRequest('releases/preview', { queryId: 1, params: { ...base, [param]: value } })
        expect(out.ok, `${param} = ${value}`).toBe(ok)
        if (!out.ok) expect(out.error.message).toMatch(new RegExp(`^params\\.${param} must be `))
        probed++
      }
    }
    const A = RELEASE_PARAMS.anomalyIdentification
    for (const [value, ok] of probes(A.epsilon.range)) {
      expect(checkRequest('releases/run', { queryId: 1, params: { kind: 'anomaly-identification', mechanism: 'sp', epsilon: value } }).ok).toBe(ok)
      probed++
    }
    for (const mechanism of [...T.mechanism.choices, 'nlm']) {
      const ok = (T.mechanism.choices as readonly string[]).includes(mechanism)
      expect(checkRequest('releases/preview', { queryId: 1, params: { ...base, mechanism } }).ok, mechanism).toBe(ok)
    }
    expect(probed).toBeGreaterThan(12)
  })
})
