/**
 * Verdicts in the words the guarantee supports (pure; unit-tested in test/unit/renderer/verdict-words.test.ts): a
 * threshold flag is "over its threshold or at most the tolerance under it", never "over threshold" alone.
 */
const short = (x: number) => Number(x.toPrecision(4)).toString()

/**
 * A flagged decision in the words the guarantee supports: over its threshold or at most the tolerance (its mechanism's
 * false-positive band) under it, never "over threshold" alone. Releases answered before the tolerance was kept say "flagged".
 */
export function flaggedWords(tolerance: number | undefined): string {
  return tolerance === undefined ? 'flagged' : `flagged (may be up to ${short(tolerance)} under its threshold)`
}

/** The one sentence under a threshold answer's count of flags: what a flag means, with the release's tolerance. */
export function flagMeaning(tolerance: number | undefined): string {
  return tolerance === undefined
    ? "A flagged group is over its threshold or within its mechanism's tolerance under it (see the guarantee)."
    : `A flagged group is over its threshold or at most ${short(tolerance)} under it (the tolerance: further under, a group is flagged at most as often as one over is missed); a group over its threshold is missed at most as often as the guarantee says.`
}
