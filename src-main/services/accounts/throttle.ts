/**
 * Throttled failed sign-ins, per key (a peer address, an account id). The first `free` failures within `windowMs` cost
 * nothing; after that the key is locked for 1 s, 2 s, 4 s, ... (at most `maxLockMs`) after each further failure (the
 * gate refuses every failure of a locked key as throttled; see gate.ts). A success clears the key;
 * a key with no failure for `windowMs` is forgotten. The table is bounded: past `maxKeys` the stalest keys go first.
 */
export interface ThrottlePolicy {
  free: number
  windowMs: number
  maxLockMs: number
  maxKeys: number
}

export const DEFAULT_THROTTLE: ThrottlePolicy = { free: 5, windowMs: 15 * 60_000, maxLockMs: 15 * 60_000, maxKeys: 10_000 }

interface Entry {
  failures: number
  lastFailureMs: number
  lockedUntilMs: number
}

export class FailureThrottle {
  private readonly entries = new Map<string, Entry>()

  constructor(private readonly policy: ThrottlePolicy = DEFAULT_THROTTLE) {}

  /** 0 when `key` may try now, else how many ms it must wait. */
  waitMs(key: string, nowMs: number): number {
    const e = this.entries.get(key)
    if (!e) return 0
    if (nowMs - e.lastFailureMs > this.policy.windowMs) {
      this.entries.delete(key)
      return 0
    }
    return Math.max(0, e.lockedUntilMs - nowMs)
  }

  failed(key: string, nowMs: number): void {
    let e = this.entries.get(key)
    if (!e || nowMs - e.lastFailureMs > this.policy.windowMs) e = { failures: 0, lastFailureMs: nowMs, lockedUntilMs: 0 }
    e.failures += 1
    e.lastFailureMs = nowMs
    const over = e.failures - this.policy.free
    if (over > 0) e.lockedUntilMs = nowMs + Math.min(this.policy.maxLockMs, 1000 * 2 ** Math.min(over - 1, 30))
    // Re-inserted last: the Map's order is the order of the latest failure, so the stalest key is the first one.
    this.entries.delete(key)
    this.entries.set(key, e)
    while (this.entries.size > this.policy.maxKeys) this.entries.delete(this.entries.keys().next().value as string)
  }

  succeeded(key: string): void {
    this.entries.delete(key)
  }

  failures(key: string): number {
    return this.entries.get(key)?.failures ?? 0
  }
}
