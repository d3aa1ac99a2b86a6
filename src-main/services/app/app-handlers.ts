import type { AppMethods } from '../../contract/app'
import { UserError } from '../platform/errors'
import type { HandlerMap, ServiceContext } from '../platform/handler-types'
import { LATEST_SCHEMA_VERSION } from '../store/migrations'
import { LOCAL_PRINCIPAL } from '../platform/caller'
import { mayReadJob } from '../accounts/roles'
import { lastSelfCheck, runSelfCheck, validateSelfCheck } from './self-check'
import { MAX_WORKERS, saveWorkerSetting } from './worker-setting'

export const APP_VERSION = '0.1.0'

export function appHandlers(ctx: ServiceContext): HandlerMap<AppMethods> {
  return {
    'app/status': async (_r, caller = LOCAL_PRINCIPAL) => ({
      version: APP_VERSION,
      mode: ctx.mode,
      deployment: ctx.deployment ?? 'workbench',
      // The file's place on the custodian's host is not an account's business.
      ...(caller.accountId === null && ctx.deployment !== 'service' ? { databasePath: ctx.store.path } : {}),
      schemaVersion: ctx.store.schemaVersion(),
      latestSchemaVersion: LATEST_SCHEMA_VERSION,
      pool: ctx.pool.status(),
      lastSelfCheck: lastSelfCheck(ctx.store)
    }),
    // A service account sees and cancels the jobs it started (the custodian: all of them); another's is "no such job".
    'jobs/list': async (_r, caller) => ctx.jobs.list().filter((j) => mayReadJob(caller, ctx.jobs.ownerOf(j.jobId))),
    'jobs/get': async ({ jobId }, caller) => {
      const j = typeof jobId === 'string' && mayReadJob(caller, ctx.jobs.ownerOf(jobId)) ? ctx.jobs.get(jobId) : undefined
      if (!j) throw new UserError('No such job (it may have finished long ago)', 'not-found')
      return j
    },
    'jobs/cancel': async ({ jobId }, caller) => ({
      cancelled: typeof jobId === 'string' && mayReadJob(caller, ctx.jobs.ownerOf(jobId)) && ctx.jobs.cancel(jobId)
    }),
    'diagnostics/self-check': async (req) => {
      const valid = validateSelfCheck(req ?? {})
      const job = ctx.jobs.start('self-check', 'Sampler self-check', 'samples', (jc) => runSelfCheck(ctx.store, ctx.pool, valid, jc))
      return { jobId: job.jobId }
    },
    'app/set-workers': async ({ workers }) => {
      if (!Number.isInteger(workers) || workers < 1 || workers > MAX_WORKERS) {
        throw new UserError(`The worker count must be a whole number from 1 to ${MAX_WORKERS} (got ${String(workers)})`)
      }
      if (ctx.jobs.list().some((j) => j.state === 'running')) {
        throw new UserError('A job is running: wait for it to finish, or cancel it, before changing the worker count', 'busy')
      }
      if (!ctx.resizePool) throw new UserError('The worker count cannot be changed here', 'unsupported')
      await ctx.resizePool(workers)
      saveWorkerSetting(ctx.store, workers)
      return ctx.pool.status()
    },
    // The desktop shell answers these itself (src-main/electron/connection.ts); anywhere else they do not apply.
    'app/connection': async () => desktopOnly(),
    'app/open-workspace': async () => desktopOnly(),
    'app/connect-service': async () => desktopOnly(),
    // The desktop shell answers this one itself (native dialog, src-main/electron/main.ts); reaching the services means
    // there is no dialog to show.
    'app/choose-file': async () => {
      throw new UserError(
        ctx.mode === 'headless'
          ? 'There is no file dialog in the browser: pick the file with the file field and it is uploaded to the service.'
          : 'The file dialog is not available; restart Quiet Alarm and try again.',
        'use-upload'
      )
    }
  }
}

function desktopOnly(): never {
  throw new UserError('Opening a workspace or connecting to a service is done in the desktop app; here the app is already connected', 'unsupported')
}
