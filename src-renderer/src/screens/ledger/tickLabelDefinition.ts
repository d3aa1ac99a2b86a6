/**
 * A category label under a bar, as short lines: a cell's label ("timestamp = 2014-07-01T00:00:00.000Z", "room = B-214,
 * floor = 2") is longer than a bar is wide once a chart has a few cells, and rotated labels overlapped their neighbours at
 * 1024 px. Broken between words, a word longer than a line after a separator (- : , . / _ =, or the T of an ISO time);
 * at most `maxLines` lines, the last ending in "…" when the label is cut (the tooltip shows it whole). Pure (unit-tested
 * in test/unit/renderer/tick-labels.test.ts; the node typecheck reaches it by its *Definition.ts name).
 */

export const TICK_LINE_CHARS = 24
export const TICK_MAX_LINES = 3

function breaksAfter(word: string, i: number): boolean {
  const c = word[i]
  return /[-:,./_=]/.test(c) || (c === 'T' && i > 0 && /\d/.test(word[i - 1]))
}

/** A word longer than `width` cut into pieces of at most `width`, after a separator when one lies in the second half. */
function pieces(word: string, width: number): string[] {
  const out: string[] = []
  let w = word
  while (w.length > width) {
    let cut = width
    for (let i = width - 1; i >= Math.ceil(width / 2) - 1; i--)
      if (breaksAfter(w, i)) {
        cut = i + 1
        break
      }
    out.push(w.slice(0, cut))
    w = w.slice(cut)
  }
  if (w !== '') out.push(w)
  return out
}

export function tickLabelLines(label: string, width = TICK_LINE_CHARS, maxLines = TICK_MAX_LINES): string[] {
  const lines: string[] = []
  let line = ''
  for (const word of label.split(/\s+/).filter((w) => w !== '')) {
    pieces(word, width).forEach((piece, i) => {
      // A piece after the first of a cut word always starts a line (it is not a word of its own).
      if (line !== '' && (i > 0 || line.length + 1 + piece.length > width)) {
        lines.push(line)
        line = piece
      } else line = line === '' ? piece : `${line} ${piece}`
    })
  }
  if (line !== '' || lines.length === 0) lines.push(line)
  if (lines.length <= maxLines) return lines
  const kept = lines.slice(0, maxLines)
  const last = kept[maxLines - 1]
  kept[maxLines - 1] = `${last.length >= width ? last.slice(0, width - 1) : last}…`
  return kept
}
