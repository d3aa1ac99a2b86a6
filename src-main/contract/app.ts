import type { JobInfo } from './jobs'

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
  databasePath: string
  schemaVersion: number
  latestSchemaVersion: number
  pool: PoolStatus
  /** The last sampler self-check recorded in this workspace, if any. */
  lastSelfCheck: SelfCheckResult | null
}

export interface SelfCheckRequest {
  /** Batches sent to the pool (spread over the workers). */
  batches?: number
  /** Laplace samples per batch. */
  samplesPerBatch?: number
}

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

export interface ChooseFileRequest {
  /** Dialog title (default "Choose a file"). */
  title?: string
  /** File type filters, e.g. [{ name: 'CSV and TSV', extensions: ['csv', 'tsv', 'txt'] }]. */
  filters?: Array<{ name: string; extensions: string[] }>
}

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
  'app/status': { req: Record<string, never>; res: AppStatus }
  'jobs/list': { req: Record<string, never>; res: JobInfo[] }
  'jobs/get': { req: { jobId: string }; res: JobInfo }
  'jobs/cancel': { req: { jobId: string }; res: { cancelled: boolean } }
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
  'app/set-workers': { req: { workers: number }; res: PoolStatus }
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
