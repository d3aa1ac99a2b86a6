/**
 * The Queries screen's address (queriesAddress.ts): the dataset, the question and its last release survive a reload
 * as `#/queries/<dataset>?query=<id>&release=<id>`; anything else in an address chooses nothing.
 */
import { describe, expect, it } from 'vitest'
import { queriesHref, queriesPlace } from '../../../src-renderer/src/screens/queries/queriesAddress'
import { routeFromHash } from '../../../src-renderer/src/sections'

describe('the Queries screen address', () => {
  it('names the dataset, the question and its last release, and reads them back', () => {
    const place = { datasetId: 3, queryId: 12, releaseId: 45 }
    const hash = queriesHref(place)
    expect(hash).toBe('#/queries/3?query=12&release=45')
    expect(queriesPlace(hash)).toEqual(place)
    // The app's router still reads the dataset as the section's parameter.
    expect(routeFromHash(hash)).toEqual({ section: 'queries', param: '3' })
  })

  it('names a release only under its question, and a question only under its dataset', () => {
    expect(queriesHref({ datasetId: 3, queryId: null, releaseId: 45 })).toBe('#/queries/3')
    expect(queriesHref({ datasetId: 3, queryId: 12, releaseId: null })).toBe('#/queries/3?query=12')
    expect(queriesHref({ datasetId: null, queryId: 12, releaseId: 45 })).toBe('#/queries')
  })

  it('reads nothing chosen from another screen or from ids that are not whole positive numbers', () => {
    const nothing = { datasetId: null, queryId: null, releaseId: null }
    expect(queriesPlace('')).toEqual(nothing)
    expect(queriesPlace('#/queries')).toEqual(nothing)
    expect(queriesPlace('#/releases/4?query=1&release=2')).toEqual(nothing)
    expect(queriesPlace('#/queries/x?query=-1&release=1e3')).toEqual(nothing)
    expect(queriesPlace('#/queries/0?query=01&release=2.5')).toEqual(nothing)
    expect(queriesPlace('#/queries/7?query=9')).toEqual({ datasetId: 7, queryId: 9, releaseId: null })
  })
})
