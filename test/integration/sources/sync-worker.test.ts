/**
 * The synchronous bridge's "start now, wait later" form (`begin` / `wait`), on a real worker thread: the caller's thread
 * runs while the worker works, answers and errors come back as `call` gives them, the worker runs one request at a time,
 * and a worker that died or was stopped while the caller was elsewhere fails the wait instead of hanging it.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { type SyncWorker, syncWorker } from '../../../src-main/services/platform/sync-worker'

/**
 * Requests: `{ echo }` answers it (after `delayMs`); `{ fail }` throws it; `{ until }` answers once the caller has set
 * `until[0]` (a shared Int32Array); `{ exitAfterMs }` ends the worker's thread. Each answer says how many requests ran
 * at once at most.
 */
const CODE = `
let running = 0
let most = 0
async function handle(r) {
  running++
  most = Math.max(most, running)
  try {
    if (r.exitAfterMs !== undefined) {
      await new Promise((ok) => setTimeout(ok, r.exitAfterMs))
      process.exit(1)
    }
    if (r.delayMs) await new Promise((ok) => setTimeout(ok, r.delayMs))
    if (r.until) while (Atomics.load(r.until, 0) === 0) await new Promise((ok) => setTimeout(ok, 5))
    if (r.fail) throw Object.assign(new Error(r.fail), { code: 'E_TEST' })
    return { echo: r.echo, most }
  } finally {
    running--
  }
}
`

class Stalled extends Error {}
class Failed extends Error {
  constructor(
    message: string,
    readonly code: string | null
  ) {
    super(message)
  }
}

let bridge: SyncWorker
function open(stallMs = 30_000): SyncWorker {
  bridge = syncWorker({
    code: CODE,
    workerData: () => null,
    stallMs,
    stalled: (what) => new Stalled(`test worker ${what}`),
    failed: (message, code) => new Failed(message, code)
  })
  return bridge
}
afterEach(() => bridge.close())

/** Blocks this thread for `ms` (as a key derivation does): no event of the worker reaches it meanwhile. */
function busy(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
}

const gate = () => new Int32Array(new SharedArrayBuffer(4))

describe('syncWorker begin / wait', () => {
  it('begin returns before the answer: the worker answers a request that waits on what the caller does after begin', () => {
    const w = open()
    const until = gate()
    const pending = w.begin<{ echo: string }>({ echo: 'a', until })
    // A blocking call here would wait for a gate only this thread opens (and give up after stallMs).
    Atomics.store(until, 0, 1)
    expect(pending.wait()).toEqual({ echo: 'a', most: 1 })
    expect(pending.wait()).toEqual({ echo: 'a', most: 1 })
    expect(w.call<{ echo: string }>({ echo: 'b' })).toEqual({ echo: 'b', most: 1 })
  })

  it("the handler's error is thrown by wait, every time, as call throws it; the next request is answered", () => {
    const w = open()
    const pending = w.begin({ fail: 'no such column' })
    busy(50)
    for (let i = 0; i < 2; i++) {
      let thrown: unknown
      try {
        pending.wait()
      } catch (e) {
        thrown = e
      }
      expect(thrown).toBeInstanceOf(Failed)
      expect((thrown as Failed).message).toBe('no such column')
      expect((thrown as Failed).code).toBe('E_TEST')
    }
    expect(() => w.call({ fail: 'no such column' })).toThrow(Failed)
    expect(w.call({ echo: 'c' })).toEqual({ echo: 'c', most: 1 })
  })

  it('one request at a time: a call after begin waits for the begun request, whose answer stays for its wait', () => {
    const w = open()
    // Posted together, the worker would run them at once (its handler awaits): `most` would be 2 or 3.
    const first = w.begin<{ echo: string; most: number }>({ echo: 'first', delayMs: 100 })
    const second = w.begin<{ echo: string; most: number }>({ echo: 'second', delayMs: 100 })
    expect(w.call({ echo: 'third', delayMs: 100 })).toEqual({ echo: 'third', most: 1 })
    expect(second.wait()).toEqual({ echo: 'second', most: 1 })
    expect(first.wait()).toEqual({ echo: 'first', most: 1 })
  })

  it('a worker that dies while the caller is elsewhere fails the wait (no hang); the next request starts a new worker', () => {
    const w = open(300)
    const pending = w.begin({ exitAfterMs: 20 })
    busy(200)
    expect(() => pending.wait()).toThrow('test worker stopped answering')
    expect(() => pending.wait()).toThrow('test worker stopped answering')
    expect(w.call({ echo: 'again' })).toEqual({ echo: 'again', most: 1 })
  })

  it('a request begun before close is answered "gave no answer" (not waited for); the next request starts a new worker', async () => {
    const w = open()
    const until = gate()
    const pending = w.begin({ echo: 'never', until })
    await w.close()
    expect(() => pending.wait()).toThrow('test worker gave no answer')
    expect(w.call({ echo: 'after close' })).toEqual({ echo: 'after close', most: 1 })
  })
})
