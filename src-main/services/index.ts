/**
 * The composition root: opens the store, starts the worker pool, and merges every area's handlers into the one
 * `Handlers` object that the Electron IPC, the headless HTTP server and the tests all call through `dispatch`.
 */
import type { CallOutcome, MethodName, RequestOf, ResponseOf } from '../contract'
import { isMethodName } from '../contract'
import type { Principal } from '../contract/accounts'
import { accountsHandlers } from './accounts/accounts-handlers'
import { alarmsHandlers } from './alarms/alarms-handlers'
import { type AlarmClock, type AlarmClockOptions, startAlarmClock } from './watch/alarm-clock'
import { AccountGate, type GateOptions } from './accounts/gate'
import { assertPrivateWorkspace } from './accounts/host-hygiene'
import { LOCAL_PRINCIPAL, asCaller } from './platform/caller'
import { appHandlers } from './app/app-handlers'
import { checkRequest, refuseWorkbenchOnlyFields } from './app/request-check'
import { FileHandles } from './platform/file-handles'
import { datasetsHandlers } from './datasets/datasets-handlers'
import { experimentsHandlers } from './experiments/experiments-handlers'
import { ledgerHandlers } from './releases/ledger-handlers'
import { reportsHandlers } from './reports/reports-handlers'
import { ReleaseLane, resolveRunnerScript } from './releases/release-lane'
import { ANSWER_STEP_UNIT_MS } from './releases/release-service'
import { UserError, environmentFailure, isUserError } from './platform/errors'
import { EventHub } from './platform/events'
import type { Handlers, PdfPrinter, ServiceContext } from './platform/handler-types'
import { JobRegistry } from './platform/job-registry'
import { WorkerPool, defaultPoolSize } from './platform/worker-pool'
import { loadWorkerSetting } from './app/worker-setting'
import { projectRoot, resolveWorkerScript } from './platform/worker-script'
import { defaultDatabasePath, openStore } from './store/store'
import { type HeadKeeper, defaultHeadRecordPath, keepHeads } from './ledger/head-record'

/**
 * What the doors (HTTP server, Electron shell, CLI) may use besides `createServices`: the errors they translate, the
 * file handles of the desktop dialog and uploads, the doors' request check (path refusal, then the method's schema), the
 * atomic writer for a saved report, and the PDF printer's shape.
 * eslint.config.mjs (`layers/imports`) keeps the doors to this module, `app/door-guard` and (CLI only) `local`.
 */
export { CancelledError, ReleaseFailedError, UserError, environmentFailure, isUserError } from './platform/errors'
export { FileHandles } from './platform/file-handles'
export { checkRequest } from './app/request-check'
export { writeAtomically } from './reports/build-report'
export { PDF_MARGINS_MM } from './reports/chromium-printer'
export type { PdfOptions, PdfPrinter } from './platform/handler-types'
export { AccountGate } from './accounts/gate'
export { credentialFromFileText } from './accounts/credentials'
export { LOCAL_PRINCIPAL } from './platform/caller'
export type { AuthFailure, AuthResult, SignInResult } from './accounts/gate'
export type { RouteName } from './accounts/roles'

/** The service's public cadence when none is given (ms). */
export const DEFAULT_CADENCE_MS = 250

export interface ServicesOptions {
  mode: 'desktop' | 'headless'
  /** service: the custodian's deployment, every caller an account (ARCHITECTURE.md "Deployments"). Default: workbench. */
  deployment?: 'workbench' | 'service'
  /** The service's public cadence in ms (a multiple of 50 from 50 to 5000; default DEFAULT_CADENCE_MS). */
  cadenceMs?: number
  /** Tests only: a latch the release runner waits on after each charge (release-lane.ts `holdAfterCharge`). */
  testHoldAfterCharge?: Int32Array
  dbPath?: string
  poolSize?: number
  /** Extra environment for the workers (tests turn diagnostics on). */
  workerEnv?: NodeJS.ProcessEnv
  /** The desktop shell passes Electron's printer; headless mode and the CLI leave it to the reports service. */
  pdfPrinter?: PdfPrinter
  /** Sign-in throttling and session lifetimes (tests shorten them). */
  gate?: GateOptions
  /** The service's head record (ledger/head-record.ts; default beside the workspace). */
  headRecord?: string
  /**
   * Evaluate the watching alarms' due periods and send their webhooks on this process's own clock (watch/alarm-clock.ts):
   * the service process and the workbench app turn it on; tests and one-shot commands leave it off. An object: the
   * clock's options (tests: a webhook sender trusting their authority, a shorter check).
   */
  watch?: boolean | Pick<AlarmClockOptions, 'deliver' | 'checkMs' | 'log'>
}

export interface Services {
  context: ServiceContext
  /** Every method in-process, without the role check (the workbench's own calls and tests); `caller` defaults to the local user. */
  handlers: Handlers
  events: EventHub
  /** Sign-in (credentials, sessions) and the role table: the service's doors ask it before `dispatch`. */
  accounts: AccountGate
  call<M extends MethodName>(method: M, req: RequestOf<M>, caller?: Principal): Promise<ResponseOf<M>>
  /**
   * One call from a door: the role check (an account without the method's role gets one sentence, code `forbidden`,
   * and nothing runs), the request check (`checkRequest`: no parameter names a file and the request fits its method's
   * schema, else one sentence, code `bad-input`, and nothing runs), then the handler with the parsed request, as
   * `caller` (default: the workbench's local user, who holds every role). Handlers rely on this check having run.
   */
  dispatch(method: unknown, req: unknown, caller?: Principal): Promise<CallOutcome<unknown>>
  /** The alarm clock when `watch` is on (null otherwise). */
  alarmClock: AlarmClock | null
  close(): Promise<void>
}

/** The service's cadence the options ask for (null in the workbench); one that is not a multiple of 50 ms from 50 to 5000 is refused. */
export function cadenceOf(options: Pick<ServicesOptions, 'deployment' | 'cadenceMs'>): number | null {
  if ((options.deployment ?? 'workbench') === 'workbench') return null
  const ms = options.cadenceMs ?? DEFAULT_CADENCE_MS
  if (!Number.isInteger(ms) || ms < 50 || ms > 5000 || ms % ANSWER_STEP_UNIT_MS !== 0) {
    throw new UserError(`The cadence must be a whole number of milliseconds from 50 to 5000 in steps of 50 (got ${String(ms)})`)
  }
  return ms
}

export function createServices(options: ServicesOptions): Services {
  const cadenceMs = cadenceOf(options)
  const store = openStore(options.dbPath ?? defaultDatabasePath(), { projectRoot: projectRoot() })
  const headRecord =
    options.deployment === 'service' && store.path !== ':memory:' ? (options.headRecord ?? defaultHeadRecordPath(store.path)) : undefined
  let heads: HeadKeeper | null = null
  // The service holds the raw rows for its analysts: it does not start on a workspace other users of the host can read.
  if (options.deployment === 'service' && store.path !== ':memory:') {
    try {
      assertPrivateWorkspace(store.path)
      heads = keepHeads(store.db, store.path, headRecord!)
    } catch (e) {
      store.close()
      throw e
    }
  }
  const events = new EventHub()
  const script = resolveWorkerScript({ ...process.env, ...options.workerEnv })
  let pool: WorkerPool
  try {
    pool = new WorkerPool(script, options.poolSize ?? loadWorkerSetting(store) ?? defaultPoolSize())
  } catch (e) {
    store.close()
    throw e
  }
  const jobs = new JobRegistry(events, { cadenceMs })
  const gate = new AccountGate(store.db, options.gate, (jobId) => jobs.ownerOf(jobId))
  const releases = new ReleaseLane({
    db: store.db,
    dbPath: store.path,
    projectRoot: projectRoot(),
    script: resolveRunnerScript({ ...process.env, ...options.workerEnv }),
    cadenceMs,
    holdAfterCharge: options.testHoldAfterCharge,
    headRecord
  })
  const context: ServiceContext = {
    mode: options.mode,
    deployment: options.deployment ?? 'workbench',
    cadenceMs,
    releases,
    store,
    pool,
    jobs,
    events,
    pdfPrinter: options.pdfPrinter,
    files: new FileHandles(),
    gate,
    onClose: []
  }
  context.resizePool = async (size) => {
    const old = context.pool
    context.pool = new WorkerPool(script, size)
    await old.shutdown()
  }
  const impl: Handlers = {
    ...appHandlers(context),
    ...datasetsHandlers(context),
    ...ledgerHandlers(context),
    ...experimentsHandlers(context),
    ...reportsHandlers(context),
    ...accountsHandlers(context),
    ...alarmsHandlers(context)
  }
  const run = (method: MethodName, req: unknown, caller: Principal): Promise<unknown> =>
    asCaller(caller, () => (impl[method] as (r: unknown, c: Principal) => Promise<unknown>)(req, caller))
  const handlers = Object.fromEntries(
    (Object.keys(impl) as MethodName[]).map((m) => [m, (req: unknown, caller: Principal = LOCAL_PRINCIPAL) => run(m, req, caller)])
  ) as Handlers

  async function dispatch(method: unknown, req: unknown, caller: Principal = LOCAL_PRINCIPAL): Promise<CallOutcome<unknown>> {
    if (!isMethodName(method)) return { ok: false, error: { message: `Unknown method "${String(method).slice(0, 60)}"`, code: 'unknown-method' } }
    const allowed = gate.authorize(caller, method)
    if (!allowed.ok) return allowed
    const checked = checkRequest(method, req)
    if (!checked.ok) return { ok: false, error: checked.error }
    const notYours = refuseWorkbenchOnlyFields(method, checked.req, caller)
    if (notYours) return { ok: false, error: notYours }
    try {
      const value = await run(method, checked.req, caller)
      return { ok: true, value }
    } catch (e) {
      if (isUserError(e)) return { ok: false, error: { message: e.message, code: e.code } }
      const env = environmentFailure(e)
      if (env !== null) return { ok: false, error: { message: env.message, code: env.code } }
      // Unexpected: log the stack locally, give the caller one neutral sentence (no data in it).
      process.stderr.write(`${method} failed: ${(e as Error)?.stack ?? String(e)}\n`)
      return { ok: false, error: { message: 'An internal error occurred; the details are in the application log', code: 'internal' } }
    }
  }

  // The alarms evaluate on this process's clock (a second connection: not for an in-memory workspace).
  const watch = options.watch && store.path !== ':memory:' ? (options.watch === true ? {} : options.watch) : null
  const alarmClock = watch
    ? startAlarmClock({
        db: store.db,
        dbPath: store.path,
        projectRoot: projectRoot(),
        cadenceMs,
        emit: (e) => events.emit(e.name, e.payload),
        log: (line) => process.stderr.write(`${line}\n`),
        ...watch
      })
    : null

  return {
    context,
    handlers,
    events,
    alarmClock,
    accounts: gate,
    call: (method, req, caller = LOCAL_PRINCIPAL) => {
      const allowed = gate.authorize(caller, method)
      if (!allowed.ok) return Promise.reject(new UserError(allowed.error.message, allowed.error.code))
      return run(method, req, caller) as Promise<never>
    },
    dispatch,
    async close() {
      await alarmClock?.stop()
      jobs.cancelAll()
      await releases.close()
      await context.pool.shutdown()
      heads?.stop()
      store.close()
      // Temporary files (report exports, officer editions included; uploads) go with the services.
      context.files?.closeAll()
      for (const f of context.onClose ?? []) {
        try {
          f()
        } catch (e) {
          process.stderr.write(`cleanup failed: ${(e as Error)?.message ?? String(e)}\n`)
        }
      }
    }
  }
}
