/**
 * Test harness for the datasets area: a workspace and the datasets handlers with a real store, job registry and
 * event hub, but no worker pool (imports and queries never use it).
 */
import type { Events, EventName, JobInfo, JobProgress } from '../../../src-main/contract'
import { datasetsHandlers } from '../../../src-main/services/datasets/datasets-handlers'
import { EventHub } from '../../../src-main/services/events'
import type { ServiceContext } from '../../../src-main/services/handler-types'
import { JobRegistry } from '../../../src-main/services/jobs/job-registry'
import type { WorkerPool } from '../../../src-main/services/pool/worker-pool'
import { type Store, openStore } from '../../../src-main/services/store/store'
import { tempWorkspace } from '../helpers'

export interface Harness {
  dir: string
  store: Store
  ctx: ServiceContext
  handlers: ReturnType<typeof datasetsHandlers>
  events: Array<{ name: EventName; payload: Events[EventName] }>
  /** Starts an import and waits for its job to finish. */
  importAndWait(req: Parameters<ReturnType<typeof datasetsHandlers>['datasets/import']>[0]): Promise<JobInfo>
  progressOf(jobId: string): JobProgress[]
  /** Tables of the workspace database (sqlite_master). */
  tables(): string[]
  cleanup(): void
}

export function harness(): Harness {
  const ws = tempWorkspace('qa-datasets-')
  const store = openStore(ws.db)
  const hub = new EventHub()
  const events: Harness['events'] = []
  hub.on((name, payload) => events.push({ name, payload }))
  const jobs = new JobRegistry(hub)
  const ctx: ServiceContext = { mode: 'headless', store, jobs, events: hub, pool: null as unknown as WorkerPool }
  const handlers = datasetsHandlers(ctx)
  return {
    dir: ws.dir,
    store,
    ctx,
    handlers,
    events,
    async importAndWait(req) {
      const { jobId } = await handlers['datasets/import'](req)
      const info = await jobs.settled(jobId)
      if (!info) throw new Error('job vanished')
      return info
    },
    progressOf: (jobId) => events.filter((e) => e.name === 'job/progress' && (e.payload as JobProgress).jobId === jobId).map((e) => e.payload as JobProgress),
    tables: () => (store.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{ name: string }>).map((r) => r.name),
    cleanup() {
      jobs.cancelAll()
      store.close()
      ws.cleanup()
    }
  }
}
