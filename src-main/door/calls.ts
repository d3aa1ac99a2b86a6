/**
 * What every door does with a call and with the services' events, written once for the HTTP server and the Electron
 * shell:
 * - a call goes to `services.dispatch`, which checks it before any handler runs (`checkRequest`: no parameter may name
 *   a file, and the request must fit its method's schema: one sentence naming the field, nothing written); a door's own
 *   methods (the desktop's native dialogs) get the same check here and take the checked request in place of the services;
 * - events reach the door's sink in the order the services emitted them, and a failing sink never stops the others.
 */
import type { CallOutcome, EventName } from '../contract'
import type { Principal } from '../contract/accounts'
import { checkRequest, type Services } from '../services'

/** A method a door answers itself, after the same check (the desktop's file dialogs). */
export type LocalMethod = (req: unknown) => Promise<CallOutcome<unknown>>

export interface CallDoorOptions {
  /** The services, or null when the workspace could not be opened (every call then gets `unavailable`). */
  services: () => Services | null
  /** The sentence a call gets when there are no services. */
  unavailable: string
  local?: Readonly<Record<string, LocalMethod>>
}

/** `caller`: who calls (a service account); absent, the workbench's local user. */
export type CallDoor = (method: unknown, req: unknown, caller?: Principal) => Promise<CallOutcome<unknown>>

export function callDoor(options: CallDoorOptions): CallDoor {
  return async (method, req, caller) => {
    const local = typeof method === 'string' && options.local && Object.hasOwn(options.local, method) ? options.local[method] : undefined
    if (local) {
      const checked = checkRequest(method, req)
      return checked.ok ? local(checked.req) : { ok: false, error: checked.error }
    }
    const services = options.services()
    if (!services) return { ok: false, error: { message: options.unavailable, code: 'store' } }
    return caller === undefined ? services.dispatch(method, req) : services.dispatch(method, req, caller)
  }
}

/** Hands every services event to `deliver` at once, in emit order. Returns the unsubscribe function. */
export function forwardEvents(services: Services, deliver: (name: EventName, payload: unknown) => void): () => void {
  return services.events.on((name, payload) => {
    try {
      deliver(name, payload)
    } catch (e) {
      process.stderr.write(`event delivery failed: ${(e as Error)?.message ?? String(e)}\n`)
    }
  })
}
