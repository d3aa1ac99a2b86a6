import type { EventName, Events } from '../../contract'

export type EventListener = <E extends EventName>(name: E, payload: Events[E]) => void

/** Fan-out of contract events to the transports (IPC, HTTP event stream) and to in-process listeners. */
export class EventHub {
  private listeners = new Set<EventListener>()

  on(listener: EventListener): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  emit<E extends EventName>(name: E, payload: Events[E]): void {
    for (const l of this.listeners) {
      try {
        l(name, payload)
      } catch {
        /* one broken listener must not stop the others */
      }
    }
  }
}
