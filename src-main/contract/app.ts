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

export interface AppMethods {
  'app/status': { req: Record<string, never>; res: AppStatus }
  'jobs/list': { req: Record<string, never>; res: JobInfo[] }
  'jobs/get': { req: { jobId: string }; res: JobInfo }
  'jobs/cancel': { req: { jobId: string }; res: { cancelled: boolean } }
  /** Runs a sampler self-check on the worker pool and records it in the workspace. */
  'diagnostics/self-check': { req: SelfCheckRequest; res: { jobId: string } }
  /**
   * Desktop: the Electron shell shows a native open dialog and returns the chosen path (null when the user cancels).
   * Headless: fails with code "use-upload": the browser must upload the file instead (`/api/upload`).
   */
  'app/choose-file': { req: ChooseFileRequest; res: { path: string | null } }
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
