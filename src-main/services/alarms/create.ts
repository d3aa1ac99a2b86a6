/**
 * Creating an alarm is an officer act, like a budget: a signed 'alarm' ledger entry with the officer's reason, holding
 * what the officer signed (the frozen definition's hash, the schedule, the mode, the charges and the lifetime cap), and
 * the `alarms` row, in one IMMEDIATE transaction on a ledger that verifies. Evaluation runs an alarm only while its act
 * is in force by the trust kernel's rules and its row still says what was signed (`signedAlarmProblem`).
 */
import { createHash, randomUUID } from 'node:crypto'
import type Database from 'better-sqlite3'
import type { AlarmView, CreateAlarmRequest } from '../../contract/alarms'
import { UserError } from '../platform/errors'
import { appendEntry, recordAudit } from '../chain/ledger-chain'
import { canonicalJson } from '../chain/canonical'
import { nowIso } from '../platform/clock'
import { callingAccount } from '../platform/caller'
import { datasetUidFact } from '../catalog/fresh-dataset-id'
import { unitDeclaration } from '../trust/unit-declaration'
import { unlockOfficer } from '../trust/officers'
import { refuseUnlessVerifies, writeCheckpoint } from '../trust/checkpoints'
import { type TrustFindings, inspectWorkspace } from '../trust/kernel'
import type { EntryRow } from '../chain/ledger-chain'
import { type AlarmRow, alarmRow, alarmView } from './alarm-store'
import { accountProblem, accountRow } from '../accounts/account-store'
import { planAlarm } from './plan'

type Db = Database.Database

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex')

/** What the officer's entry holds of an alarm, computed the same way from the row at signing and at every evaluation. */
export function signedAlarmFacts(a: Pick<AlarmRow, keyof AlarmRow>): Record<string, unknown> {
  return {
    uid: a.uid,
    name: a.name,
    queryId: a.query_id,
    definitionSha256: sha256(a.definition),
    timeColumn: a.time_column,
    period: a.period,
    start: a.start_at,
    graceSeconds: a.grace_seconds,
    mode: a.mode,
    paramsSha256: sha256(a.params),
    lifetimeNano: a.lifetime_cap_nano
  }
}

/**
 * Why the alarm must not be evaluated (one sentence), or null: its officer act is not in force (unsigned, forged, or
 * for a dataset whose id another now holds), or its row no longer says what the officer signed.
 */
export function signedAlarmProblem(a: AlarmRow, f: TrustFindings): string | null {
  const act = f.officerActs.find((e) => e.seq === a.ledger_seq) as EntryRow | undefined
  if (!act || act.kind !== 'alarm' || act.dataset_id !== a.dataset_id) return `its signed act (ledger entry ${a.ledger_seq}) is not in the ledger`
  if (!f.actInForce(act)) return `its act (ledger entry ${a.ledger_seq}) does not carry a valid signature of a registered officer`
  let signed: unknown
  try {
    signed = (JSON.parse(act.detail) as { alarm?: unknown }).alarm
  } catch {
    signed = undefined
  }
  if (canonicalJson(signed) !== canonicalJson(signedAlarmFacts(a))) {
    return `its definition, schedule or caps were changed outside the app after the officer signed them (ledger entry ${a.ledger_seq})`
  }
  return null
}

/** The analyst account an alarm is signed for: it must exist, be an analyst's, and be in force. */
function analystAccount(db: Db, id: number): { id: number } {
  const row = accountRow(db, id)
  if (row === null) throw new UserError(`There is no account with id ${id}; list them with "quiet-alarm account list"`, 'not-found')
  if (row.role !== 'analyst')
    throw new UserError(`Account ${id} ("${row.name}") is a ${row.role} account; an alarm may be signed for an analyst account only`)
  if (accountProblem(db, row) !== null)
    throw new UserError(
      `Account ${id} ("${row.name}") is not in force (${accountProblem(db, row)}); an alarm may be signed for an account in force only`
    )
  return { id: row.id }
}

export function createAlarm(db: Db, req: CreateAlarmRequest): AlarmView {
  const reason = req.reason.trim()
  if (reason.length < 3) throw new UserError('An alarm needs a reason (a few words saying why it watches); it is recorded in the ledger')
  const plan = planAlarm(db, req)
  // Last before writing: the officer's key (the passphrase is checked before anything is written; the act is signed).
  const key = unlockOfficer(db, { officer: req.officer, passphrase: req.passphrase })
  const account = req.analyst === undefined ? callingAccount() : analystAccount(db, req.analyst)
  const id = db
    .transaction(() => {
      refuseUnlessVerifies(db)
      const row: Omit<AlarmRow, 'id' | 'ledger_seq' | 'status' | 'paused_reason'> = {
        uid: randomUUID(),
        dataset_id: plan.query.datasetId,
        query_id: plan.query.id,
        definition: canonicalJson(plan.def),
        name: plan.name,
        time_column: plan.timeColumn,
        period: plan.period,
        start_at: plan.startIso,
        grace_seconds: plan.graceSeconds,
        mode: plan.mode,
        params: canonicalJson(plan.params),
        lifetime_cap_nano: plan.lifetimeNano,
        account_id: account?.id ?? null,
        created_at: nowIso()
      }
      const facts = signedAlarmFacts({ ...row, id: 0, ledger_seq: 0, status: 'watching', paused_reason: null })
      const entry = appendEntry(db, {
        kind: 'alarm',
        datasetId: plan.query.datasetId,
        datasetName: plan.datasetName,
        notion: null,
        amountNano: 0,
        cells: [],
        releaseId: null,
        actor: key.name,
        description: reason,
        detail: {
          alarm: facts,
          modeText: plan.params.modeText,
          charge: plan.preview.chargeExact,
          lifetime: plan.preview.lifetimeExact,
          ...datasetUidFact(db, plan.query.datasetId),
          unit: unitDeclaration(db, plan.query.datasetId)
        },
        signer: key
      })
      const info = db
        .prepare(
          `INSERT INTO alarms (uid, dataset_id, query_id, definition, name, time_column, period, start_at, grace_seconds, mode, params,
           lifetime_cap_nano, status, ledger_seq, account_id, created_at)
         VALUES (@uid, @dataset_id, @query_id, @definition, @name, @time_column, @period, @start_at, @grace_seconds, @mode, @params,
           @lifetime_cap_nano, 'watching', @ledger_seq, @account_id, @created_at)`
        )
        .run({ ...row, ledger_seq: entry.seq })
      const alarmId = Number(info.lastInsertRowid)
      recordAudit(db, 'alarm/created', key.name, `alarm:${alarmId}`, { seq: entry.seq, mode: plan.mode, reason })
      writeCheckpoint(db, key)
      return alarmId
    })
    .immediate()
  const a = alarmRow(db, id)
  const problem = signedAlarmProblem(a, inspectWorkspace(db))
  if (problem !== null) throw new Error(`alarm ${id} was written but does not verify: ${problem}`)
  return alarmView(db, a)
}
