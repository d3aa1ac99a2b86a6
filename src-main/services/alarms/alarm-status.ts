/**
 * Pausing and resuming an alarm: an analyst pauses their own alarm (or the officer any), the officer resumes one. Each
 * change is an audit event naming who and why; a paused alarm evaluates nothing, and its periods that close meanwhile
 * are evaluated in order once it resumes (a pause skips nothing).
 */
import type Database from 'better-sqlite3'
import type { Principal } from '../../contract/accounts'
import type { AlarmView } from '../../contract/alarms'
import { UserError } from '../platform/errors'
import { recordAudit } from '../chain/ledger-chain'
import { ownRecordsOnly } from '../accounts/roles'
import { LOCAL_PRINCIPAL } from '../platform/caller'
import { alarmRow, alarmView } from './alarm-store'

type Db = Database.Database

export function pauseAlarm(db: Db, alarmId: number, reason: string | undefined, caller: Principal = LOCAL_PRINCIPAL): AlarmView {
  const why = (reason ?? '').trim() || `paused by ${caller.name}`
  db.transaction(() => {
    const a = alarmRow(db, alarmId, ownRecordsOnly(caller))
    if (a.status === 'ended') throw new UserError(`Alarm ${alarmId} has ended; it cannot be paused`, 'conflict')
    if (a.status === 'paused') throw new UserError(`Alarm ${alarmId} is already paused (${a.paused_reason ?? 'no reason recorded'})`, 'conflict')
    db.prepare(`UPDATE alarms SET status = 'paused', paused_reason = ? WHERE id = ?`).run(why, alarmId)
    recordAudit(db, 'alarm/paused', caller.name, `alarm:${alarmId}`, { reason: why })
  }).immediate()
  return alarmView(db, alarmRow(db, alarmId))
}

export function resumeAlarm(db: Db, alarmId: number, caller: Principal = LOCAL_PRINCIPAL): AlarmView {
  db.transaction(() => {
    const a = alarmRow(db, alarmId, ownRecordsOnly(caller))
    if (a.status === 'ended') throw new UserError(`Alarm ${alarmId} has ended; it cannot be resumed`, 'conflict')
    if (a.status === 'watching') throw new UserError(`Alarm ${alarmId} is watching already`, 'conflict')
    db.prepare(`UPDATE alarms SET status = 'watching', paused_reason = NULL WHERE id = ?`).run(alarmId)
    recordAudit(db, 'alarm/resumed', caller.name, `alarm:${alarmId}`, { was: a.paused_reason })
  }).immediate()
  return alarmView(db, alarmRow(db, alarmId))
}
