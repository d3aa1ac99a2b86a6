/**
 * Min-entropy privacy metric of predicate-wise DP (MIDE paper Def. 6 and Lemma 7 with uniform priors; ALGORITHMS.md).
 *
 *   l_i = e^{-eps_i} / sum_j e^{eps_j},   u_i = min(1, e^{eps_i} / sum_j e^{-eps_j}),
 *   gamma = min { -sum p_i ln p_i : l <= p <= u, sum p = 1 }      (nats; also reported divided by ln k).
 *
 * Exact algorithm (replaces the 2^k recursion of the paper's Alg. 5). Entropy is concave, so the minimum is at a vertex:
 * every p_i at a bound except at most one ("free"). Predicates with equal eps have equal bounds, so a vertex is described
 * per level t (n_t predicates, bounds l_t <= u_t) by the count a_t at the upper bound and, for one level, one free
 * predicate. Starting from all p at their lower bounds, the slack s = 1 - sum l must be placed: a full predicate of
 * level t takes D_t = u_t - l_t and changes the entropy by c_t = h(u_t) - h(l_t); the free one takes r in [0, D_f] and
 * changes it by phi_f(r) = h(l_f + r) - h(l_f) >= r c_f / D_f (concavity). So
 *   gamma = sum_t n_t h(l_t) + min { sum_t a_t c_t + phi_f(r) : sum_t a_t D_t + r = s }.
 * We solve that by depth-first branch and bound over the counts a_t (levels in increasing order of c_t / D_t), with the
 * linear relaxation (fractional filling in that order) as the lower bound. The relaxation is a true lower bound because
 * phi_f lies above its chord, so the search is exact; the bound is tight enough that few nodes are visited.
 * The search starts from an incumbent, the vertex nearest the relaxation (cheapest levels filled, the later ones
 * empty), which is often the minimum: counts are tried from the largest down, so without it the search reaches that
 * vertex last and can prune little until then; with it, it mostly proves it.
 * The bounds are never rounded.
 */

export interface EpsLevel {
  epsilon: number
  count: number
}

export interface LevelSolution {
  epsilon: number
  count: number
  lower: number
  upper: number
  /** predicates of this level at the upper bound */
  atUpper: number
  /** value of the free predicate when it belongs to this level, else null */
  free: number | null
  /** predicates of this level at the lower bound */
  atLower: number
}

export interface MinEntropyResult {
  k: number
  /**
   * True when the search finished: gamma is the minimum (to 1e-12 nats). False only when a node budget was given and
   * exhausted; gamma is then the best vertex found (an upper bound) and `lowerBound` a certified lower bound.
   */
  exact: boolean
  /** Certified lower bound on the min-entropy in nats (equal to gamma up to 1e-12 when exact). */
  lowerBound: number
  /** min-entropy in nats */
  gamma: number
  /** gamma / ln k (0 when k = 1: a single predicate leaves no uncertainty to measure) */
  normalized: number
  levels: LevelSolution[]
}

const TOL = 1e-13
/** Subtrees whose lower bound is within this many nats of the best value found are not explored (exact to this). */
const PRUNE_TOL = 1e-12

const U = 2 ** -53

/**
 * For the count loop of `dfs` (counts c tried from cTop down while the level is a room: c < n_t, room `room`, rate
 * `rho`; `thr` = best - PRUNE_TOL, which a pruned count does not change): the counts it may skip unevaluated, because
 * a count its weak bound prunes there has no other effect. Returns the smallest lo <= cTop such that every c in
 * [lo, cTop] is certainly pruned with R - c D < room (where the weak bound is C + c c_t + (R - c D) rho, linear in c,
 * and a pruned count never ends the loop), or cTop + 1. Certainly: the linear bound computed at both ends is at least
 * thr + E, E above the rounding of the loop's computation of it and of this one (ulps of each term, and the clamp of
 * R - c D at 0, at most TOL below).
 */
export function weakPrunedFrom(C: number, R: number, d: number, ct: number, rho: number, room: number, cTop: number, thr: number): number {
  const sigma = ct - d * rho
  if (!(sigma > 0)) return cTop + 1
  const M = Math.abs(C) + cTop * Math.abs(ct) + Math.abs(rho) * (Math.abs(R) + cTop * d) + Math.abs(thr)
  const target = thr + (32 * U * M + 2 * Math.abs(rho) * TOL)
  let lo = Math.max(0, Math.ceil((target - (C + R * rho)) / sigma) + 1)
  if (lo > cTop) return cTop + 1
  if (!(Math.max(0, R - lo * d) < room)) {
    lo = Math.max(lo, Math.ceil((R - room) / d))
    while (lo <= cTop && !(Math.max(0, R - lo * d) < room)) lo++
    if (lo > cTop) return cTop + 1
  }
  if (!(C + lo * ct + (R - lo * d) * rho >= target && C + cTop * ct + (R - cTop * d) * rho >= target)) return cTop + 1
  return lo
}

function h(p: number): number {
  return p > 0 ? -p * Math.log(p) : 0
}

function logSumExp(values: number[], weights: number[]): number {
  let mx = -Infinity
  for (const v of values) if (v > mx) mx = v
  let s = 0
  for (let i = 0; i < values.length; i++) s += weights[i] * Math.exp(values[i] - mx)
  return mx + Math.log(s)
}

/** Group equal epsilons into levels (exact float equality; order of first appearance). */
export function groupLevels(eps: ArrayLike<number>): { levels: EpsLevel[]; levelOf: Int32Array } {
  const index = new Map<number, number>()
  const levels: EpsLevel[] = []
  const levelOf = new Int32Array(eps.length)
  for (let i = 0; i < eps.length; i++) {
    const e = eps[i]
    let t = index.get(e)
    if (t === undefined) {
      t = levels.length
      index.set(e, t)
      levels.push({ epsilon: e, count: 0 })
    }
    levels[t].count++
    levelOf[i] = t
  }
  return { levels, levelOf }
}

/** Lemma 7 bounds for each level (computed in log space: no overflow for large eps, never rounded). */
export function levelBounds(levels: readonly EpsLevel[]): Array<{ lower: number; upper: number }> {
  const e = levels.map((l) => l.epsilon)
  const n = levels.map((l) => l.count)
  const logA = logSumExp(e, n) // ln sum_j e^{eps_j}
  const logB = logSumExp(
    e.map((x) => -x),
    n
  ) // ln sum_j e^{-eps_j}
  return levels.map((l) => ({ lower: Math.exp(-l.epsilon - logA), upper: Math.min(1, Math.exp(l.epsilon - logB)) }))
}

/** Per-predicate Lemma 7 bounds. */
export function posteriorBounds(eps: ArrayLike<number>): { lower: Float64Array; upper: Float64Array } {
  const { levels, levelOf } = groupLevels(eps)
  const b = levelBounds(levels)
  const lower = new Float64Array(eps.length)
  const upper = new Float64Array(eps.length)
  for (let i = 0; i < eps.length; i++) {
    lower[i] = b[levelOf[i]].lower
    upper[i] = b[levelOf[i]].upper
  }
  return { lower, upper }
}

function checkLevels(levels: readonly EpsLevel[]): number {
  let k = 0
  for (const l of levels) {
    if (!Number.isFinite(l.epsilon) || l.epsilon < 0) throw new RangeError(`min-entropy needs finite epsilons >= 0 (got ${l.epsilon})`)
    if (!Number.isInteger(l.count) || l.count < 0) throw new RangeError(`level counts must be whole numbers >= 0 (got ${l.count})`)
    k += l.count
  }
  if (k === 0) throw new RangeError('min-entropy needs at least one predicate')
  return k
}

export interface MinEntropyOptions {
  /**
   * Stop the search after this many nodes (default: no limit, always exact). Inputs whose levels have almost equal
   * entropy change per unit of slack (e.g. many distinct, all tiny epsilons) turn the search into a subset-sum-like fit
   * and can take long; a budget bounds the time and reports `exact: false` with a certified lower bound.
   */
  maxNodes?: number
}

/** Exact min-entropy of a vector described by levels (eps, count). Levels with equal eps may be given separately. */
export function minEntropyLevels(input: readonly EpsLevel[], options: MinEntropyOptions = {}): MinEntropyResult {
  const maxNodes = options.maxNodes ?? Infinity
  const k = checkLevels(input)
  // merge equal eps, drop empty levels
  const merged: EpsLevel[] = []
  {
    const idx = new Map<number, number>()
    for (const l of input) {
      if (l.count === 0) continue
      const t = idx.get(l.epsilon)
      if (t === undefined) {
        idx.set(l.epsilon, merged.length)
        merged.push({ epsilon: l.epsilon, count: l.count })
      } else merged[t].count += l.count
    }
  }
  const bounds = levelBounds(merged)
  const L = merged.length
  const n = merged.map((l) => l.count)
  const lo = bounds.map((b) => b.lower)
  const up = bounds.map((b) => b.upper)
  const delta = lo.map((l, t) => Math.max(0, up[t] - l))
  let base = 0
  let used = 0
  for (let t = 0; t < L; t++) {
    base += n[t] * h(lo[t])
    used += n[t] * lo[t]
  }
  const slack = Math.max(0, 1 - used)

  // Active levels (can take slack), sorted by entropy change per unit of slack.
  const active: number[] = []
  for (let t = 0; t < L; t++) if (delta[t] > 0) active.push(t)
  const cost = delta.map((d, t) => (d > 0 ? h(up[t]) - h(lo[t]) : 0))
  const rho = delta.map((d, t) => (d > 0 ? cost[t] / d : 0))
  active.sort((x, y) => rho[x] - rho[y] || x - y)
  const A = active.length
  const capFrom = new Float64Array(A + 1)
  for (let i = A - 1; i >= 0; i--) capFrom[i] = capFrom[i + 1] + n[active[i]] * delta[active[i]]

  // Prefix sums over the active levels in rho order: capacity and linear cost of filling levels [0, j).
  const capCum = new Float64Array(A + 1)
  const costCum = new Float64Array(A + 1)
  for (let j = 0; j < A; j++) {
    const t = active[j]
    capCum[j + 1] = capCum[j] + n[t] * delta[t]
    costCum[j + 1] = costCum[j] + n[t] * delta[t] * rho[t]
  }

  const a = new Int32Array(L) // count at upper bound per level (index t)
  let best = Infinity
  const bestA = new Int32Array(L)
  let bestFree = -1
  let bestR = 0

  /** Cheapest fractional placement of y over active[i..] (Infinity if it does not fit): a convex piecewise-linear function. */
  const fractional = (i: number, y: number): number => {
    if (y <= TOL) return 0
    if (y > capFrom[i] + TOL) return Infinity
    let j = i
    while (j < A && capCum[j + 1] - capCum[i] <= y) j++
    const filled = capCum[j] - capCum[i]
    return costCum[j] - costCum[i] + (j < A ? (y - filled) * rho[active[j]] : 0)
  }

  // Weak, cheap bound: R over active[i..] plus at most `room` at rate `roomRho` (cheaper than all of them).
  // As a function of the count of the level being decided it is unimodal, which gives the early exit in dfs.
  const relaxation = (i: number, R: number, room: number, roomRho: number): number => {
    let v = 0
    if (room > 0 && R > 0) {
      const x = Math.min(room, R)
      v += x * roomRho
      R -= x
    }
    return v + fractional(i, R)
  }

  // Tighter bound: the free predicate is either in active[i..] (covered by the fractional relaxation) or in a decided
  // level t with room, taking x in (0, D_t] at its exact concave cost phi_t(x). The intervals are nested (a larger eps
  // has a smaller l and a larger D) and phi_t(x) = int_0^x h'(l_t + y) dy is smaller for a larger l_t, so the cheapest
  // room for an amount x is the smallest-eps room with D_t >= x: rooms sorted by eps cut (0, R] into segments, each
  // with one concave cost. On each linear piece of `fractional` the sum is concave in x, so the minimum over a segment
  // is at a segment or piece end: finitely many candidates, each a true value of the relaxation.
  // The rooms (decided levels with a predicate below its upper bound) on the current path, kept sorted by eps as they
  // are added and removed (a stack of levels, each on it at most once): no sort per bound.
  const rooms = new Int32Array(L)
  let nRooms = 0
  const addRoom = (t: number): void => {
    const e = merged[t].epsilon
    let q = nRooms++
    while (q > 0 && merged[rooms[q - 1]].epsilon > e) {
      rooms[q] = rooms[q - 1]
      q--
    }
    rooms[q] = t
  }
  const removeRoom = (t: number): void => {
    let q = 0
    while (rooms[q] !== t) q++
    nRooms--
    for (; q < nRooms; q++) rooms[q] = rooms[q + 1]
  }
  const hLo = lo.map(h)
  // h(l_t + D_s), the entropy of a level-t predicate that takes exactly level s's room, is asked for again and again
  // along the search: computed once per pair (the same double operations, so the same values).
  const hPair = new Float64Array(L * L).fill(NaN)
  const hAt = (t: number, s: number): number => {
    let v = hPair[t * L + s]
    if (v !== v) v = hPair[t * L + s] = h(lo[t] + delta[s])
    return v
  }
  // Whether C + (the tighter bound above at i, R) < thr: its candidates w in the same order, stopping at the first that
  // passes (rounding is monotone, so C + min(w) < thr exactly when C + w < thr for some candidate w).
  const tightPasses = (i: number, R: number, C: number, thr: number): boolean => {
    if (C + fractional(i, R) < thr) return true
    if (nRooms === 0 || R <= 0) return false
    let prev = 0
    let prevRoom = -1 // the room whose D is prev (prev = D_prevRoom), or -1 when prev = R or 0
    for (let q = 0; q < nRooms; q++) {
      const t = rooms[q]
      const full = R >= delta[t]
      const end = full ? delta[t] : R
      if (end <= prev) continue
      const l0 = lo[t]
      const h0 = hLo[t]
      if (C + ((full ? hAt(t, t) : h(l0 + end)) - h0 + fractional(i, R - end)) < thr) return true
      if (prev > 0) {
        if (C + ((prevRoom >= 0 ? hAt(t, prevRoom) : h(l0 + prev)) - h0 + fractional(i, R - prev)) < thr) return true
      }
      for (let j = i; j <= A; j++) {
        const x = R - (capCum[j] - capCum[i])
        if (x <= prev) break
        if (x >= end) continue
        if (C + (h(l0 + x) - h0 + (costCum[j] - costCum[i])) < thr) return true
      }
      prevRoom = full ? t : -1
      prev = end
      if (prev >= R) break
    }
    return false
  }

  const leaf = (R: number, C: number): void => {
    if (R <= TOL) {
      if (C < best) {
        best = C
        bestA.set(a)
        bestFree = -1
        bestR = 0
      }
      return
    }
    for (const t of active) {
      if (a[t] >= n[t] || delta[t] < R - TOL) continue
      const r = Math.min(R, delta[t])
      const v = C + (r === delta[t] ? hAt(t, t) : h(lo[t] + r)) - hLo[t]
      if (v < best) {
        best = v
        bestA.set(a)
        bestFree = t
        bestR = r
      }
    }
  }

  let nodes = 0
  let stopped = false
  const dfs = (i: number, R: number, C: number, room: number, roomRho: number): void => {
    if (++nodes > maxNodes && best < Infinity) {
      stopped = true
      return
    }
    if (i === A) {
      leaf(R, C)
      return
    }
    const t = active[i]
    const d = delta[t]
    const nt = n[t]
    const ct = cost[t]
    const amax = Math.min(nt, Math.floor((R + TOL) / d))
    // With c < n[t] the level is a room: the same room and rate for every such c (c = n[t], if tried, comes first).
    const roomWith = Math.max(room, d)
    const rhoWith = Math.min(roomRho, rho[t])
    // The level's room is on the rooms' list from the first c that needs it until the loop ends (children restore the list).
    let roomAdded = false
    const cTop = amax < nt ? amax : nt - 1
    for (let c = amax; c >= 0; c--) {
      if (c === cTop && c > 0 && best < Infinity) {
        const from = weakPrunedFrom(C, R, d, ct, rhoWith, roomWith, cTop, best - PRUNE_TOL)
        if (from <= cTop) {
          c = from
          continue
        }
      }
      const Ra = Math.max(0, R - c * d)
      const hasRoom = c < nt
      const newRoom = hasRoom ? roomWith : room
      const newRho = hasRoom ? rhoWith : roomRho
      // relaxation(i + 1, Ra, newRoom, newRho), inlined (the same operations, so the same value).
      let weak: number
      if (newRoom > 0 && Ra > 0) {
        const x = Math.min(newRoom, Ra)
        const rest = Ra - x
        weak = 0 + x * newRho
        if (rest > TOL) weak = weak + fractional(i + 1, rest)
      } else weak = 0 + fractional(i + 1, Ra)
      if (weak === Infinity) {
        // for c < n[t] the room is fixed and Ra only grows as c decreases: nothing smaller is feasible either
        if (hasRoom) break
        continue
      }
      const Cc = C + c * ct
      if (Cc + weak >= best - PRUNE_TOL) {
        // Past the point where Ra >= room the weak bound only grows as c decreases (see header): stop.
        if (hasRoom && Ra >= newRoom) break
        continue
      }
      if (hasRoom && !roomAdded) {
        addRoom(t)
        roomAdded = true
      }
      if (tightPasses(i + 1, Ra, Cc, best - PRUNE_TOL)) {
        a[t] = c
        dfs(i + 1, Ra, Cc, newRoom, newRho)
        a[t] = 0
      }
      if (stopped) break
    }
    if (roomAdded) removeRoom(t)
  }
  // The incumbent: the levels in rho order take all their predicates while they fit; the first that does not takes whole
  // predicates while they fit (the count the search tries first) and every later level none; the leaf then places the
  // rest on a free predicate. Its counts and value are computed with the search's own operations along that path, so
  // it is the value the search gives that vertex (the same bits when the search ends on it). Exactness is unchanged:
  // the incumbent is a vertex, and a vertex more than PRUNE_TOL below the best one is still never pruned.
  {
    let R = slack
    let C = 0
    let filling = true
    for (let i = 0; i < A; i++) {
      const t = active[i]
      const d = delta[t]
      const c = filling ? Math.min(n[t], Math.floor((R + TOL) / d)) : 0
      if (c < n[t]) filling = false
      R = Math.max(0, R - c * d)
      C = C + c * cost[t]
      a[t] = c
    }
    leaf(R, C)
    a.fill(0)
  }
  dfs(0, slack, 0, 0, Infinity)
  if (best === Infinity) {
    // Cannot happen for valid bounds (sum l <= 1 <= sum u); guard against float corner cases.
    throw new Error('min-entropy: no feasible vertex found')
  }
  const gamma = base + best
  const lowerBound = stopped ? base + relaxation(0, slack, 0, Infinity) : gamma
  const levels: LevelSolution[] = merged.map((l, t) => {
    const free = bestFree === t ? lo[t] + bestR : null
    const atUpper = bestA[t]
    return {
      epsilon: l.epsilon,
      count: l.count,
      lower: lo[t],
      upper: up[t],
      atUpper,
      free,
      atLower: l.count - atUpper - (free === null ? 0 : 1)
    }
  })
  return { k, exact: !stopped, lowerBound, gamma, normalized: k > 1 ? gamma / Math.log(k) : 0, levels }
}

/** Exact min-entropy of a per-predicate eps vector, with a minimising posterior vector p (in the input order). */
export function minEntropy(eps: ArrayLike<number>, options: MinEntropyOptions = {}): MinEntropyResult & { p: Float64Array } {
  const { levels, levelOf } = groupLevels(eps)
  const res = minEntropyLevels(levels, options)
  const byEps = new Map<number, LevelSolution>()
  for (const l of res.levels) byEps.set(l.epsilon, l)
  const seen = new Map<number, number>()
  const p = new Float64Array(eps.length)
  for (let i = 0; i < eps.length; i++) {
    const l = byEps.get(levels[levelOf[i]].epsilon)!
    const j = seen.get(l.epsilon) ?? 0
    seen.set(l.epsilon, j + 1)
    p[i] = j < l.atUpper ? l.upper : j === l.atUpper && l.free !== null ? l.free : l.lower
  }
  return { ...res, p }
}
