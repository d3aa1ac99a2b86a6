import type { z } from 'zod'
import type { JobInfo } from './jobs'
import type { RequestFromSchema, chooseFileRequestSchema, selfCheckRequestSchema } from './schemas/requests'

export type PoolState = 'idle' | 'busy' | 'stopped'

export interface PoolStatus {
  size: number
  busy: number
  queuedBatches: number
  state: PoolState
  /** Workers replaced after crashing since start. */
  restarts: number
}

export interface AppStatus {
  version: string
  mode: 'desktop' | 'headless'
  /** workbench: the user's own workspace; service: a custodian's service, reached with an account. */
  deployment: 'workbench' | 'service'
  /** The workspace file: the workbench's own user only (a service account never receives a server-side path). */
  databasePath?: string
  schemaVersion: number
  latestSchemaVersion: number
  pool: PoolStatus
  /** The last sampler self-check recorded in this workspace, if any. */
  lastSelfCheck: SelfCheckResult | null
}

/** Batches sent to the pool (spread over the workers) and Laplace samples per batch. */
export type SelfCheckRequest = z.infer<typeof selfCheckRequestSchema>

export interface SelfCheckResult {
  at: string
  samples: number
  batches: number
  workersUsed: number
  /** Kolmogorov-Smirnov distance of the pooled seeded Laplace samples and its critical value at alpha = 1e-3. */
  ksDistance: number
  ksCritical: number
  passed: boolean
}

/** The desktop open dialog's title and file type filters. */
export type ChooseFileRequest = z.infer<typeof chooseFileRequestSchema>

/**
 * A file the user chose (desktop: the native open dialog in the main process) or uploaded (headless: `POST /api/upload`),
 * referred to by an opaque, random id. The path stays in the main process / the server: no contract method takes a
 * server-side path (issue 15).
 */
export interface FileHandle {
  fileId: string
  /** The file's own name (no folder), for display and as the default dataset name. */
  fileName: string
  bytes: number
}

export interface AppMethods {
  'app/status': { req: RequestFromSchema<'app/status'>; res: AppStatus }
  'jobs/list': { req: RequestFromSchema<'jobs/list'>; res: JobInfo[] }
  'jobs/get': { req: RequestFromSchema<'jobs/get'>; res: JobInfo }
  'jobs/cancel': { req: RequestFromSchema<'jobs/cancel'>; res: { cancelled: boolean } }
  /** Runs a sampler self-check on the worker pool and records it in the workspace. */
  'diagnostics/self-check': { req: SelfCheckRequest; res: { jobId: string } }
  /**
   * Desktop: the Electron shell shows a native open dialog and returns a handle to the chosen file (null when the user
   * cancels); the path never leaves the main process. Headless: fails with code "use-upload": the browser uploads the
   * file instead (`POST /api/upload`, which answers with the same `FileHandle`).
   */
  'app/choose-file': { req: ChooseFileRequest; res: { file: FileHandle | null } }
  /**
   * Sets the number of worker threads now (only while no job runs) and remembers it in the workspace for the next start
   * (a `--workers N` given at start still wins for that session).
   */
  'app/set-workers': { req: RequestFromSchema<'app/set-workers'>; res: PoolStatus }
}

export const appMethodNames: Record<keyof AppMethods, true> = {
  'app/status': true,
  'jobs/list': true,
  'jobs/get': true,
  'jobs/cancel': true,
  'diagnostics/self-check': true,
  'app/choose-file': true,
  'app/set-workers': true
}
