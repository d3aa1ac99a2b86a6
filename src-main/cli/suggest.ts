/**
 * "Did you mean": the known word closest to a typed one, when it is close enough to be a typo (an edit distance,
 * counting a swap of two neighbouring letters as one edit, of at most 1 for words up to 4 letters, else 2).
 */

/** Edit distance with adjacent transpositions (optimal string alignment). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)])
  for (let j = 1; j <= b.length; j++) d[0][j] = j
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1)
    }
  }
  return d[a.length][b.length]
}

/** The closest candidate within typo distance of `typed` (ties: the first in `candidates`), or null. */
export function closest(typed: string, candidates: readonly string[]): string | null {
  const t = typed.toLowerCase()
  const limit = t.length <= 4 ? 1 : 2
  let best: string | null = null
  let bestDistance = Infinity
  for (const c of candidates) {
    const dist = editDistance(t, c.toLowerCase())
    // A word that starts the candidate ("--pass" for "--passphrase-file") is a suggestion too.
    const prefix = t.length >= 3 && c.toLowerCase().startsWith(t) ? 1 : Infinity
    const score = Math.min(dist, prefix)
    if (score <= limit && score < bestDistance) {
      best = c
      bestDistance = score
    }
  }
  return best
}

/** ' did you mean "x"?' or ''. */
export function didYouMean(typed: string, candidates: readonly string[], quote: (s: string) => string = (s) => `"${s}"`): string {
  const c = closest(typed, candidates)
  return c === null ? '' : `; did you mean ${quote(c)}?`
}
