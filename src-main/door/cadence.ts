/**
 * The service's public cadence, enforced where bytes leave (ALGORITHMS.md section 5): the clock ticks every `ms`
 * milliseconds (multiples of `ms` since the epoch), and every write to a client's socket leaves at the first tick at
 * or after the moment it was asked for, in order. That covers whatever writes: an answer, an event frame, a ping, a
 * page, a refusal, Node's own `100 Continue`, a parser error answered by the door's `clientError` handler, and the end
 * of the connection (`end`, FIN). So the time an analyst sees anything is a tick: when the work behind it finished
 * shows only as which tick it made, never finer.
 *
 * What the cadence cannot hide is a tick missed because this thread was busy at it; nothing data-dependent runs on it
 * (a release's data read and computation run on the release runner's thread: services/releases/release-lane.ts).
 */
import type { Socket } from 'node:net'

export class Cadence {
  private asked = 0

  constructor(readonly ms: number) {
    if (!Number.isInteger(ms) || ms <= 0) throw new RangeError(`a cadence is a whole number of milliseconds > 0 (got ${ms})`)
  }

  /** The first tick at or after `t` (ms since the epoch). */
  tickAtOrAfter(t: number): number {
    return Math.ceil(t / this.ms) * this.ms
  }

  /** The next number in the one count of writes and ends asked of every socket this cadence gates (1, 2, ...). */
  nextAsk(): number {
    return ++this.asked
  }
}

/**
 * What a gated socket records of each write it let out (tests read it: which connection, when it was asked for, which
 * tick it left at). Each socket keeps its own order; sockets due at the same tick leave in no set order among themselves,
 * so the order the door asked for writes across connections is `order`, not the order records arrive in.
 */
export interface GateRecord {
  /** The client's port of the connection (tells one connection from another). */
  remotePort: number | undefined
  /** Its place in the order the door asked for writes and ends of every socket of this cadence (Cadence.nextAsk). */
  order: number
  askedAt: number
  tick: number
  leftAt: number
  kind: 'write' | 'end'
}

type Op = { due: number; askedAt: number; order: number; kind: GateRecord['kind']; run: () => void }

/**
 * Holds every `write` and `end` of `socket` until its tick. `onLeave` (optional) hears of each one as it leaves.
 * `destroy` is not held (an abort drops whatever is still waiting).
 */
export function gateSocket(socket: Socket, cadence: Cadence, onLeave?: (r: GateRecord) => void): void {
  const queue: Op[] = []
  let timer: NodeJS.Timeout | null = null
  const write = socket.write.bind(socket) as (...args: unknown[]) => boolean
  const end = socket.end.bind(socket) as (...args: unknown[]) => Socket

  const flush = () => {
    timer = null
    const now = Date.now()
    if (queue.length > 0 && queue[0].due <= now) {
      socket.cork()
      while (queue.length > 0 && queue[0].due <= now) {
        const op = queue.shift()!
        onLeave?.({ remotePort: socket.remotePort, order: op.order, askedAt: op.askedAt, tick: op.due, leftAt: now, kind: op.kind })
        op.run()
      }
      socket.uncork()
    }
    arm()
  }
  const arm = () => {
    if (timer || queue.length === 0 || socket.destroyed) return
    // A timer may fire a millisecond early by the wall clock: flush checks the time and re-arms.
    timer = setTimeout(flush, Math.max(0, queue[0].due - Date.now()))
  }
  const hold = (kind: GateRecord['kind'], run: () => void) => {
    const askedAt = Date.now()
    queue.push({ due: cadence.tickAtOrAfter(askedAt), askedAt, order: cadence.nextAsk(), kind, run })
    if (queue.length === 1 && queue[0].due <= askedAt) flush()
    else arm()
  }

  socket.write = ((...args: unknown[]) => {
    hold('write', () => write(...args))
    return true
  }) as Socket['write']
  socket.end = ((...args: unknown[]) => {
    hold('end', () => end(...args))
    return socket
  }) as Socket['end']
  socket.once('close', () => {
    queue.length = 0
    if (timer) clearTimeout(timer)
    timer = null
  })
}
