/**
 * The services' side of the release runner (release-runner.ts): releases go to that thread one at a time, in the
 * order they were asked, and nothing else waits for them.
 *
 * - Workbench (`cadenceMs` null): a release's record is handed over the moment it is stored.
 * - Service: answer times are recorded in whole cadences after the charge, and the record (or the failure of a charged
 *   release) is handed over at that time, never at the run's end; the next release starts no earlier (its charge time
 *   would otherwise tell the previous run's end). So how long a release call takes, and when anything about it shows
 *   (releases/list hides the answer until then), tells the analyst the run time in whole cadences only. The socket
 *   cadence (src-main/door/cadence.ts) then hands every byte over at a tick.
 *
 * A runner lost mid-release (crash, out of memory) fails that release with the neutral failure; the next release
 * starts a new runner.
 */
import { Worker } from 'node:worker_threads'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type Database from 'better-sqlite3'
import type { ErrorCode } from '../../contract/error-codes'
import type { ReleaseRecord, ReleaseRequest } from '../../contract/ledger'
import { ReleaseFailedError, UserError } from '../platform/errors'
import type { Principal } from '../../contract/accounts'
import { LOCAL_PRINCIPAL } from '../platform/caller'
import type { ReleaseView, Releases } from '../platform/handler-types'
import { ANSWER_STEP_MS, NEUTRAL_FAILURE, failCharged } from './release-service'

/** What the runner is started with. */
export interface RunnerData {
  dbPath: string
  projectRoot?: string
  /** [0]: the id of the release being answered (0: none). */
  flight: Int32Array
  answerStepMs: number
  /** The service: releases on a dataset with a public answer time are answered at it (answer-time.ts). */
  answerTimes: boolean
  /** Tests only: a latch the runner waits on after each charge ([0] 1 while it waits; set it to 0 and notify to go on). */
  holdAfterCharge?: Int32Array
  /** The service's head record, moved forward after each charge (ledger/head-record.ts). */
  headRecord?: string
}

export interface RunnerRequest {
  id: number
  req: ReleaseRequest
  /** Who asks (the runner runs the release as this caller: the ledger names the account, admission checks its budget). */
  caller: Principal
}

export type RunnerReply =
  { id: number; ok: true; record: ReleaseRecord } | { id: number; ok: false; message: string | null; code: ErrorCode; releaseId?: number }

export interface RunnerScript {
  path: string
  execArgv?: string[]
  env?: NodeJS.ProcessEnv
}

/** The runner's entry for the running build: the bundled `release-runner.js`, or the TypeScript source through tsx. */
export function resolveRunnerScript(env: NodeJS.ProcessEnv = process.env): RunnerScript {
  const here = fileURLToPath(import.meta.url)
  if (here.endsWith('.ts')) return { path: join(dirname(here), 'release-runner-from-source.cjs'), execArgv: [], env }
  for (const candidate of [join(dirname(here), 'release-runner.js'), join(dirname(here), '..', 'release-runner.js')]) {
    if (existsSync(candidate)) return { path: candidate, execArgv: [], env }
  }
  throw new Error(`The release runner bundle (release-runner.js) was not found next to ${here}; run "npm run build"`)
}

export interface ReleaseLaneOptions {
  /** The services' own connection (to show releases, and to fail one whose runner was lost). */
  db: Database.Database
  dbPath: string
  projectRoot?: string
  script: RunnerScript
  /** The service's public cadence; null in the workbench. */
  cadenceMs: number | null
  holdAfterCharge?: Int32Array
  headRecord?: string
}

interface Pending {
  resolve: (r: RunnerReply) => void
  reject: (e: Error) => void
}

/** Waits until an ISO time (a release's recorded answer time). */
async function until(iso: string | null | undefined): Promise<void> {
  const at = iso ? Date.parse(iso) : NaN
  // A timer may fire a millisecond early by the wall clock: wait again until the time has really come.
  for (let ms = at - Date.now(); ms > 0; ms = at - Date.now()) await new Promise((resolve) => setTimeout(resolve, ms))
}

export class ReleaseLane implements Releases {
  readonly view: ReleaseView
  private worker: Worker | null = null
  private readonly pending = new Map<number, Pending>()
  private nextId = 1
  private tail: Promise<unknown> = Promise.resolve()
  private readonly flight = new Int32Array(new SharedArrayBuffer(4))
  private closed = false
  private readonly stepMs: number
  /** Releases asked and not yet settled (the one running included). */
  private asked = 0
  private active = 0

  constructor(private readonly options: ReleaseLaneOptions) {
    this.stepMs = options.cadenceMs ?? ANSWER_STEP_MS
    const flight = this.flight
    this.view = {
      running: (db, id) => db === options.db && id > 0 && Atomics.load(flight, 0) === id,
      hideUntilAnswerTime: options.cadenceMs !== null
    }
  }

  /** Runs one release on the runner after those asked before it; resolves with its record, or rejects as `runRelease` throws. */
  run(req: ReleaseRequest, caller: Principal = LOCAL_PRINCIPAL): Promise<ReleaseRecord> {
    this.asked++
    const turn = this.tail.then(async () => {
      this.active++
      try {
        return await this.runOne(req, caller)
      } finally {
        this.active--
        this.asked--
      }
    })
    this.tail = turn.catch(() => undefined)
    return turn
  }

  load(): { running: number; queued: number } {
    return { running: this.active, queued: this.asked - this.active }
  }

  async close(): Promise<void> {
    this.closed = true
    const w = this.worker
    this.worker = null
    if (w) {
      this.lost(w, 'The services are closing')
      await w.terminate()
    }
  }

  private async runOne(req: ReleaseRequest, caller: Principal): Promise<ReleaseRecord> {
    const reply = await this.send(req, caller)
    if (reply.ok) {
      if (this.options.cadenceMs !== null) await until(reply.record.answeredAt)
      return reply.record
    }
    if (reply.releaseId !== undefined) {
      if (this.options.cadenceMs !== null) await until(this.answeredAt(reply.releaseId))
      throw new ReleaseFailedError(reply.releaseId, NEUTRAL_FAILURE)
    }
    if (reply.message === null) throw new Error('the release runner failed (see its log above)')
    throw new UserError(reply.message, reply.code)
  }

  private answeredAt(releaseId: number): string | null {
    const row = this.options.db.prepare('SELECT answered_at FROM releases WHERE id = ?').get(releaseId) as { answered_at: string | null } | undefined
    return row?.answered_at ?? null
  }

  private send(req: ReleaseRequest, caller: Principal): Promise<RunnerReply> {
    if (this.closed) return Promise.reject(new Error('The services are closed'))
    const w = this.runner()
    const id = this.nextId++
    return new Promise<RunnerReply>((resolve, reject) => {
      this.pending.set(id, { resolve, reject })
      w.ref()
      w.postMessage({ id, req, caller } satisfies RunnerRequest)
    })
  }

  private runner(): Worker {
    if (this.worker) return this.worker
    const data: RunnerData = {
      dbPath: this.options.dbPath,
      projectRoot: this.options.projectRoot,
      flight: this.flight,
      answerStepMs: this.stepMs,
      answerTimes: this.options.cadenceMs !== null,
      holdAfterCharge: this.options.holdAfterCharge,
      headRecord: this.options.headRecord
    }
    const { script } = this.options
    const w = new Worker(script.path, { workerData: data, execArgv: script.execArgv, env: script.env ?? process.env })
    w.unref()
    w.on('message', (m: RunnerReply | { ready: true }) => {
      if (!('id' in m)) return
      const p = this.pending.get(m.id)
      this.pending.delete(m.id)
      if (this.pending.size === 0) w.unref()
      p?.resolve(m)
    })
    let lastError = ''
    w.on('error', (e) => (lastError = e instanceof Error ? e.message : String(e)))
    w.on('exit', (code) => {
      if (this.worker === w) this.worker = null
      this.lost(w, `the release runner stopped${lastError ? ` (${lastError})` : ` (exit code ${code})`}`)
    })
    this.worker = w
    return w
  }

  /**
   * The runner is gone with requests pending: a release it had charged fails with the neutral failure (its charge
   * stays), any other request fails before anything was charged.
   */
  private lost(w: Worker, reason: string): void {
    if (this.pending.size === 0) return
    const releaseId = Atomics.exchange(this.flight, 0, 0)
    const row =
      releaseId > 0
        ? (this.options.db.prepare(`SELECT created_at, status FROM releases WHERE id = ?`).get(releaseId) as
            { created_at: string; status: string } | undefined)
        : undefined
    const pending = [...this.pending.values()]
    this.pending.clear()
    w.unref()
    if (row?.status === 'charged') {
      failCharged(this.options.db, releaseId, row.created_at, this.stepMs)
      for (const p of pending) p.resolve({ id: 0, ok: false, message: NEUTRAL_FAILURE, code: 'release-failed', releaseId })
      return
    }
    process.stderr.write(`release runner: ${reason}\n`)
    for (const p of pending) p.reject(new Error(reason))
  }
}
