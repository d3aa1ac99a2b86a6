/**
 * Brute force over small universes for the sensitive-privacy tests: every database with counts in 0..cap2 (a box),
 * the add/remove-one-record graph and the k-sensitive graph, and multi-source breadth-first search for the distance to
 * the nearest database where the answer of g(i, .) flips. Independent of the engine: ball counts are recomputed here.
 *
 * Box exactness: a path of length L from a start with counts <= cap stays inside counts <= cap + L. So when the BFS
 * distance D (computed inside the box) is <= cap2 - cap, the true shortest path (length <= D) stays inside the box and D
 * is the true distance. The tests assert this condition for every start they use.
 */
export interface SmallUniverse {
  name: string
  size: number
  /** dist(a, b) between record indices. */
  dist(a: number, b: number): number
}

export function lineUniverse(n: number): SmallUniverse {
  return { name: `line of ${n}`, size: n, dist: (a, b) => Math.abs(a - b) }
}

export function gridUniverse(w: number, h: number, norm: 'l1' | 'linf'): SmallUniverse {
  const xy = (a: number) => [a % w, Math.floor(a / w)]
  return {
    name: `${w}x${h} grid, ${norm}`,
    size: w * h,
    dist(a, b) {
      const [ax, ay] = xy(a)
      const [bx, by] = xy(b)
      const dx = Math.abs(ax - bx)
      const dy = Math.abs(ay - by)
      return norm === 'l1' ? dx + dy : Math.max(dx, dy)
    }
  }
}

export class Box {
  readonly states: number
  readonly radix: number
  private readonly table: Int8Array
  constructor(
    readonly u: SmallUniverse,
    readonly cap2: number
  ) {
    this.radix = cap2 + 1
    this.states = this.radix ** u.size
    this.table = new Int8Array(this.states * u.size)
    for (let s = 0; s < this.states; s++) {
      let v = s
      for (let j = 0; j < u.size; j++) {
        this.table[s * u.size + j] = v % this.radix
        v = Math.floor(v / this.radix)
      }
    }
  }
  /** The counts of state s (a view; do not modify). */
  decode(s: number): Int8Array {
    return this.table.subarray(s * this.u.size, (s + 1) * this.u.size)
  }
  count(s: number, j: number): number {
    return this.table[s * this.u.size + j]
  }
  /** Neighbour state when record j is added (+1) or removed (-1), or -1 if it leaves the box. */
  step(s: number, x: ArrayLike<number>, j: number, delta: 1 | -1): number {
    const v = x[j] + delta
    if (v < 0 || v > this.cap2) return -1
    return s + delta * this.radix ** j
  }
  maxCount(s: number): number {
    let m = 0
    for (let j = 0; j < this.u.size; j++) m = Math.max(m, this.count(s, j))
    return m
  }
}

/** B_x(j, r) for every state and record: Int32Array states x size. */
export function allBalls(box: Box, r: number): Int32Array {
  const n = box.u.size
  const out = new Int32Array(box.states * n)
  for (let s = 0; s < box.states; s++) {
    const x = box.decode(s)
    for (let j = 0; j < n; j++) {
      let b = 0
      for (let l = 0; l < n; l++) if (box.u.dist(j, l) <= r) b += x[l]
      out[s * n + j] = b
    }
  }
  return out
}

export type EdgeFilter = (s: number, t: number, j: number) => boolean

/** All edges of a graph inside the box (each undirected edge once, as s < t), with the record j that differs. */
export function forEachEdge(box: Box, keep: EdgeFilter, f: (s: number, t: number, j: number) => void): void {
  for (let s = 0; s < box.states; s++) {
    const x = box.decode(s)
    for (let j = 0; j < box.u.size; j++) {
      const t = box.step(s, x, j, 1)
      if (t >= 0 && keep(s, t, j)) f(s, t, j)
    }
  }
}

/** For every state: BFS distance (inside the box, along edges kept by `keep`) to the nearest state whose label differs. */
export function distanceToFlip(box: Box, label: Uint8Array, keep: EdgeFilter): Float64Array {
  const dist = new Float64Array(box.states).fill(Infinity)
  for (const target of [0, 1]) {
    // Multi-source BFS from all states labelled `target`; record distances of states labelled 1 - target.
    const d = new Int32Array(box.states).fill(-1)
    let frontier: number[] = []
    for (let s = 0; s < box.states; s++) {
      if (label[s] === target) {
        d[s] = 0
        frontier.push(s)
      }
    }
    let level = 0
    while (frontier.length > 0) {
      level++
      const next: number[] = []
      for (const s of frontier) {
        const x = box.decode(s)
        for (let j = 0; j < box.u.size; j++) {
          for (const delta of [1, -1] as const) {
            const t = box.step(s, x, j, delta)
            if (t < 0 || d[t] >= 0) continue
            const ok = delta === 1 ? keep(s, t, j) : keep(t, s, j)
            if (!ok) continue
            d[t] = level
            next.push(t)
          }
        }
      }
      frontier = next
    }
    for (let s = 0; s < box.states; s++) if (label[s] !== target && d[s] >= 0) dist[s] = d[s]
  }
  return dist
}
