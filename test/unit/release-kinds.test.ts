/**
 * The release-kind registry (contract/release-kinds.ts): each kind's spec agrees with the contract's parameter lists,
 * and the texts derived from it say the released decisions and nothing else.
 */
import { describe, expect, it } from 'vitest'
import {
  QUERY_KIND_SPECS,
  RELEASE_KIND_LIST,
  REQUESTED_KIND_LIST,
  RELEASE_KIND_SPECS,
  type AnswerOf,
  mechanismSpec,
  releaseKindSpec,
  releaseKindsOf,
  specOfAnswer
} from '../../src-main/contract/release-kinds'
import { AIQ_RELEASE_MECHANISMS, THRESHOLD_RELEASE_MECHANISMS } from '../../src-main/contract/release-params'
import type { ReleaseAnswer } from '../../src-main/contract/ledger'

const threshold: AnswerOf<'threshold'> = {
  kind: 'threshold',
  predicates: 3,
  groupBy: ['room'],
  flagged: [['B-104'], [null]],
  tolerance: 2
}
const aiq: AnswerOf<'anomaly-identification'> = {
  kind: 'anomaly-identification',
  columns: ['x', 'y'],
  records: [
    { record: [1, 2], anomaly: true },
    { record: [3, 4], anomaly: false }
  ]
}
const inconclusive: AnswerOf<'anomaly-search'> = { kind: 'anomaly-search', top: [7, 8], idColumn: 'id', posterior: [0.2, 0.1], conclusive: false }

describe('release-kind registry', () => {
  it('has one spec per kind, each answering a query kind that exists, with the contract mechanisms', () => {
    expect(Object.keys(RELEASE_KIND_SPECS).sort()).toEqual([...RELEASE_KIND_LIST].sort())
    for (const k of RELEASE_KIND_LIST) expect(Object.keys(QUERY_KIND_SPECS)).toContain(RELEASE_KIND_SPECS[k].queryKind)
    expect(Object.keys(RELEASE_KIND_SPECS.threshold.mechanisms)).toEqual([...THRESHOLD_RELEASE_MECHANISMS])
    expect(Object.keys(RELEASE_KIND_SPECS['anomaly-identification'].mechanisms)).toEqual([...AIQ_RELEASE_MECHANISMS])
    for (const k of REQUESTED_KIND_LIST) expect(releaseKindsOf(RELEASE_KIND_SPECS[k].queryKind)).toContain(k)
    // An alarm's releases are made by alarm run-due: no request (CLI --kind, releases/run) may ask for one.
    expect(releaseKindsOf('threshold')).not.toContain('alarm-period')
    expect(releaseKindsOf('threshold')[0]).toBe('threshold')
  })

  it('reads a stored kind or mechanism it does not know as null, never as another', () => {
    expect(releaseKindSpec('alarm-periodx')).toBeNull()
    expect(releaseKindSpec('toString')).toBeNull()
    expect(mechanismSpec('constructor')).toBeNull()
    expect(mechanismSpec('dppwlm')?.name).toBe('DPPWLM (steps chosen from the data)')
  })

  it('says each answer in text by its own kind: decisions only', () => {
    const lines = (a: ReleaseAnswer) => specOfAnswer(a).answerLines(a)
    expect(lines(threshold)).toEqual(['Flagged 2 of 3 (room; each over its threshold or at most 2 under it):', '  B-104', '  (empty)'])
    expect(lines(aiq)[0]).toBe('Answers (x, y):')
    expect(lines(aiq)[1]).toMatch(/^ {2}1, 2 +ANOMALY$/)
    // An inconclusive search names no one.
    expect(lines(inconclusive).join('\n')).not.toMatch(/\b7\b/)
  })

  it('counts each answer for reports by its own kind', () => {
    const d = (a: ReleaseAnswer) => specOfAnswer(a).reportDecisions(a, 1)
    expect(d(threshold)).toEqual({ asked: 3, flagged: 2, flaggedNames: ['room=B-104'] })
    expect(d(aiq)).toEqual({ asked: 2, flagged: 1, flaggedNames: ['x=1, y=2'] })
    expect(d(inconclusive)).toEqual({ asked: null, flagged: 0, flaggedNames: [] })
    expect(RELEASE_KIND_SPECS['anomaly-search'].decisionsText({ asked: '', flagged: '0', named: '' })).toBe('inconclusive: nobody identified')
    expect(RELEASE_KIND_SPECS.threshold.decisionsText({ asked: '3', flagged: '2', named: '' })).toBe('2 of 3 predicates flagged')
  })
})
