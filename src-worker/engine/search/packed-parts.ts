/**
 * The layout of a search round's first-level parts (random-prefix.ts): the one place that knows it.
 *
 * Each individual i has a part in 0..15 (four random key bits at the first level). Eight parts share one 32-bit word:
 * individual i's part is bits 4(i mod 8) .. 4(i mod 8) + 3 of word floor(i / 8). Drawing a round's first level is then
 * filling the words with random bits (nothing written per individual), and Q = {i : part(i) < T} for a threshold T.
 * The hot loops (`LogPosterior.updateSplit`, `RandomPrefix.splitLabelled`) walk the words eight fields at a time with
 * shifts by PART_BITS; everything else goes through the functions here.
 */

/** One part per individual, eight four-bit fields per word (see above). */
export type PackedParts = Int32Array

/** key bits per individual at the first level */
export const PART_BITS = 4
/** parts of the first level: the crossing part holds about N/16 individuals */
export const PARTS = 1 << PART_BITS
/** first-level parts in one 32-bit word: eight four-bit fields */
export const PARTS_PER_WORD = 32 / PART_BITS
/** the highest part */
export const LAST_PART = PARTS - 1
/** 0x11111111: the lowest bit of each of the eight fields (times a part: that part in every field) */
export const FIELD_LOW_BITS = 0x11111111

/** Number of words holding one part per individual. */
export function partWords(size: number): number {
  return Math.ceil(size / PARTS_PER_WORD)
}

/** The first-level part (0..15) of individual i. */
export function partOf(parts: PackedParts, i: number): number {
  const k = (i / PARTS_PER_WORD) | 0
  return (parts[k] >>> (PART_BITS * (i - k * PARTS_PER_WORD))) & LAST_PART
}

/** Sets individual i's part. */
export function setPart(parts: PackedParts, i: number, part: number): void {
  const k = (i / PARTS_PER_WORD) | 0
  const s = PART_BITS * (i - k * PARTS_PER_WORD)
  parts[k] = (parts[k] & ~(LAST_PART << s)) | (part << s)
}

/** Is individual i in Q = {i : part < threshold}? */
export function inQuery(parts: PackedParts, threshold: number, i: number): boolean {
  return partOf(parts, i) < threshold
}

/** One bit per zero field of x (eight four-bit fields): bit j is set iff bits 4j .. 4j + 3 of x are all 0. */
export function matchBits(x: number): number {
  let m = ~(x | (x >>> 1) | (x >>> 2) | (x >>> 3)) & FIELD_LOW_BITS // bits 0, 4, ..., 28
  m = (m | (m >>> 3)) & 0x03030303
  m = (m | (m >>> 6)) & 0x000f000f
  return (m | (m >>> 12)) & 0xff
}
