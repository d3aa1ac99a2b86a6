/**
 * The loop that sends queued fires (delivery.ts) on a clock of public ticks: in the service, its public cadence (every
 * request leaves at a multiple of `cadenceMs` since the epoch, as every byte of the door does, door/cadence.ts); in the
 * workbench, every `intervalMs`. Each tick queues the fires evaluated since the last one and sends what is due; a tick
 * that finds the previous one still sending does nothing. Timers are unref'd: the loop never keeps a process alive.
 */
import type Database from 'better-sqlite3'
import { type DeliverOptions, type DeliveryReport, deliverDue, queueFires } from './delivery'

export const WORKBENCH_INTERVAL_MS = 5_000

export interface WebhookSenderOptions extends DeliverOptions {
  db: Database.Database
  /** The tick in ms (the service's cadence, or the workbench's interval). */
  tickMs: number
  now?: () => number
  /** Hears each tick's report (the service's log). */
  onReport?: (r: DeliveryReport & { queued: number }) => void
  /** Hears a tick that failed (never sent to a receiver). */
  onError?: (e: unknown) => void
}

export interface WebhookSender {
  /** Runs one tick now (tests, and `webhook deliver`); resolves when it is done. */
  tick(): Promise<DeliveryReport & { queued: number }>
  stop(): Promise<void>
}

export function startWebhookSender(o: WebhookSenderOptions): WebhookSender {
  if (!Number.isInteger(o.tickMs) || o.tickMs <= 0) throw new RangeError('the webhook tick is a whole number of ms > 0')
  const now = o.now ?? Date.now
  let timer: NodeJS.Timeout | null = null
  let running: Promise<DeliveryReport & { queued: number }> | null = null
  let stopped = false

  const once = async () => {
    const t = now()
    const queued = queueFires(o.db, t)
    const r = await deliverDue(o.db, t, o)
    return { ...r, queued }
  }
  const tick = () => {
    if (running) return running
    running = once().finally(() => {
      running = null
    })
    return running
  }
  const arm = () => {
    if (stopped) return
    const t = now()
    const next = Math.ceil((t + 1) / o.tickMs) * o.tickMs
    timer = setTimeout(() => {
      timer = null
      if (!running)
        tick().then(
          (r) => {
            if (r.queued > 0 || r.attempted > 0) o.onReport?.(r)
          },
          (e) => o.onError?.(e)
        )
      arm()
    }, next - t)
    timer.unref()
  }
  arm()
  return {
    tick,
    async stop() {
      stopped = true
      if (timer) clearTimeout(timer)
      timer = null
      if (running) await running.catch(() => undefined)
    }
  }
}
