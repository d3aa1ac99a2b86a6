import type { z } from 'zod'
import type { JobInfo } from './jobs'
import type { Role } from './accounts'
import type { RequestFromSchema, chooseFileRequestSchema, connectServiceRequestSchema, selfCheckRequestSchema } from './schemas/requests'

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
 * server-side path.
 */
export interface FileHandle {
  fileId: string
  /** The file's own name (no folder), for display and as the default dataset name. */
  fileName: string
  bytes: number
}

/**
 * What the desktop app works on: a workspace file of its own user (the workbench) or a service reached with an account.
 * The desktop shell answers the `app/connection` methods itself; elsewhere they fail with code "unsupported".
 */
export interface ConnectionInfo {
  kind: 'workspace' | 'service' | 'none'
  /** The workbench: the file the app opened (the user's own, so its path is theirs to see). */
  workspace: { fileName: string; path: string } | null
  /** A service: its address and the account the app calls as. */
  service: { origin: string; account: string; roles: Role[]; expiresAt: string | null } | null
  /** Nothing is open: why (one sentence). */
  problem: string | null
}

export type ConnectServiceRequest = z.infer<typeof connectServiceRequestSchema>

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
  /** Desktop: what the app is connected to. */
  'app/connection': { req: RequestFromSchema<'app/connection'>; res: ConnectionInfo }
  /**
   * Desktop: open (or create) a workspace file chosen in the native dialog, in place of what was open; `changed` is false
   * when the user cancels (nothing changes).
   */
  'app/open-workspace': { req: RequestFromSchema<'app/open-workspace'>; res: { connection: ConnectionInfo; changed: boolean } }
  /**
   * Desktop: connect to a service as the credential's account (checked with `accounts/whoami` before anything is
   * replaced: a refusal leaves the current connection as it was).
   */
  'app/connect-service': { req: ConnectServiceRequest; res: ConnectionInfo }
}

export const appMethodNames: Record<keyof AppMethods, true> = {
  'app/status': true,
  'jobs/list': true,
  'jobs/get': true,
  'jobs/cancel': true,
  'diagnostics/self-check': true,
  'app/choose-file': true,
  'app/set-workers': true,
  'app/connection': true,
  'app/open-workspace': true,
  'app/connect-service': true
}
