/**
 * The belief f over the N = n+1 individuals, kept in log space so that thousands of Bayes updates neither underflow nor
 * lose the ordering of small probabilities. After every update the log-posterior is shifted so that its maximum is 0;
 * `weight[i] = exp(log f(i) - max)` (unnormalised, in [0, 1]) and `total = sum(weight)` are refreshed in the same O(N) pass.
 */
export class LogPosterior {
  readonly size: number
  /** log f(i) - max_j log f(j) (so the maximum is 0) */
  readonly logF: Float64Array
  /** exp(logF[i]); sums to `total` */
  readonly weight: Float64Array
  total = 0
  argmax = 0
  /** sum of the weights except the argmax (computed separately, so tiny remainders keep their precision) */
  othersTotal = 0

  constructor(size: number) {
    if (!(Number.isInteger(size) && size >= 1)) throw new RangeError(`the posterior needs at least one individual (got ${size})`)
    this.size = size
    this.logF = new Float64Array(size)
    this.weight = new Float64Array(size)
    this.refresh()
  }

  /** max_i f(i) */
  maxProbability(): number {
    return 1 / this.total
  }

  /** log(max f / (1 - max f)) = -log(sum of the other weights), since the argmax has weight 1. */
  logOddsMax(): number {
    return -Math.log(this.othersTotal)
  }

  /** f(i) */
  probability(i: number): number {
    return this.weight[i] / this.total
  }

  /** The normalised posterior as a new array. */
  toArray(): Float64Array {
    const out = new Float64Array(this.size)
    const inv = 1 / this.total
    for (let i = 0; i < this.size; i++) out[i] = this.weight[i] * inv
    return out
  }

  /** Add `inQ` to log f(i) for members of the query (mask 1) and `outQ` to the others, then renormalise. O(N). */
  update(inQuery: Uint8Array, inQ: number, outQ: number): void {
    const l = this.logF
    const n = this.size
    let max = -Infinity
    let arg = 0
    for (let i = 0; i < n; i++) {
      const v = l[i] + (inQuery[i] === 1 ? inQ : outQ)
      l[i] = v
      if (v > max) {
        max = v
        arg = i
      }
    }
    this.normalise(max, arg)
  }

  private refresh(): void {
    const l = this.logF
    let max = -Infinity
    let arg = 0
    for (let i = 0; i < this.size; i++) {
      if (l[i] > max) {
        max = l[i]
        arg = i
      }
    }
    this.normalise(max, arg)
  }

  /** Shift so that the maximum is 0, refresh the weights and the totals. */
  private normalise(max: number, arg: number): void {
    const l = this.logF
    const w = this.weight
    const n = this.size
    if (!Number.isFinite(max)) throw new Error('posterior lost all its mass (an update was -Infinity everywhere)')
    let others = 0
    for (let i = 0; i < n; i++) {
      const v = l[i] - max
      l[i] = v
      const e = v < -745 ? 0 : Math.exp(v) // exp underflows to 0 there anyway; skipping it saves time
      w[i] = e
      others += e
    }
    // The argmax has weight exactly 1; summing the others without it keeps tiny remainders precise.
    others -= 1
    if (others < 1e-6) {
      others = 0
      for (let i = 0; i < n; i++) if (i !== arg) others += w[i]
    }
    this.argmax = arg
    this.othersTotal = others
    this.total = 1 + this.othersTotal
  }

  /**
   * The k indices with the largest posterior, largest first. Ties are broken by `order` (earlier wins): the search passes
   * a random permutation, so tied individuals are ordered at random rather than by index (paper section 6.2).
   */
  top(k: number, order: ArrayLike<number>): number[] {
    const n = this.size
    const kk = Math.min(k, n)
    const l = this.logF
    if (kk > 64) {
      const idx = Array.from(order)
      idx.sort((a, b) => l[b] - l[a]) // stable: ties keep their order
      return idx.slice(0, kk)
    }
    const best: number[] = []
    for (let r = 0; r < n; r++) {
      const i = order[r]
      const v = l[i]
      if (best.length === kk && v <= l[best[kk - 1]]) continue
      let pos = best.length === kk ? kk - 1 : best.length
      if (best.length < kk) best.push(i)
      while (pos > 0 && l[best[pos - 1]] < v) {
        best[pos] = best[pos - 1]
        pos--
      }
      best[pos] = i
    }
    return best
  }
}
