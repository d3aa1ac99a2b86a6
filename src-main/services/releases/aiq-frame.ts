/**
 * The public frame of an anomaly identification release: what the records asked about (public, in the query) decide
 * before any private row is read, so that nothing after the charge can fail, or take a data-dependent path, because
 * of the private values (ALGORITHMS.md section 5).
 *
 * Only rows within `radius` of a record asked about change an answer (its own copies x_i and its ball count B(i, r)).
 * Per numeric column, a value whose bin lies outside [min bin asked - R - 2, max bin asked + R + 2] (R = ceil(radius))
 * is more than `radius` away from every record asked about in that coordinate, and so is any value clamped to that
 * range's ends: clamping changes no answer, and bounds the bins the engine has to index by public numbers. Per text
 * column, a category that no record asked about has mismatches all of them, exactly as one shared "other" category
 * does: mapping them to it changes no distance to a record asked about. With every row clamped this way, no private
 * value can overflow a bin or widen the index; the engine is given the data and the records together (the records'
 * own copies subtracted again), so an empty selection is a histogram of zeros rather than an error.
 */
import { binOf } from '../../../src-worker/engine/sensitive'
import { UserError } from '../platform/errors'

export interface AiqColumnFrame {
  kind: 'numeric' | 'categorical'
  /** numeric: bin width and the clamp range in value units */
  binWidth: number
  lo: number
  hi: number
  /** categorical: the categories of the records asked about */
  categories: Set<string>
}

/** A label that stands for every category no record asked about has (its text never matters: it is compared only). */
export const OTHER_CATEGORY = '\u0000other'

/** Bins the engine can index at most (its mixed-radix keys are exact below 2^53). */
const MAX_SPAN = Number.MAX_SAFE_INTEGER

export function aiqFrame(
  columns: Array<{ name: string; kind: 'numeric' | 'categorical'; binWidth: number }>,
  records: Array<Array<number | string>>,
  radius: number
): AiqColumnFrame[] {
  const R = Math.ceil(radius)
  let span = 1
  const frame = columns.map((c, k) => {
    if (c.kind === 'categorical') {
      const categories = new Set(records.map((r) => String(r[k])))
      span *= categories.size + 1
      return { kind: c.kind, binWidth: NaN, lo: NaN, hi: NaN, categories }
    }
    let minBin = Infinity
    let maxBin = -Infinity
    for (const r of records) {
      let b: number
      try {
        b = binOf(Number(r[k]), c.binWidth)
      } catch {
        throw new UserError(
          `A record's value for "${c.name}" falls outside the bins this bin width allows; use a wider bin width for "${c.name}"`,
          'bad-query'
        )
      }
      if (b < minBin) minBin = b
      if (b > maxBin) maxBin = b
    }
    const loBin = minBin - R - 2
    const hiBin = maxBin + R + 2
    // The clamped values must bin inside the engine's range too (a margin of one bin for rounding at the ends).
    if (!(Math.abs(loBin - 1) < 2 ** 31 - 1 && Math.abs(hiBin + 1) < 2 ** 31 - 1)) {
      throw new UserError(
        `The records asked about and the radius reach beyond the bins "${c.name}" can have at this bin width; use a wider bin width`,
        'bad-query'
      )
    }
    span *= hiBin - loBin + 4
    return { kind: c.kind, binWidth: c.binWidth, lo: loBin * c.binWidth, hi: hiBin * c.binWidth, categories: new Set<string>() }
  })
  if (!(span <= MAX_SPAN)) {
    throw new UserError(
      'The records asked about lie too far apart for these bin widths and radius (too many bins to index); ask about closer records or use wider bins',
      'bad-query'
    )
  }
  return frame
}

/** A column's values with the frame applied (numeric clamped, categories outside the records' mapped to one). */
export function framedValues(f: AiqColumnFrame, values: ArrayLike<number> | readonly string[]): Float64Array | string[] {
  if (f.kind === 'numeric') {
    const v = values as ArrayLike<number>
    const out = new Float64Array(v.length)
    for (let i = 0; i < v.length; i++) {
      const x = v[i]
      out[i] = x < f.lo ? f.lo : x > f.hi ? f.hi : Number.isNaN(x) ? f.lo : x
    }
    return out
  }
  return Array.from(values as readonly string[], (s) => (f.categories.has(s) ? s : OTHER_CATEGORY))
}
