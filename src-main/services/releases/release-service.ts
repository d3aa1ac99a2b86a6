/**
 * Releases: validate -> admission -> charge + release row in ONE transaction -> run with the secure generator -> store
 * the answer. A crash between the charge and the answer loses the answer, never the accounting: the release then shows
 * "charged, no answer: interrupted".
 *
 * There is no seed anywhere on this path: `runRelease` creates `SecureRandom.create()` itself, and `executePrepared`
 * (the internal runner) refuses any other generator.
 */
import { callingAccount } from '../platform/caller'
import type Database from 'better-sqlite3'
import type { ExPostCosts, ReleasePreview, ReleaseRecord, ReleaseRequest, ReleaseStatus, ReleaseAnswer, PrivacyNotion } from '../../contract/ledger'
import type { ReleaseKind } from '../../contract/release-kinds'
import { type Rng, SecureRandom, assertSecure } from '../../../src-worker/engine/random'
import { ReleaseFailedError, UserError, isUserError } from '../platform/errors'
import { canonicalJson } from '../chain/canonical'
import { appendEntry, recordAudit } from '../chain/ledger-chain'
import { admission } from '../ledger/admission'
import { nowIso } from '../platform/clock'
import { nanoToDecimal, nanoToNumber } from '../chain/nano-epsilon'
import { type OfficerKey, unlockOfficer } from '../trust/officers'
import { openSealedCosts, storeSealedCosts } from '../trust/sealing'
import { refuseUnlessVerifies, writeCheckpoint } from '../trust/checkpoints'
import { type ExecutionResult, type PreparedRelease, prepareRelease } from './prepare'
import { fitSuggestion, tradeoffCurve } from './fit-suggestion'
import type { ReleaseView, Releases } from '../platform/handler-types'
import { answerStep, recordOverrun } from './answer-time'

export type { ReleaseView }

type Db = Database.Database

/** The step of recorded answer times in the workbench: whole seconds after the charge. */
export const ANSWER_STEP_MS = 1000
/** Every step (the workbench's, the service's cadence) is a whole multiple of this. */
export const ANSWER_STEP_UNIT_MS = 50

/**
 * When an answer (or a failure) counts as given, as recorded and shown (ALGORITHMS.md section 5): the charge time plus
 * the run time rounded UP to whole steps (at least one), so no time a report or the ledger shows tells the
 * data-dependent run time below a step. In the service the step is the public cadence and the door hands the answer
 * over at that time (release-lane.ts). (The charge time, `created_at`, is the ledger entry's time: it comes before any
 * data is read and keeps its milliseconds.)
 */
export function answerTime(chargedAt: string, now: Date = new Date(), stepMs = ANSWER_STEP_MS): string {
  const start = Date.parse(chargedAt)
  const elapsed = Math.max(1, now.getTime() - start)
  return new Date(start + Math.ceil(elapsed / stepMs) * stepMs).toISOString()
}

/**
 * The stored answer time; one written before answers were padded (not a whole number of steps after the charge; every
 * step is a multiple of ANSWER_STEP_UNIT_MS) is rounded up to whole seconds.
 */
function shownAnswerTime(createdAt: string, answeredAt: string): string {
  const a = Date.parse(answeredAt)
  const c = Date.parse(createdAt)
  if (!Number.isFinite(a) || !Number.isFinite(c) || (a - c) % ANSWER_STEP_UNIT_MS === 0) return answeredAt
  return answerTime(createdAt, new Date(a))
}

/**
 * What a failed release says, whatever failed: the cause may depend on the private data (a value out of range, an empty
 * selection), so it is never shown (ALGORITHMS.md section 5: a data problem found after the charge fails the release
 * with a neutral sentence).
 */
export const NEUTRAL_FAILURE = 'the answer could not be computed from the data'

/**
 * The stored releases as they are: none known to be running (a charged one reads as interrupted) and nothing hidden.
 * The view of a reader that runs no release beside its reads (the CLI); a services context has its own (`Releases.view`).
 */
export const STORED_VIEW: ReleaseView = { running: () => false, hideUntilAnswerTime: false }

/**
 * Releases run inline on this thread (as the CLI runs them), for one services context: the releases in flight are this
 * object's own, so another context on the same thread or the same workspace never sees them as running.
 */
export function inlineReleases(db: Db, hooks: Omit<RunHooks, 'inFlight'> = {}): Releases {
  const inFlight = new Set<number>()
  return {
    run: async (req) => runRelease(db, req, { ...hooks, inFlight }),
    view: { running: (d, id) => d === db && inFlight.has(id), hideUntilAnswerTime: false },
    load: () => ({ running: inFlight.size, queued: 0 })
  }
}

/** Who asks: in the service, the calling account (whatever the request says); in the workbench, the request's name. */
function actorOf(req: ReleaseRequest): string {
  const account = callingAccount()
  if (account !== null) return account.name
  const a = typeof req.actor === 'string' ? req.actor.trim() : ''
  return a === '' ? 'analyst' : a.slice(0, 100)
}

export function previewRelease(db: Db, req: ReleaseRequest): ReleasePreview {
  const p = prepareRelease(db, req.queryId, req.params)
  const adm = admission(db, p.query.datasetId, p.datasetName, p.notion, p.cells, p.chargeNano)
  const dec = (n: number | null) => (n === null ? null : nanoToDecimal(n))
  const numOrNull = (n: number | null) => (n === null ? null : nanoToNumber(n))
  return {
    queryId: p.query.id,
    queryName: p.query.name,
    datasetId: p.query.datasetId,
    datasetName: p.datasetName,
    kind: p.kind,
    notion: p.notion,
    epsilon: nanoToNumber(p.chargeNano),
    epsilonExact: nanoToDecimal(p.chargeNano),
    chargeExplained: p.chargeExplained,
    cellCount: p.cells.filter((c) => c !== '{}').length,
    spentBefore: nanoToNumber(adm.spentBeforeNano),
    spentBeforeExact: nanoToDecimal(adm.spentBeforeNano),
    spentAfter: nanoToNumber(adm.spentAfterNano),
    spentAfterExact: nanoToDecimal(adm.spentAfterNano),
    budget: numOrNull(adm.budgetNano),
    budgetExact: dec(adm.budgetNano),
    remaining: numOrNull(adm.remainingNano),
    remainingExact: dec(adm.remainingNano),
    allowed: adm.allowed,
    denial: adm.denial,
    // A denial names the nearest accuracy that fits what is left (priced like this preview; no data read).
    fit: adm.allowed
      ? null
      : fitSuggestion(req.params, adm.remainingNano, (params) => prepareRelease(db, req.queryId, params).chargeNano, p.fitOptions),
    tradeoff: tradeoffCurve(req.params, (params) => prepareRelease(db, req.queryId, params).chargeNano),
    guarantee: p.guarantee,
    warnings: p.warnings ?? []
  }
}

/**
 * Charge and record the release, or record its denial: one IMMEDIATE transaction either way (the write lock is taken
 * before admission reads, and waits up to the workspace's busy timeout for another writer), so that racing releases
 * from other processes are each admitted or denied on what the others wrote, and every denial is recorded (a deferred
 * transaction that reads and then writes gets SQLITE_BUSY at once under WAL when another writer committed in between,
 * without waiting). Admission reads the trust kernel's findings inside this transaction. Returns the release id, or
 * throws the denial (nothing spent, audited).
 */
export function chargeRelease(db: Db, p: PreparedRelease, actor: string, charging?: (releaseId: number) => void): { releaseId: number; seq: number } {
  const tx = db.transaction(() => {
    p.recheck?.()
    const adm = admission(db, p.query.datasetId, p.datasetName, p.notion, p.cells, p.chargeNano)
    if (!adm.allowed) {
      recordAudit(db, 'release/denied', actor, `dataset:${p.query.datasetId}`, {
        queryId: p.query.id,
        notion: p.notion,
        requested: nanoToDecimal(p.chargeNano),
        remaining: adm.remainingNano === null ? null : nanoToDecimal(adm.remainingNano),
        // The budget that denied it: the notion's own cap when that binds, else the budget per unit.
        budget: adm.limit !== null ? nanoToDecimal(adm.limit.nano) : adm.budgetNano === null ? null : nanoToDecimal(adm.budgetNano),
        ...(adm.limit !== null ? { budgetKind: adm.limit.kind } : {}),
        difference: nanoToDecimal(adm.overNano),
        // Which budget denied it: the dataset's, or the calling analyst's own (then also named).
        budgetOf: adm.analyst !== null && adm.analyst.overNano > 0 ? 'analyst' : 'dataset',
        ...(adm.analyst !== null && adm.analyst.overNano > 0
          ? { analyst: adm.analyst.accountId, analystBudget: nanoToDecimal(adm.analyst.budgetNano) }
          : {})
      })
      return { denied: adm, releaseId: 0, seq: 0 }
    }
    const info = db
      .prepare(
        `INSERT INTO releases (created_at, dataset_id, dataset_name, query_id, query_name, kind, mechanism, params, notion, charge_nano, guarantee, status)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'charged')`
      )
      .run(
        nowIso(),
        p.query.datasetId,
        p.datasetName,
        p.query.id,
        p.query.name,
        p.kind,
        p.mechanism,
        canonicalJson(p.publicParams),
        p.notion,
        p.chargeNano,
        p.guarantee
      )
    const releaseId = Number(info.lastInsertRowid)
    const entry = appendEntry(db, {
      kind: 'charge',
      datasetId: p.query.datasetId,
      datasetName: p.datasetName,
      notion: p.notion,
      amountNano: p.chargeNano,
      cells: p.cells,
      releaseId,
      actor,
      description: p.description,
      detail: { queryId: p.query.id, kind: p.kind, mechanism: p.mechanism, params: p.publicParams, chargeExplained: p.chargeExplained }
    })
    // Before the commit: whoever watches this release sees it in flight from the moment it exists for other connections.
    charging?.(releaseId)
    return { releaseId, seq: entry.seq }
  })
  const r = tx.immediate()
  if ('denied' in r && r.denied) throw new UserError(r.denied.denial ?? 'Denied', 'denied')
  return { releaseId: r.releaseId, seq: r.seq }
}

/** The internal runner: the mechanism, with the generator it is given, which must be the secure one. */
export function executePrepared(p: PreparedRelease, rng: Rng): ExecutionResult {
  assertSecure(rng)
  return p.execute(rng)
}

function storeAnswer(db: Db, releaseId: number, chargedAt: string, result: ExecutionResult, stepMs: number): void {
  const at = answerTime(chargedAt, new Date(), stepMs)
  db.transaction(() => {
    db.prepare(`UPDATE releases SET status = 'answered', answer = ?, answered_at = ? WHERE id = ? AND status = 'charged'`).run(
      canonicalJson(result.answer),
      at,
      releaseId
    )
    storeSealedCosts(db, releaseId, result.exPost)
  }).immediate()
}

export interface RunHooks {
  /** Test hook: called after the charge committed, before the mechanism runs. */
  afterCharge?: (releaseId: number) => void
  /** Called inside the charge's transaction, before it commits (the release runner marks the release in flight). */
  charging?: (releaseId: number) => void
  /** The step of the recorded answer time (default ANSWER_STEP_MS; the service's cadence there). */
  answerStepMs?: number
  /** Holds the release's id from its charge until its answer or failure is stored (a context's `inlineReleases`). */
  inFlight?: Set<number>
  /**
   * The service: the public answer time of a dataset (answer-time.ts), or null. A release on a dataset with one is
   * answered at charge + that time (rounded up to whole steps), or at its next multiple when the run overruns it, which
   * is recorded for the officer.
   */
  answerTimeFor?: (datasetId: number) => number | null
}

interface ChargedRelease {
  prepared: PreparedRelease
  releaseId: number
  chargedAt: string
}

/** Validate, price and charge (one transaction); the release is then in flight until its answer or failure is stored. */
function chargeAndBegin(db: Db, req: ReleaseRequest, hooks: RunHooks): ChargedRelease {
  const actor = actorOf(req)
  let prepared: PreparedRelease
  try {
    prepared = prepareRelease(db, req.queryId, req.params)
  } catch (e) {
    recordRefusal(db, req, actor, e)
    throw e
  }
  const { releaseId } = chargeRelease(db, prepared, actor, hooks.charging)
  hooks.inFlight?.add(releaseId)
  const chargedAt = (db.prepare('SELECT created_at FROM releases WHERE id = ?').get(releaseId) as { created_at: string }).created_at
  return { prepared, releaseId, chargedAt }
}

/**
 * Every denial is recorded: a release refused before pricing finished (over the eps-max asked, or a search that cannot
 * decide) leaves an audit event, as an over-budget denial does. Only public facts: the query, the code, the sentence
 * (computed from public inputs).
 */
function recordRefusal(db: Db, req: ReleaseRequest, actor: string, e: unknown): void {
  if (!(e instanceof UserError) || (e.code !== 'denied' && e.code !== 'cannot-decide')) return
  const q = db.prepare('SELECT dataset_id FROM queries WHERE id = ?').get(req.queryId) as { dataset_id: number } | undefined
  db.transaction(() =>
    recordAudit(db, 'release/refused', actor, q ? `dataset:${q.dataset_id}` : null, { queryId: req.queryId, code: e.code, reason: e.message })
  )()
}

/**
 * A charged release that could not be computed (or whose runner was lost): the charge stays (noise may have been
 * drawn); the cause is not recorded. Returns the error to throw.
 */
export function failCharged(db: Db, releaseId: number, chargedAt: string, stepMs = ANSWER_STEP_MS): ReleaseFailedError {
  const reason = NEUTRAL_FAILURE
  db.prepare(`UPDATE releases SET status = 'failed', failure = ?, answered_at = ? WHERE id = ? AND status = 'charged'`).run(
    reason,
    answerTime(chargedAt, new Date(), stepMs),
    releaseId
  )
  return new ReleaseFailedError(releaseId, reason)
}

/**
 * A release run on this thread: validate, charge, the kind's read and its one computation with a fresh secure
 * generator, store. The CLI and tests call it; the services run it on the release runner (release-runner.ts), so that
 * no data read or computation of a release holds the services' thread.
 */
export function runRelease(db: Db, req: ReleaseRequest, hooks: RunHooks = {}): ReleaseRecord {
  const cadenceStep = hooks.answerStepMs ?? ANSWER_STEP_MS
  const c = chargeAndBegin(db, req, hooks)
  const datasetId = c.prepared.query.datasetId
  const publicTime = hooks.answerTimeFor?.(datasetId) ?? null
  const stepMs = answerStep(publicTime, cadenceStep)
  // An overrun of the public answer time is the residual (answered at the next multiple): recorded for the officer.
  const noteOverrun = () => {
    if (publicTime === null) return
    const steps = Math.ceil(Math.max(1, Date.now() - Date.parse(c.chargedAt)) / stepMs)
    if (steps > 1) recordOverrun(db, c.releaseId, datasetId, publicTime, steps)
  }
  try {
    hooks.afterCharge?.(c.releaseId)
    let result: ExecutionResult
    try {
      result = executePrepared(c.prepared, SecureRandom.create())
    } catch {
      // The cause may depend on the data: never shown.
      noteOverrun()
      throw failCharged(db, c.releaseId, c.chargedAt, stepMs)
    }
    noteOverrun()
    storeAnswer(db, c.releaseId, c.chargedAt, result, stepMs)
    return toRecord(db, db.prepare(`${RELEASE_SELECT} WHERE r.id = ?`).get(c.releaseId) as ReleaseRow, STORED_VIEW)
  } finally {
    hooks.inFlight?.delete(c.releaseId)
  }
}

// ---------------------------------------------------------------------------------------------------------------

interface ReleaseRow {
  id: number
  created_at: string
  dataset_id: number
  dataset_name: string
  query_id: number
  query_name: string
  kind: ReleaseKind
  mechanism: string
  notion: PrivacyNotion
  charge_nano: number
  guarantee: string
  status: 'charged' | 'answered' | 'failed'
  answer: string | null
  answered_at: string | null
  failure: string | null
  seq: number | null
}

const RELEASE_SELECT = `SELECT r.*, e.seq AS seq FROM releases r LEFT JOIN ledger_entries e ON e.release_id = r.id`

/**
 * A release row as the analyst may see it. An answer (or failure) is stored as soon as it exists, with its recorded
 * answer time (`answerTime`); where the view hides it (the service), until that time the release shows as still
 * running and without its answer, so that polling `releases/list` or `releases/get` beside a release does not show the
 * moment its run ended.
 */
function toRecord(db: Db, r: ReleaseRow, view: ReleaseView): ReleaseRecord {
  let status: ReleaseStatus
  let statusText: string
  const notYet = view.hideUntilAnswerTime && r.status !== 'charged' && r.answered_at !== null && Date.parse(r.answered_at) > Date.now()
  if (notYet) {
    status = 'running'
    statusText = 'charged, answer being computed'
  } else if (r.status === 'answered') {
    status = 'answered'
    statusText = 'answered'
  } else if (r.status === 'failed') {
    status = 'failed'
    // Whatever was stored (older versions stored the cause), the analyst sees the neutral sentence.
    statusText = `charged, no answer: failed (${NEUTRAL_FAILURE})`
  } else if (view.running(db, r.id)) {
    status = 'running'
    statusText = 'charged, answer being computed'
  } else {
    status = 'interrupted'
    statusText = 'charged, no answer: interrupted'
  }
  return {
    releaseId: r.id,
    createdAt: r.created_at,
    queryId: r.query_id,
    queryName: r.query_name,
    datasetId: r.dataset_id,
    datasetName: r.dataset_name,
    kind: r.kind,
    mechanism: r.mechanism,
    notion: r.notion,
    epsilon: nanoToNumber(r.charge_nano),
    epsilonExact: nanoToDecimal(r.charge_nano),
    ledgerSeq: r.seq ?? 0,
    guarantee: r.guarantee,
    status,
    statusText,
    answer: r.answer === null || notYet ? null : (JSON.parse(r.answer) as ReleaseAnswer),
    answeredAt: r.status === 'answered' && r.answered_at !== null && !notYet ? shownAnswerTime(r.created_at, r.answered_at) : null
  }
}

/** Releases charged by this service account only (the account named in the charge's hashed detail); null: every release. */
const OWNED = `(@account IS NULL OR json_extract(e.detail, '$.account.id') = @account)`

/**
 * Which releases a reader sees and how: `onlyAccount` narrows to the releases that service account charged (null or
 * absent: every release); `view` says which are in flight and whether answers wait for their recorded time.
 */
export interface ReleaseReading {
  onlyAccount?: number | null
  view?: ReleaseView
}

/** A release; another account's is "no release with id N" to an analyst narrowed to its own (`onlyAccount`). */
export function getRelease(db: Db, releaseId: number, { onlyAccount = null, view = STORED_VIEW }: ReleaseReading = {}): ReleaseRecord {
  if (!Number.isInteger(releaseId)) throw new UserError('releaseId must be a whole number')
  const row = db.prepare(`${RELEASE_SELECT} WHERE r.id = @id AND ${OWNED}`).get({ id: releaseId, account: onlyAccount }) as ReleaseRow | undefined
  if (!row) throw new UserError(`There is no release with id ${releaseId}`, 'not-found')
  return toRecord(db, row, view)
}

export function listReleases(db: Db, datasetId?: number, { onlyAccount = null, view = STORED_VIEW }: ReleaseReading = {}): ReleaseRecord[] {
  const rows = db
    .prepare(`${RELEASE_SELECT} WHERE (@dataset IS NULL OR r.dataset_id = @dataset) AND ${OWNED} ORDER BY r.id`)
    .all({ dataset: datasetId ?? null, account: onlyAccount }) as ReleaseRow[]
  return rows.map((r) => toRecord(db, r, view))
}

/**
 * The privacy officer's view of the sealed ex-post costs: the officer's passphrase unwraps the key that opens them, and
 * the unlock is recorded (a signed audit event and a checkpoint) in one transaction before anything is returned. `key`:
 * an officer key already unlocked by the caller (the officer edition of a report unlocks once for every release).
 */
export function unlockExPost(
  db: Db,
  req: { releaseId: number; officer?: string; passphrase?: string; reason: string },
  key?: OfficerKey
): ExPostCosts {
  const reason = typeof req.reason === 'string' ? req.reason.trim() : ''
  if (reason.length < 3) throw new UserError('Unlocking sealed costs needs a reason; it is recorded')
  if (reason.length > 500) throw new UserError('The reason is too long (at most 500 characters)')
  const rel = getRelease(db, req.releaseId)
  const officer = key ?? unlockOfficer(db, { officer: req.officer, passphrase: req.passphrase })
  const opened = openSealedCosts(db, rel.releaseId, rel.statusText, officer)
  const plain = opened.plain
  const problem = opened.problem
  try {
    db.transaction(() => {
      refuseUnlessVerifies(db)
      recordAudit(db, 'officer/unlock-ex-post', officer.name, `release:${rel.releaseId}`, { reason, found: plain !== null }, officer)
      writeCheckpoint(db, officer)
    }).immediate()
  } catch (e) {
    // No officer act is recorded on a ledger that does not verify; the costs' own refusal names the reason better.
    if (plain === null && problem !== null && isUserError(e) && e.code === 'forbidden') throw new UserError(problem, 'not-found')
    throw e
  }
  if (plain === null) throw new UserError(problem ?? `Release ${rel.releaseId} has no sealed costs`, 'not-found')
  const s = JSON.parse(plain) as { spentMax: number; perPredicate?: ExPostCosts['perPredicate']; queries?: number }
  return {
    releaseId: rel.releaseId,
    notion: rel.notion,
    chargedExact: rel.epsilonExact,
    spentMax: s.spentMax,
    ...(s.perPredicate ? { perPredicate: s.perPredicate } : {}),
    ...(s.queries !== undefined ? { queries: s.queries } : {})
  }
}
