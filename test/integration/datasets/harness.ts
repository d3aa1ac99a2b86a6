/**
 * Test harness for the datasets area: a workspace and the datasets handlers with a real store, job registry and
 * event hub, but no worker pool (imports and queries never use it).
 */
import type { Events, EventName, JobInfo, JobProgress } from '../../../src-main/contract'
import { datasetsHandlers } from '../../../src-main/services/datasets/datasets-handlers'
import { storedRows } from '../../../src-main/services/catalog/catalog'
import type { RowsResponse } from '../../../src-main/contract/datasets'
import { EventHub } from '../../../src-main/services/platform/events'
import { FileHandles } from '../../../src-main/services/platform/file-handles'
import type { ImportPathRequest } from '../../../src-main/services/datasets/import-dataset'
import type { ServiceContext } from '../../../src-main/services/platform/handler-types'
import { JobRegistry } from '../../../src-main/services/platform/job-registry'
import type { WorkerPool } from '../../../src-main/services/platform/worker-pool'
import { type Store, openStore } from '../../../src-main/services/store/store'
import { tempWorkspace } from '../helpers'

export interface Harness {
  dir: string
  store: Store
  ctx: ServiceContext
  handlers: ReturnType<typeof datasetsHandlers>
  events: Array<{ name: EventName; payload: Events[EventName] }>
  /** Starts an import of a local file (registered as the desktop dialog would) and waits for its job to finish. */
  importAndWait(req: ImportPathRequest): Promise<JobInfo>
  /** The opaque handle of a local file, as `app/choose-file` or the upload route would give it. */
  file(path: string): string
  progressOf(jobId: string): JobProgress[]
  /** The stored rows of any dataset, read internally (the contract's `datasets/rows` shows public datasets only). */
  storedRows(req: { datasetId: number; offset?: number; limit?: number }): Promise<RowsResponse>
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
  const files = new FileHandles()
  const ctx: ServiceContext = {
    mode: 'headless',
    deployment: 'workbench',
    cadenceMs: null,
    releases: null as unknown as ServiceContext['releases'],
    store,
    jobs,
    events: hub,
    pool: null as unknown as WorkerPool,
    files
  }
  const handlers = datasetsHandlers(ctx)
  return {
    dir: ws.dir,
    store,
    ctx,
    handlers,
    events,
    file: (path) => files.register(path).fileId,
    async importAndWait({ path, sourceName, ...rest }) {
      const { jobId } = await handlers['datasets/import']({ ...rest, fileId: files.register(path, { fileName: sourceName }).fileId })
      const info = await jobs.settled(jobId)
      if (!info) throw new Error('job vanished')
      return info
    },
    storedRows: async (r) => storedRows(store.db, r.datasetId, r.offset ?? 0, r.limit ?? 50),
    progressOf: (jobId) =>
      events.filter((e) => e.name === 'job/progress' && (e.payload as JobProgress).jobId === jobId).map((e) => e.payload as JobProgress),
    tables: () =>
      (store.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{ name: string }>).map((r) => r.name),
    cleanup() {
      jobs.cancelAll()
      store.close()
      ws.cleanup()
    }
  }
}
