/**
 * The typed API between the UI and the backend: one map of method name -> { req, res }, and one map of events.
 * The Electron preload, the headless HTTP server and the renderer client all check against these types, and
 * `methodNames` is the run-time list both transports accept (nothing else can be called).
 *
 * Each area declares its own methods in `contract/<area>.ts`; this file merges them.
 */
import { type AccountMethods, accountsMethodNames } from './contract/accounts'
import { type AlarmEvents, type AlarmMethods, alarmEventNames, alarmsMethodNames } from './contract/alarms'
import { type AppMethods, appMethodNames } from './contract/app'
import { type DatasetMethods, datasetsMethodNames } from './contract/datasets'
import { type ExperimentMethods, experimentsMethodNames } from './contract/experiments'
import type { JobInfo, JobProgress } from './contract/jobs'
import { type LedgerMethods, ledgerMethodNames } from './contract/ledger'
import { type ReportMethods, reportsMethodNames } from './contract/reports'
import type { ErrorCode } from './contract/error-codes'
import type { RequestSchemas } from './contract/schemas/requests'

export type * from './contract/accounts'
export type * from './contract/alarms'
export type * from './contract/app'
export type * from './contract/datasets'
export type * from './contract/experiments'
export type * from './contract/jobs'
export type * from './contract/ledger'
export type * from './contract/reports'
export type * from './contract/release-kinds'
export type { ErrorCode } from './contract/error-codes'

export type Methods = AppMethods & DatasetMethods & LedgerMethods & ExperimentMethods & ReportMethods & AccountMethods & AlarmMethods

export type MethodName = keyof Methods
export type RequestOf<M extends MethodName> = Methods[M]['req']

/** Compile-time: the request schemas (contract/schemas/requests.ts) cover exactly the contract's methods. */
type SameKeys<A, B> = [Exclude<keyof A, keyof B>, Exclude<keyof B, keyof A>] extends [never, never] ? true : never
export const requestSchemasCoverTheContract: SameKeys<RequestSchemas, Methods> = true
export type ResponseOf<M extends MethodName> = Methods[M]['res']

export interface Events extends AlarmEvents {
  'job/progress': JobProgress
  'job/state': JobInfo
}
export type EventName = keyof Events

/** Every method, at run time. The type forces this list to stay complete (each area keeps its own list). */
const methodNameSet: Record<MethodName, true> = {
  ...appMethodNames,
  ...datasetsMethodNames,
  ...ledgerMethodNames,
  ...experimentsMethodNames,
  ...reportsMethodNames,
  ...accountsMethodNames,
  ...alarmsMethodNames
}
export const methodNames = Object.freeze(Object.keys(methodNameSet)) as readonly MethodName[]

export function isMethodName(x: unknown): x is MethodName {
  return typeof x === 'string' && Object.prototype.hasOwnProperty.call(methodNameSet, x)
}

export const eventNames: readonly EventName[] = ['job/progress', 'job/state', ...(Object.keys(alarmEventNames) as EventName[])]

/** What every transport returns for a call. */
export type CallOutcome<T> = { ok: true; value: T } | { ok: false; error: { message: string; code: ErrorCode } }

/** The object the Electron preload exposes as `window.quietAlarm`, and nothing more. */
export interface QuietAlarmBridge {
  call(method: MethodName, req: unknown): Promise<CallOutcome<unknown>>
  onEvent(listener: (name: EventName, payload: unknown) => void): () => void
}
