/**
 * The typed API between the UI and the backend: one map of method name -> { req, res }, and one map of events.
 * The Electron preload, the headless HTTP server and the renderer client all check against these types, and
 * `methodNames` is the run-time list both transports accept (nothing else can be called).
 *
 * Each area declares its own methods in `contract/<area>.ts`; this file merges them.
 */
import type { AppMethods } from './contract/app'
import type { JobInfo, JobProgress } from './contract/jobs'

export type * from './contract/app'
export type * from './contract/jobs'

export type Methods = AppMethods

export type MethodName = keyof Methods
export type RequestOf<M extends MethodName> = Methods[M]['req']
export type ResponseOf<M extends MethodName> = Methods[M]['res']

export interface Events {
  'job/progress': JobProgress
  'job/state': JobInfo
}
export type EventName = keyof Events

/** Every method, at run time. The type forces this list to stay complete. */
const methodNameSet: Record<MethodName, true> = {
  'app/status': true,
  'jobs/list': true,
  'jobs/get': true,
  'jobs/cancel': true,
  'diagnostics/self-check': true
}
export const methodNames = Object.freeze(Object.keys(methodNameSet)) as readonly MethodName[]

export function isMethodName(x: unknown): x is MethodName {
  return typeof x === 'string' && Object.prototype.hasOwnProperty.call(methodNameSet, x)
}

export const eventNames: readonly EventName[] = ['job/progress', 'job/state']

/** What every transport returns for a call. */
export type CallOutcome<T> = { ok: true; value: T } | { ok: false; error: { message: string; code: string } }

/** The object the Electron preload exposes as `window.quietAlarm`, and nothing more. */
export interface QuietAlarmBridge {
  call(method: MethodName, req: unknown): Promise<CallOutcome<unknown>>
  onEvent(listener: (name: EventName, payload: unknown) => void): () => void
}
