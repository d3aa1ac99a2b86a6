import type { AlarmMethods } from '../../contract/alarms'
import type { HandlerMap, ServiceContext } from '../platform/handler-types'
import { SecureRandom } from '../../../src-worker/engine/random'
import { ownRecordsOnly } from '../accounts/roles'
import { alarmHistory, alarmRow, alarmView, listAlarms } from './alarm-store'
import { pauseAlarm, resumeAlarm } from './alarm-status'
import { evaluateDueAlarms } from './evaluate'
import { planAlarm } from './plan'
import { createAlarm } from './create'

/** Handlers of the alarms area (the role table decides who may call them; an analyst sees their own alarms only). */
export function alarmsHandlers(ctx: ServiceContext): HandlerMap<AlarmMethods> {
  const db = ctx.store.db
  return {
    'alarms/preview': async (r) => planAlarm(db, r).preview,
    'alarms/create': async (r) => createAlarm(db, r),
    'alarms/list': async (r, caller) => listAlarms(db, r.datasetId ?? null, ownRecordsOnly(caller)),
    'alarms/get': async (r, caller) => alarmView(db, alarmRow(db, r.alarmId, ownRecordsOnly(caller))),
    'alarms/pause': async (r, caller) => pauseAlarm(db, r.alarmId, r.reason, caller),
    'alarms/resume': async (r, caller) => resumeAlarm(db, r.alarmId, caller),
    'alarms/history': async (r, caller) => alarmHistory(db, r.alarmId, { limit: r.limit, offset: r.offset, onlyAccount: ownRecordsOnly(caller) }),
    'alarms/run-due': async (r) =>
      evaluateDueAlarms(db, new Date(), SecureRandom.create(), { alarmId: r.alarmId, emit: (e) => ctx.events.emit(e.name, e.payload) })
  }
}
