/**
 * The composition root: opens the store, starts the worker pool, and merges every area's handlers into the one
 * `Handlers` object that the Electron IPC, the headless HTTP server and the tests all call through `dispatch`.
 */
import type { CallOutcome, MethodName, RequestOf, ResponseOf } from '../contract'
import { isMethodName } from '../contract'
import { appHandlers } from './app/app-handlers'
import { FileHandles } from './platform/file-handles'
import { datasetsHandlers } from './datasets/datasets-handlers'
import { experimentsHandlers } from './experiments/experiments-handlers'
import { ledgerHandlers } from './releases/ledger-handlers'
import { reportsHandlers } from './reports/reports-handlers'
import { afterPaddedAnswers } from './releases/release-service'

/** The doors hold what they do after a release's run until its padded answer time (release-service.ts). */
export { afterPaddedAnswers }
import { isUserError } from './platform/errors'
import { EventHub } from './platform/events'
import type { Handlers, PdfPrinter, ServiceContext } from './platform/handler-types'
import { JobRegistry } from './platform/job-registry'
import { WorkerPool, defaultPoolSize } from './platform/worker-pool'
import { loadWorkerSetting } from './app/worker-setting'
import { projectRoot, resolveWorkerScript } from './platform/worker-script'
import { defaultDatabasePath, openStore } from './store/store'

/**
 * What the doors (HTTP server, Electron shell, CLI) may use besides `createServices`: the errors they translate, the
 * file handles of the desktop dialog and uploads, the doors' request check (path refusal, then the method's schema), the
 * atomic writer for a saved report, and the PDF printer's shape.
 * eslint.config.mjs (`layers/imports`) keeps the doors to this module, `app/door-guard` and (CLI only) `local`.
 */
export { CancelledError, ReleaseFailedError, UserError, isUserError } from './platform/errors'
export { FileHandles } from './platform/file-handles'
export { checkRequest } from './app/request-check'
export { writeAtomically } from './reports/build-report'
export { PDF_MARGINS_MM } from './reports/chromium-printer'
export type { PdfOptions, PdfPrinter } from './platform/handler-types'

export interface ServicesOptions {
  mode: 'desktop' | 'headless'
  dbPath?: string
  poolSize?: number
  /** Extra environment for the workers (tests turn diagnostics on). */
  workerEnv?: NodeJS.ProcessEnv
  /** The desktop shell passes Electron's printer; headless mode and the CLI leave it to the reports service. */
  pdfPrinter?: PdfPrinter
}

export interface Services {
  context: ServiceContext
  handlers: Handlers
  events: EventHub
  call<M extends MethodName>(method: M, req: RequestOf<M>): Promise<ResponseOf<M>>
  dispatch(method: unknown, req: unknown): Promise<CallOutcome<unknown>>
  close(): Promise<void>
}

export function createServices(options: ServicesOptions): Services {
  const store = openStore(options.dbPath ?? defaultDatabasePath(), { projectRoot: projectRoot() })
  const events = new EventHub()
  const script = resolveWorkerScript({ ...process.env, ...options.workerEnv })
  let pool: WorkerPool
  try {
    pool = new WorkerPool(script, options.poolSize ?? loadWorkerSetting(store) ?? defaultPoolSize())
  } catch (e) {
    store.close()
    throw e
  }
  const jobs = new JobRegistry(events)
  const context: ServiceContext = {
    mode: options.mode,
    store,
    pool,
    jobs,
    events,
    pdfPrinter: options.pdfPrinter,
    files: new FileHandles(),
    onClose: []
  }
  context.resizePool = async (size) => {
    const old = context.pool
    context.pool = new WorkerPool(script, size)
    await old.shutdown()
  }
  const handlers: Handlers = {
    ...appHandlers(context),
    ...datasetsHandlers(context),
    ...ledgerHandlers(context),
    ...experimentsHandlers(context),
    ...reportsHandlers(context)
  }

  async function dispatch(method: unknown, req: unknown): Promise<CallOutcome<unknown>> {
    if (!isMethodName(method)) return { ok: false, error: { message: `Unknown method "${String(method).slice(0, 60)}"`, code: 'unknown-method' } }
    try {
      // A request that arrived while a release ran is handled at the release's padded answer time, not at the run's end.
      await afterPaddedAnswers()
      const fn = handlers[method] as (r: unknown) => Promise<unknown>
      const value = await fn(req ?? {})
      return { ok: true, value }
    } catch (e) {
      if (isUserError(e)) return { ok: false, error: { message: e.message, code: e.code } }
      // Unexpected: log the stack locally, give the caller one neutral sentence (no data in it).
      process.stderr.write(`${method} failed: ${(e as Error)?.stack ?? String(e)}\n`)
      return { ok: false, error: { message: 'An internal error occurred; the details are in the application log', code: 'internal' } }
    }
  }

  return {
    context,
    handlers,
    events,
    call: (method, req) => (handlers[method] as (r: unknown) => Promise<never>)(req),
    dispatch,
    async close() {
      jobs.cancelAll()
      await context.pool.shutdown()
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
