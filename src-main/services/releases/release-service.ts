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
import type {
  ExPostCosts,
  ReleasePreview,
  ReleaseRecord,
  ReleaseRequest,
  ReleaseStatus,
  ReleaseAnswer,
  PrivacyNotion,
  ReleaseKind
} from '../../contract/ledger'
import { type Rng, SecureRandom, assertSecure } from '../../../src-worker/engine/random'
import { ReleaseFailedError, UserError } from '../platform/errors'
import { canonicalJson } from '../chain/canonical'
import { appendEntry, recordAudit } from '../chain/ledger-chain'
import { admission } from '../ledger/admission'
import { nowIso } from '../platform/clock'
import { nanoToDecimal, nanoToNumber } from '../chain/nano-epsilon'
import { type Sealed, seal, unseal } from '../trust/officer-crypto'
import { type OfficerKey, unlockOfficer, verifiedOfficerRows } from '../trust/officers'
import { writeCheckpoint } from '../trust/checkpoints'
import { type ExecutionResult, type PreparedRelease, prepareRelease } from './prepare'
import { type ReleasePool, executeOnPool } from './kinds/release-kind'
import { fitSuggestion, tradeoffCurve } from './fit-suggestion'

type Db = Database.Database

/**
 * When an answer (or a failure) counts as given, as the analyst sees it (ALGORITHMS.md section 5): the charge time plus
 * the run time rounded UP to whole seconds (at least one). The doors (`runReleaseTimed`) also hold the response until
 * then, so neither a time shown nor the time a call takes tells the data-dependent run time below a second. (The charge
 * time, `created_at`, is the ledger entry's time: it comes before any data is read and keeps its milliseconds.)
 */
export function answerTime(chargedAt: string, now: Date = new Date()): string {
  const start = Date.parse(chargedAt)
  const elapsed = Math.max(1, now.getTime() - start)
  return new Date(start + Math.ceil(elapsed / 1000) * 1000).toISOString()
}

/** The stored answer time; one written before answers were padded (not whole seconds after the charge) is rounded up. */
function shownAnswerTime(createdAt: string, answeredAt: string): string {
  const a = Date.parse(answeredAt)
  const c = Date.parse(createdAt)
  if (!Number.isFinite(a) || !Number.isFinite(c) || (a - c) % 1000 === 0) return answeredAt
  return answerTime(createdAt, new Date(a))
}

/**
 * What a failed release says, whatever failed: the cause may depend on the private data (a value out of range, an empty
 * selection), so it is never shown (ALGORITHMS.md section 5: a data problem found after the charge fails the release
 * with a neutral sentence).
 */
export const NEUTRAL_FAILURE = 'the answer could not be computed from the data'

/**
 * The latest padded answer time (ms since the epoch) of a release this process ran. A release's mechanism runs on the
 * services' thread, so every request that arrives while it runs is handled the moment the run ends: without a hold,
 * how long any call beside a release took, or the charge time of a release asked meanwhile, told the data-dependent
 * run time to the millisecond (review finding). The doors wait for `afterPaddedAnswers` before they handle a request
 * or write an event, so what they do after a run shows only at its padded time.
 */
let heldUntilMs = 0

function holdUntil(iso: string): void {
  const t = Date.parse(iso)
  if (t > heldUntilMs) heldUntilMs = t
}

/** Resolves once every release run by this process has reached its padded answer time (at once when none is pending). */
export async function afterPaddedAnswers(): Promise<void> {
  // A release computed on the worker pool leaves this thread free while it runs: what arrives meanwhile is held until
  // its padded answer time too, as when the run blocked the thread (else the moment calls stop being answered at once
  // would tell the run's end).
  while (runsOnPool.size > 0) await Promise.all([...runsOnPool])
  for (let ms = heldUntilMs - Date.now(); ms > 0; ms = heldUntilMs - Date.now()) await new Promise((resolve) => setTimeout(resolve, ms))
}

/** Releases of this process whose computation is on the worker pool (each settles once its answer is stored). */
const runsOnPool = new Set<Promise<unknown>>()

/** Releases being answered by this process right now (anything else left 'charged' was interrupted). */
const inFlight = new Set<string>()
const flightKey = (db: Db, id: number) => `${db.name}#${id}`

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
    // Issue 17: a denial names the nearest accuracy that fits what is left (priced like this preview; no data read).
    fit: adm.allowed ? null : fitSuggestion(req.params, adm.remainingNano, (params) => prepareRelease(db, req.queryId, params).chargeNano),
    tradeoff: tradeoffCurve(req.params, (params) => prepareRelease(db, req.queryId, params).chargeNano),
    guarantee: p.guarantee
  }
}

/** Charge and record the release (one transaction). Returns the release id, or throws the denial (nothing spent, audited). */
export function chargeRelease(db: Db, p: PreparedRelease, actor: string): { releaseId: number; seq: number } {
  const tx = db.transaction(() => {
    p.recheck?.()
    const adm = admission(db, p.query.datasetId, p.datasetName, p.notion, p.cells, p.chargeNano)
    if (!adm.allowed) return { denied: adm, releaseId: 0, seq: 0 }
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
    return { releaseId, seq: entry.seq }
  })
  const r = tx.immediate()
  if ('denied' in r && r.denied) {
    const adm = r.denied
    db.transaction(() =>
      recordAudit(db, 'release/denied', actor, `dataset:${p.query.datasetId}`, {
        queryId: p.query.id,
        notion: p.notion,
        requested: nanoToDecimal(p.chargeNano),
        remaining: adm.remainingNano === null ? null : nanoToDecimal(adm.remainingNano),
        budget: adm.budgetNano === null ? null : nanoToDecimal(adm.budgetNano),
        difference: nanoToDecimal(adm.overNano)
      })
    )()
    throw new UserError(adm.denial ?? 'Denied', 'denied')
  }
  return { releaseId: r.releaseId, seq: r.seq }
}

/** The internal runner: the mechanism, with the generator it is given, which must be the secure one. */
export function executePrepared(p: PreparedRelease, rng: Rng): ExecutionResult {
  assertSecure(rng)
  return p.execute(rng)
}

function storeAnswer(db: Db, releaseId: number, chargedAt: string, result: ExecutionResult): void {
  const at = answerTime(chargedAt)
  holdUntil(at)
  db.transaction(() => {
    db.prepare(`UPDATE releases SET status = 'answered', answer = ?, answered_at = ? WHERE id = ? AND status = 'charged'`).run(
      canonicalJson(result.answer),
      at,
      releaseId
    )
    db.prepare('INSERT INTO release_ex_post (release_id, sealed) VALUES (?, ?)').run(releaseId, sealExPost(db, releaseId, result.exPost))
  }).immediate()
}

/**
 * The ex-post costs as stored: encrypted to every registered officer's X25519 key (issue 15), never in clear. With no
 * officer registered (only possible in a workspace whose budgets predate officer keys, since a budget is an officer act)
 * the costs are discarded rather than written in clear.
 */
function sealExPost(db: Db, releaseId: number, exPost: unknown): string {
  const recipients = verifiedOfficerRows(db).map((o) => ({ keyId: o.key_id, sealPublic: o.seal_public }))
  if (recipients.length === 0) return canonicalJson({ v: 1, recipients: [], discarded: 'no privacy officer was registered to seal to' })
  return JSON.stringify(seal(canonicalJson(exPost), `release:${releaseId}`, recipients))
}

export interface RunHooks {
  /** Test hook: called after the charge committed, before the mechanism runs. */
  afterCharge?: (releaseId: number) => void
}

interface ChargedRelease {
  prepared: PreparedRelease
  releaseId: number
  chargedAt: string
  key: string
}

/** Validate, price and charge (one transaction); the release is then in flight until its answer or failure is stored. */
function chargeAndBegin(db: Db, req: ReleaseRequest): ChargedRelease {
  const actor = actorOf(req)
  const prepared = prepareRelease(db, req.queryId, req.params)
  const { releaseId } = chargeRelease(db, prepared, actor)
  const chargedAt = (db.prepare('SELECT created_at FROM releases WHERE id = ?').get(releaseId) as { created_at: string }).created_at
  const key = flightKey(db, releaseId)
  inFlight.add(key)
  return { prepared, releaseId, chargedAt, key }
}

/** A charged release that could not be computed: the charge stays (noise may have been drawn); the cause is not recorded. */
function failCharged(db: Db, c: ChargedRelease): never {
  const reason = NEUTRAL_FAILURE
  const failedAt = answerTime(c.chargedAt)
  holdUntil(failedAt)
  db.prepare(`UPDATE releases SET status = 'failed', failure = ?, answered_at = ? WHERE id = ? AND status = 'charged'`).run(
    reason,
    failedAt,
    c.releaseId
  )
  throw new ReleaseFailedError(c.releaseId, reason)
}

function answered(db: Db, c: ChargedRelease, result: ExecutionResult): ReleaseRecord {
  storeAnswer(db, c.releaseId, c.chargedAt, result)
  return toRecord(db, db.prepare(`${RELEASE_SELECT} WHERE r.id = ?`).get(c.releaseId) as ReleaseRow, true)
}

/** A release computed inline on this thread (the CLI, tests): the kind's one computation with a fresh secure generator. */
export function runRelease(db: Db, req: ReleaseRequest, hooks: RunHooks = {}): ReleaseRecord {
  const c = chargeAndBegin(db, req)
  try {
    hooks.afterCharge?.(c.releaseId)
    let result: ExecutionResult
    try {
      result = executePrepared(c.prepared, SecureRandom.create())
    } catch {
      // The cause may depend on the data: never shown.
      failCharged(db, c)
    }
    return answered(db, c, result)
  } finally {
    inFlight.delete(c.key)
  }
}

/**
 * A release whose computation runs on the worker pool (issue 18): the data read and the charge stay on this thread; the
 * mechanism, the ball counts or the search run on a worker with its own secure generator, once (no retry, no time-out).
 * A worker's failure is the neutral release failure; the answer time is measured from the charge, here, as inline.
 */
export function runReleaseOnPool(db: Db, req: ReleaseRequest, pool: ReleasePool, hooks: RunHooks = {}): Promise<ReleaseRecord> {
  const run = (async () => {
    const c = chargeAndBegin(db, req)
    try {
      hooks.afterCharge?.(c.releaseId)
      let result: ExecutionResult
      try {
        result = await executeOnPool(c.prepared, pool)
      } catch {
        failCharged(db, c)
      }
      return answered(db, c, result)
    } finally {
      inFlight.delete(c.key)
    }
  })()
  const settled = run.then(
    () => undefined,
    () => undefined
  )
  runsOnPool.add(settled)
  void settled.then(() => runsOnPool.delete(settled))
  return run
}

/** Waits until an ISO time (a release's padded answer time). */
async function until(iso: string | null): Promise<void> {
  const at = iso === null ? NaN : Date.parse(iso)
  // A timer may fire a millisecond early by the wall clock: wait again until the time has really come.
  for (let ms = at - Date.now(); ms > 0; ms = at - Date.now()) await new Promise((resolve) => setTimeout(resolve, ms))
}

/**
 * `runRelease` (or `runReleaseOnPool` given a pool) as the doors (HTTP, desktop, CLI) call it: the answer, or the failure of a charged release, is handed
 * over at its padded answer time (`answerTime`), so how long the call takes tells the analyst only the run time rounded
 * up to whole seconds. Refusals before the charge (bad input, denials) depend on public inputs only and are not held.
 */
export async function runReleaseTimed(db: Db, req: ReleaseRequest, pool?: ReleasePool): Promise<ReleaseRecord> {
  // A release asked while another ran is charged after that one's padded time: its charge time would tell the run's end.
  await afterPaddedAnswers()
  try {
    // On the pool when the services have one (the desktop and the headless server): this thread never blocks on it.
    const r = pool ? await runReleaseOnPool(db, req, pool) : runRelease(db, req)
    await until(r.answeredAt)
    return r
  } catch (e) {
    const id = e instanceof ReleaseFailedError ? e.releaseId : NaN
    if (Number.isInteger(id)) {
      const row = db.prepare('SELECT answered_at FROM releases WHERE id = ?').get(id) as { answered_at: string | null } | undefined
      await until(row?.answered_at ?? null)
    }
    throw e
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
 * A release row as the analyst may see it. An answer (or failure) is stored as soon as it exists, with its padded
 * answer time (`answerTime`); until that time the release shows as still running and without its answer, so that
 * polling `releases/list` or `releases/get` beside a release does not show the moment its run ended (review finding:
 * a 1 ms poll saw "answered" at the run's end, undoing the whole-second padding). `early`: the runner's own copy,
 * which `runReleaseTimed` holds until the padded time before handing it over.
 */
function toRecord(db: Db, r: ReleaseRow, early = false): ReleaseRecord {
  let status: ReleaseStatus
  let statusText: string
  const notYet = !early && r.status !== 'charged' && r.answered_at !== null && Date.parse(r.answered_at) > Date.now()
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
  } else if (inFlight.has(flightKey(db, r.id))) {
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

/** A release; another account's is "no release with id N" to an analyst narrowed to its own (`onlyAccount`). */
export function getRelease(db: Db, releaseId: number, onlyAccount: number | null = null): ReleaseRecord {
  if (!Number.isInteger(releaseId)) throw new UserError('releaseId must be a whole number')
  const row = db.prepare(`${RELEASE_SELECT} WHERE r.id = @id AND ${OWNED}`).get({ id: releaseId, account: onlyAccount }) as ReleaseRow | undefined
  if (!row) throw new UserError(`There is no release with id ${releaseId}`, 'not-found')
  return toRecord(db, row)
}

export function listReleases(db: Db, datasetId?: number, onlyAccount: number | null = null): ReleaseRecord[] {
  const rows = db
    .prepare(`${RELEASE_SELECT} WHERE (@dataset IS NULL OR r.dataset_id = @dataset) AND ${OWNED} ORDER BY r.id`)
    .all({ dataset: datasetId ?? null, account: onlyAccount }) as ReleaseRow[]
  return rows.map((r) => toRecord(db, r))
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
  const row = db.prepare('SELECT sealed FROM release_ex_post WHERE release_id = ?').get(rel.releaseId) as { sealed: string } | undefined
  let plain: string | null = null
  let problem: string | null = null
  if (row === undefined) problem = `Release ${rel.releaseId} has no sealed costs (${rel.statusText})`
  else {
    const stored = JSON.parse(row.sealed) as Partial<Sealed> & { spentMax?: unknown; discarded?: string }
    if (stored.spentMax !== undefined)
      plain = row.sealed // written in clear before officer keys existed (issue 15)
    else if (stored.discarded !== undefined) problem = `Release ${rel.releaseId}'s costs were not kept: ${stored.discarded} when it ran`
    else {
      plain = unseal(stored as Sealed, `release:${rel.releaseId}`, officer.keyId, officer.sealPublic, officer.sealKey)
      if (plain === null) {
        problem = `Release ${rel.releaseId}'s costs were not sealed to officer "${officer.name}" (sealed to the officers registered when it ran), or were altered`
      }
    }
  }
  db.transaction(() => {
    recordAudit(db, 'officer/unlock-ex-post', officer.name, `release:${rel.releaseId}`, { reason, found: plain !== null }, officer)
    writeCheckpoint(db, officer)
  }).immediate()
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
