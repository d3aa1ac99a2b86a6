/**
 * The release panel's form as one value, its transitions (a reducer) and what it stands for (a pure resolver: the
 * parameters a release of each kind is priced and run with, or the sentence saying why there are none yet). No React:
 * unit-tested under Node (test/unit/renderer/release-form.test.ts).
 */
import type { QueryKind, ReleaseParams } from '../../../../src-main/contract'
import { RELEASE_PARAMS, inRange } from '../../../../src-main/contract/release-params'
import { parseNumber } from '../../components/numberText'
import { aiqEpsilonForError } from './aiqAccuracyDefinition'

const T = RELEASE_PARAMS.threshold
const A = RELEASE_PARAMS.anomalyIdentification

export type ThresholdMechanism = 'tslm' | 'ppwlm' | 'dppwlm'
export type AiqMechanism = 'dp' | 'sp'

export interface ReleaseForm {
  /** Threshold questions: the accuracy (beta, alpha) and an optional ε limit above which the release is denied. */
  mechanism: ThresholdMechanism
  beta: string
  alpha: string
  epsMax: string
  /** Anomaly identification: ε per record, or (accuracy first) the error rate accepted for records at least `aiqMargin` changes away. */
  aiqMechanism: AiqMechanism
  epsilon: string
  aiqError: string
  aiqMargin: string
}

/** The fields typed as text. */
export type ReleaseFormText = 'beta' | 'alpha' | 'epsMax' | 'epsilon' | 'aiqError' | 'aiqMargin'

export type ReleaseFormAction =
  | { type: 'text'; field: ReleaseFormText; value: string }
  | { type: 'mechanism'; mechanism: ThresholdMechanism }
  | { type: 'aiqMechanism'; mechanism: AiqMechanism }
  /** A "What fits" button of a denial: the value that fits the budget, for the parameter it names. */
  | { type: 'useFit'; param: 'alpha' | 'beta' | 'epsilon'; value: number }

export const initialReleaseForm: ReleaseForm = {
  mechanism: T.mechanism.default,
  beta: String(T.beta.start),
  alpha: String(T.alpha.start),
  epsMax: '',
  aiqMechanism: A.mechanism.default,
  epsilon: String(A.epsilon.start),
  aiqError: '',
  aiqMargin: '1'
}

export function releaseFormReducer(form: ReleaseForm, a: ReleaseFormAction): ReleaseForm {
  switch (a.type) {
    case 'text':
      return { ...form, [a.field]: a.value }
    case 'mechanism':
      return { ...form, mechanism: a.mechanism }
    case 'aiqMechanism':
      return { ...form, aiqMechanism: a.mechanism }
    case 'useFit':
      // ε per record that fits is used as given: an error rate typed before would otherwise keep deriving another ε.
      return a.param === 'epsilon' ? { ...form, epsilon: String(a.value), aiqError: '' } : { ...form, [a.param]: String(a.value) }
  }
}

export interface ResolvedReleaseForm {
  /** What the preview prices and Release sends; null while the form says nothing sendable (`why` says what). */
  params: ReleaseParams | null
  why: string | null
  /** Anomaly identification from an error rate: the ε per record it needs (null otherwise). */
  derivedEpsilon: number | null
}

const none = (why: string): ResolvedReleaseForm => ({ params: null, why, derivedEpsilon: null })

export function resolveReleaseForm(kind: QueryKind, form: ReleaseForm): ResolvedReleaseForm {
  if (kind === 'threshold') {
    const beta = parseNumber(form.beta)
    const alpha = parseNumber(form.alpha)
    if (!inRange(beta, T.beta.range)) return none('Beta must be at least 1e-12 and below 0.5 (e.g. 0.05 for 5%).')
    if (!inRange(alpha, T.alpha.range)) return none('Alpha must be from 0.000001 to 1,000,000,000 (it sets the tolerance around the threshold).')
    if (form.epsMax.trim() === '') return { params: { kind, mechanism: form.mechanism, beta, alpha }, why: null, derivedEpsilon: null }
    const epsMax = parseNumber(form.epsMax)
    if (!inRange(epsMax, T.epsMax.range)) return none('The ε limit must be > 0 and at most 1,000,000.')
    return { params: { kind, mechanism: form.mechanism, beta, alpha, epsMax }, why: null, derivedEpsilon: null }
  }
  if (kind === 'anomaly-identification') {
    if (form.aiqError.trim() !== '') {
      const error = parseNumber(form.aiqError)
      const margin = parseNumber(form.aiqMargin)
      if (margin === null || !Number.isInteger(margin) || margin < 1) return none('The margin is a whole number of record changes, 1 or more.')
      const epsilon = error === null ? null : aiqEpsilonForError(error, margin)
      if (epsilon === null) return none('The error rate must be between 0 and 0.5 (an answer by coin toss is wrong half the time).')
      return { params: { kind, mechanism: form.aiqMechanism, epsilon }, why: null, derivedEpsilon: epsilon }
    }
    const epsilon = parseNumber(form.epsilon)
    if (!inRange(epsilon, A.epsilon.range)) return none('ε per record must be from 0.000000001 to 1,000,000.')
    return { params: { kind, mechanism: form.aiqMechanism, epsilon }, why: null, derivedEpsilon: null }
  }
  // A search's ε per question, budget and stopping rule are part of the saved query.
  return { params: { kind: 'anomaly-search' }, why: null, derivedEpsilon: null }
}
