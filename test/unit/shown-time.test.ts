import { describe, expect, it } from 'vitest'
import { coarseTimes, shownTime } from '../../src-main/services/platform/shown-time'

describe('times as the service shows them', () => {
  it('floors every ISO time in JSON data to the cadence, and leaves everything else as it is', () => {
    const bytes = new Uint8Array([1, 2, 3])
    const value = {
      at: '2026-11-26T02:00:00.399Z',
      nested: [{ finishedAt: '2026-11-26T02:00:01.250Z' }, 'not a time', 7],
      label: 'run at 2026-11-26T02:00:00.399Z',
      bytes
    }
    const shown = coarseTimes(value, 250)
    expect(shown).toEqual({
      at: '2026-11-26T02:00:00.250Z',
      nested: [{ finishedAt: '2026-11-26T02:00:01.250Z' }, 'not a time', 7],
      label: 'run at 2026-11-26T02:00:00.399Z',
      bytes
    })
    expect(shown.bytes).toBe(bytes)
    expect(value.at).toBe('2026-11-26T02:00:00.399Z')
  })

  it('shows stored times as they are in the workbench', () => {
    const value = { at: '2026-11-26T02:00:00.399Z' }
    expect(coarseTimes(value, null)).toBe(value)
    expect(shownTime(Date.parse('2026-11-26T02:00:00.399Z'), null)).toBe('2026-11-26T02:00:00.399Z')
    expect(shownTime(Date.parse('2026-11-26T02:00:00.399Z'), 1000)).toBe('2026-11-26T02:00:00.000Z')
  })
})
