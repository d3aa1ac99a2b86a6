/**
 * Building blocks of the contract's schemas (zod 4). Every message is a predicate ("must be ..."): `issueSentence`
 * puts the field in front of it. Ranges come from `release-params.ts` or from the limits named here, never retyped.
 */
import { z } from 'zod'
import type { NumberRange } from '../release-params'
import { num, rangeWords } from './sentence'

/** A message that says "is required" when the field is absent (with what it must be, when `hint`) and `must` otherwise. */
function predicateError(must: string, hint = false) {
  return (iss: { input?: unknown }) => (iss.input === undefined ? (hint ? `is required (${must.replace(/^must be /, '')})` : 'is required') : must)
}

/** A finite number within `range` (integer: a whole number), with one message for every way it can fail. */
export function rangedNumber(range: NumberRange) {
  const must = `must be ${rangeWords(range)}`
  const error = predicateError(must, true)
  let s = range.integer ? z.int({ error }) : z.number({ error })
  if (range.gt !== undefined) s = s.gt(range.gt, { error })
  if (range.ge !== undefined) s = s.gte(range.ge, { error })
  if (range.lt !== undefined) s = s.lt(range.lt, { error })
  if (range.le !== undefined) s = s.lte(range.le, { error })
  return s
}

/** A finite number (JSON has no others; NaN and Infinity cannot arrive through JSON, but can through IPC). */
export const finiteNumber = () => z.number({ error: predicateError('must be a number') })

/** The id of a stored thing (dataset, query, release): a whole number >= 1. */
export const storedId = () => rangedNumber({ integer: true, ge: 1 })

/** Text of at most `max` characters; `nonEmpty`: at least one. */
export function text(max: number, options: { nonEmpty?: boolean } = {}) {
  const s = z.string({ error: predicateError('must be text') }).max(max, { error: `must have at most ${num(max)} characters` })
  return options.nonEmpty ? s.min(1, { error: 'must not be empty' }) : s
}

/** Limits on free text in requests (names, reasons, passphrases...): long enough for people, short enough for a log line. */
export const LIMITS = {
  /** Dataset, query, experiment and officer names. */
  name: 200,
  /** Column names (as in a file's header). */
  column: 200,
  /** Reasons recorded with an officer act. */
  reason: 2000,
  passphrase: 1024,
  /** Opaque ids (jobs, experiments, files). */
  id: 100,
  /** Dates and timestamps as text. */
  date: 64,
  /** A value in a filter, a group key, a record. */
  value: 1000,
  /** Hex hashes. */
  hash: 128,
  /** PostgreSQL connection URLs and names. */
  url: 2000
} as const

/** An empty request (`{}`; absent is read as `{}` by the doors). */
export const emptyRequest = () => z.strictObject({})
