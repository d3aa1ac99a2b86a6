/**
 * The release panel's form without React (releaseFormState.ts): the parameters each kind of question is priced and
 * released with, the sentence shown while they are not valid, and the "What fits" buttons.
 */
import { describe, expect, it } from 'vitest'
import {
  type ReleaseForm,
  type ReleaseFormAction,
  initialReleaseForm,
  releaseFormReducer,
  resolveReleaseForm
} from '../../../src-renderer/src/screens/queries/releaseFormState'
import { aiqErrorBound } from '../../../src-renderer/src/screens/queries/aiqAccuracyDefinition'

const run = (...actions: ReleaseFormAction[]): ReleaseForm => actions.reduce(releaseFormReducer, initialReleaseForm)
const text = (field: Extract<ReleaseFormAction, { type: 'text' }>['field'], value: string): ReleaseFormAction => ({ type: 'text', field, value })

describe('threshold questions', () => {
  it('start from TSLM, beta 0.05, alpha 1 and no ε limit: that is what is sent', () => {
    expect(resolveReleaseForm('threshold', initialReleaseForm)).toEqual({
      params: { kind: 'threshold', mechanism: 'tslm', beta: 0.05, alpha: 1 },
      why: null,
      derivedEpsilon: null
    })
  })

  it('send the mechanism chosen and the ε limit when one is typed', () => {
    const f = run({ type: 'mechanism', mechanism: 'dppwlm' }, text('beta', ' 0.1 '), text('alpha', '2.5'), text('epsMax', '3'))
    expect(resolveReleaseForm('threshold', f).params).toEqual({ kind: 'threshold', mechanism: 'dppwlm', beta: 0.1, alpha: 2.5, epsMax: 3 })
  })

  it('say why nothing can be priced while beta, alpha or the ε limit is out of range', () => {
    const why = (...a: ReleaseFormAction[]) => resolveReleaseForm('threshold', run(...a))
    for (const beta of ['0', '0.5', '', 'abc', '-1']) {
      expect(why(text('beta', beta))).toEqual({
        params: null,
        why: 'Beta must be at least 1e-12 and below 0.5 (e.g. 0.05 for 5%).',
        derivedEpsilon: null
      })
    }
    for (const alpha of ['0', '', '-2'])
      expect(why(text('alpha', alpha)).why).toBe('Alpha must be from 0.000001 to 1,000,000,000 (it sets the tolerance around the threshold).')
    for (const epsMax of ['0', 'x', '-1']) expect(why(text('epsMax', epsMax)).why).toBe('The ε limit must be > 0 and at most 1,000,000.')
    // Blank again: no limit.
    expect(why(text('epsMax', '2'), text('epsMax', '  ')).params).toEqual({ kind: 'threshold', mechanism: 'tslm', beta: 0.05, alpha: 1 })
  })

  it('"What fits" puts the fitting alpha or beta in its field', () => {
    const f = run({ type: 'useFit', param: 'alpha', value: 24 }, { type: 'useFit', param: 'beta', value: 0.46 })
    expect(resolveReleaseForm('threshold', f).params).toEqual({ kind: 'threshold', mechanism: 'tslm', beta: 0.46, alpha: 24 })
  })
})

describe('anomaly identification', () => {
  it('starts from sensitive privacy at ε 1 per record: that is what is sent', () => {
    expect(resolveReleaseForm('anomaly-identification', initialReleaseForm)).toEqual({
      params: { kind: 'anomaly-identification', mechanism: 'sp', epsilon: 1 },
      why: null,
      derivedEpsilon: null
    })
    const dp = run({ type: 'aiqMechanism', mechanism: 'dp' }, text('epsilon', '0.25'))
    expect(resolveReleaseForm('anomaly-identification', dp).params).toEqual({ kind: 'anomaly-identification', mechanism: 'dp', epsilon: 0.25 })
  })

  it('refuses an ε per record out of range in one sentence', () => {
    for (const e of ['0', '', '1000001', 'one']) {
      expect(resolveReleaseForm('anomaly-identification', run(text('epsilon', e))).why).toBe('ε per record must be from 0.000000001 to 1,000,000.')
    }
  })

  it('accuracy first: an error rate gives the smallest ε per record whose bound holds at the margin, and that ε is sent', () => {
    const f = run(text('aiqError', '0.05'), text('aiqMargin', '3'))
    const r = resolveReleaseForm('anomaly-identification', f)
    expect(r.why).toBeNull()
    const eps = r.derivedEpsilon!
    expect(r.params).toEqual({ kind: 'anomaly-identification', mechanism: 'sp', epsilon: eps })
    expect(aiqErrorBound(eps, 3)).toBeLessThanOrEqual(0.05)
    // Rounded up to 4 significant digits: one step less would break the bound.
    const step = 10 ** (Math.floor(Math.log10(eps)) - 3)
    expect(aiqErrorBound(eps - 2 * step, 3)).toBeGreaterThan(0.05)
    // The ε field is not what is sent while an error rate is given.
    expect(resolveReleaseForm('anomaly-identification', run(text('epsilon', '7'), text('aiqError', '0.05'), text('aiqMargin', '3'))).params).toEqual(
      r.params
    )
  })

  it('says why an error rate or a margin cannot be used', () => {
    const why = (...a: ReleaseFormAction[]) => resolveReleaseForm('anomaly-identification', run(...a)).why
    for (const m of ['0', '1.5', '', 'x'])
      expect(why(text('aiqError', '0.05'), text('aiqMargin', m))).toBe('The margin is a whole number of record changes, 1 or more.')
    for (const e of ['0.5', '0', '0.7', 'x']) {
      expect(why(text('aiqError', e))).toBe('The error rate must be between 0 and 0.5 (an answer by coin toss is wrong half the time).')
    }
  })

  it('"What fits" ε per record is used as given, even after an error rate was typed', () => {
    const f = run(text('aiqError', '0.01'), { type: 'useFit', param: 'epsilon', value: 0.4 })
    expect(f.aiqError).toBe('')
    expect(resolveReleaseForm('anomaly-identification', f).params).toEqual({ kind: 'anomaly-identification', mechanism: 'sp', epsilon: 0.4 })
  })
})

describe('anomaly search', () => {
  it('sends only its kind, whatever else the form holds: its parameters are part of the saved query', () => {
    expect(resolveReleaseForm('anomaly-search', run(text('beta', 'x'), text('epsilon', '0'))).params).toEqual({ kind: 'anomaly-search' })
  })
})
