import type Database from 'better-sqlite3'
import type { MethodName, Methods } from '../../contract'
import type { FileHandles } from './file-handles'
import type { Principal } from '../../contract/accounts'
import type { EventHub } from './events'
import type { JobRegistry } from './job-registry'
import type { WorkerPool } from './worker-pool'
import type { ReleaseRecord, ReleaseRequest } from '../../contract/ledger'

/**
 * Handlers of one area: each method of its contract map, request in, response out. `caller` is who calls (the role
 * table has already allowed it): a service account whose view a handler narrows, or, when absent, the workbench's
 * local user (`LOCAL_PRINCIPAL`, every role: in-process calls and tests).
 */
export type HandlerMap<M extends Partial<Record<MethodName, { req: unknown; res: unknown }>>> = {
  [K in keyof M]: M[K] extends { req: infer Q; res: infer R } ? (req: Q, caller?: Principal) => Promise<R> : never
}

export type Handlers = HandlerMap<Methods>

export interface PdfOptions {
  pageSize: 'A4' | 'Letter'
  /** Footer HTML (Chromium's header/footer template: may use <span class="pageNumber"> and <span class="totalPages">). */
  footerHtml?: string
}

/** Prints one self-contained HTML document to PDF: Electron's printToPDF on the desktop, headless Chromium elsewhere. */
export interface PdfPrinter {
  readonly name: string
  print(html: string, options: PdfOptions): Promise<Uint8Array>
}

/** An open workspace file (store/store.ts opens one: WAL, foreign keys on, migrated). */
export interface Store {
  readonly db: Database.Database
  readonly path: string
  /** When this open migrated the workspace: from and to which schema, and where the copy as it was is kept (null: a new workspace). */
  readonly migrated?: { from: number; to: number; copy: string | null }
  schemaVersion(): number
  close(): void
}

/**
 * How `releases/list` and `releases/get` show a release: which charged releases are still being answered (inline on
 * this thread, or on the release runner: releases/release-lane.ts), and whether an answer stored before its recorded
 * answer time is shown as still running until then (the service, where the analyst must not see the run's end).
 */
export interface ReleaseView {
  running(db: Database.Database, releaseId: number): boolean
  hideUntilAnswerTime: boolean
}

/** How the services run releases and show them (releases/release-lane.ts; tests may run them inline). */
export interface Releases {
  /** Runs a release as `caller` (default: the workbench's local user). */
  run(req: ReleaseRequest, caller?: Principal): Promise<ReleaseRecord>
  readonly view: ReleaseView
  /** How many releases are being answered now, and how many wait for a turn (the custodian's metrics). */
  load(): { running: number; queued: number }
}

/** What every area's handlers are built from. */
export interface ServiceContext {
  mode: 'desktop' | 'headless'
  /** workbench (absent): the user's own workspace, every role; service: the custodian's deployment, every caller an account over TLS. */
  deployment?: 'workbench' | 'service'
  /**
   * The service's public cadence in ms (a multiple of 50); null in the workbench. Analysts see every response and event
   * only at its ticks, and release answers in whole cadences after their charge.
   */
  cadenceMs: number | null
  /** Releases run whole on a thread of their own, one at a time (releases/release-lane.ts). */
  releases: Releases
  store: Store
  pool: WorkerPool
  jobs: JobRegistry
  events: EventHub
  /** Set by the Electron shell; when absent, reports use headless Chromium. */
  pdfPrinter?: PdfPrinter
  /** Replaces the worker pool with one of this size (callers make sure no job is running). */
  resizePool?: (size: number) => Promise<void>
  /** Files chosen in the desktop dialog or uploaded, by opaque id (no contract method takes a path). Created on first use. */
  files?: FileHandles
  /** The service's sign-in (accounts/gate.ts): a revocation ends the account's sessions at once. */
  gate?: { endSessionsOf(accountId: number): void }
  /** Run when the services close (temporary files of reports, uploads). */
  onClose?: Array<() => void>
}
