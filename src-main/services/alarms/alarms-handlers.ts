import type { AlarmHistory, AlarmMethods, AlarmView } from '../../contract/alarms'
import type { Principal } from '../../contract/accounts'
import { type AnalystIds, analystIds } from '../ledger/analyst-ids'
import type { HandlerMap, ServiceContext } from '../platform/handler-types'
import { SecureRandom } from '../../../src-worker/engine/random'
import { ownRecordsOnly } from '../accounts/roles'
import { alarmHistory, alarmRow, alarmView, listAlarms } from './alarm-store'
import { pauseAlarm, resumeAlarm } from './alarm-status'
import { evaluateDueAlarms } from './evaluate'
import { planAlarm } from './plan'
import { createAlarm } from './create'

/**
 * An analyst account reads the ledger numbers and release ids of its alarms as ordinals among its own (ledger/analyst-ids.ts):
 * stored ids are global counters, and the gap between two periods' releases would count other analysts' releases.
 */
function idsFor(db: Parameters<typeof analystIds>[0], caller: Principal | undefined): AnalystIds | null {
  const own = ownRecordsOnly(caller)
  return own === null ? null : analystIds(db, own)
}

function viewFor(v: AlarmView, ids: AnalystIds | null): AlarmView {
  return ids === null ? v : { ...v, ledgerSeq: ids.seq(v.ledgerSeq) }
}

function historyFor(h: AlarmHistory, ids: AnalystIds | null): AlarmHistory {
  if (ids === null) return h
  return {
    ...h,
    alarm: viewFor(h.alarm, ids),
    periods: h.periods.map((p) => ({ ...p, releaseId: p.releaseId === null ? null : ids.release(p.releaseId) || null }))
  }
}

/** Handlers of the alarms area (the role table decides who may call them; an analyst sees their own alarms only). */
export function alarmsHandlers(ctx: ServiceContext): HandlerMap<AlarmMethods> {
  const db = ctx.store.db
  return {
    'alarms/preview': async (r) => planAlarm(db, r).preview,
    'alarms/create': async (r) => createAlarm(db, r),
    'alarms/list': async (r, caller) => {
      const ids = idsFor(db, caller)
      return listAlarms(db, r.datasetId ?? null, ownRecordsOnly(caller)).map((v) => viewFor(v, ids))
    },
    'alarms/get': async (r, caller) => viewFor(alarmView(db, alarmRow(db, r.alarmId, ownRecordsOnly(caller))), idsFor(db, caller)),
    'alarms/pause': async (r, caller) => viewFor(pauseAlarm(db, r.alarmId, r.reason, caller), idsFor(db, caller)),
    'alarms/resume': async (r, caller) => resumeAlarm(db, r.alarmId, caller),
    'alarms/history': async (r, caller) =>
      historyFor(alarmHistory(db, r.alarmId, { limit: r.limit, offset: r.offset, onlyAccount: ownRecordsOnly(caller) }), idsFor(db, caller)),
    'alarms/run-due': async (r) =>
      evaluateDueAlarms(db, new Date(), SecureRandom.create(), { alarmId: r.alarmId, emit: (e) => ctx.events.emit(e.name, e.payload) })
  }
}
