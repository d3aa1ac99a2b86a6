import { describe, expect, it } from 'vitest'
import { TICK_LINE_CHARS, TICK_MAX_LINES, tickLabelLines } from '../../../src-renderer/src/screens/ledger/tickLabelDefinition'

const norm = (s: string) => s.replace(/\s+/g, '')

describe('cell labels under the spend-per-cell bars', () => {
  const labels = [
    'timestamp = 2014-07-01T00:00:00.000Z',
    'room = B-214, floor = 2',
    'whole dataset',
    'building = North Wing Annex, room = Conference Room 3',
    'supercalifragilisticexpialidocious_and_more_words_still',
    'x'
  ]

  it('no line is longer than the bar can hold, and there are at most three lines', () => {
    for (const l of labels) {
      const lines = tickLabelLines(l)
      expect(lines.length, l).toBeLessThanOrEqual(TICK_MAX_LINES)
      for (const line of lines) expect(line.length, `${l}: ${line}`).toBeLessThanOrEqual(TICK_LINE_CHARS)
    }
  })

  it('breaks between words, and an ISO time stays whole on its own line', () => {
    expect(tickLabelLines('timestamp = 2014-07-01T00:00:00.000Z')).toEqual(['timestamp =', '2014-07-01T00:00:00.000Z'])
    expect(tickLabelLines('room = B-214, floor = 2')).toEqual(['room = B-214, floor = 2'])
    expect(tickLabelLines('whole dataset')).toEqual(['whole dataset'])
  })

  it('keeps every character of a label that fits, and marks a cut label with an ellipsis', () => {
    for (const l of labels) {
      const lines = tickLabelLines(l)
      const last = lines[lines.length - 1]
      if (last.endsWith('…')) expect(norm(l).startsWith(norm(lines.join('')).slice(0, -1)), l).toBe(true)
      else expect(norm(lines.join('')), l).toBe(norm(l))
    }
    const cut = tickLabelLines('building = North Wing Annex, room = Conference Room 3 and a few more words')
    expect(cut).toHaveLength(3)
    expect(cut[2].endsWith('…')).toBe(true)
  })

  it('cuts a word longer than a line after a separator', () => {
    expect(tickLabelLines('supercalifragilisticexpialidocious_and_more_words_still', 24)).toEqual([
      'supercalifragilisticexpi',
      'alidocious_and_more_',
      'words_still'
    ])
  })
})
