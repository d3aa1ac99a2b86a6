import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { WorkloadError, parseWorkload } from '../../../src-worker/engine/mide/workload'

describe('workload parser', () => {
  it('reads predicate,count,threshold in any column order, quoted names, CRLF', () => {
    const w = parseWorkload('threshold,predicate,count,extra\r\n5.5,"a, b",7,x\r\n10,c,3,y\r\n')
    expect(w.predicates).toEqual(['a, b', 'c'])
    expect(Array.from(w.counts)).toEqual([7, 3])
    expect(Array.from(w.thresholds)).toEqual([5.5, 10])
  })

  it('reads the bundled taxi workloads', () => {
    const w = parseWorkload(readFileSync('resources/workloads/taxi-jan2015-M.csv', 'utf8'))
    expect(w.predicates.length).toBe(1488)
  })

  const bad: Array<[string, string, RegExp]> = [
    ['empty', '  \n', /empty/],
    ['header only', 'predicate,count,threshold\n', /no predicates/],
    ['missing column', 'predicate,count\na,1\n', /no column "threshold"/],
    ['non-numeric count', 'predicate,count,threshold\na,x1,2\n', /line 2: count is not a number/],
    ['empty threshold', 'predicate,count,threshold\na,1,2\nb,1,\n', /line 3: threshold is not a number/],
    ['repeated predicate', 'predicate,count,threshold\na,1,2\nb,1,2\na,3,4\n', /line 4: predicate "a" repeats line 2/],
    ['negative count', 'predicate,count,threshold\na,-1,2\n', /must not be negative/],
    ['ragged row', 'predicate,count,threshold\na,1\n', /expected 3 fields/],
    ['open quote', 'predicate,count,threshold\n"a,1,2\n', /not closed/]
  ]
  for (const [name, text, msg] of bad) {
    it(`rejects: ${name}`, () => {
      expect(() => parseWorkload(text)).toThrow(WorkloadError)
      expect(() => parseWorkload(text)).toThrow(msg)
    })
  }
})
