/**
 * Migration 020 (continual alarms), on a workspace filled by version 19: the three tables appear, nothing before them
 * changes, and an evaluated period cannot be evaluated again, changed or deleted (the key (alarm, period) is what makes
 * each period's evaluation happen once).
 */
import { afterEach, describe, expect, it } from 'vitest'
import { openStore } from '../../../src-main/services/store/store'
import { migrations } from '../../../src-main/services/store/migrations'
import { tempWorkspace } from '../helpers'

let cleanup: (() => void) | undefined
afterEach(() => cleanup?.())

describe('migration 020: alarms', () => {
  it('adds alarms, alarm_instances and alarm_periods to a version-19 workspace; a period row is written once and never changed', () => {
    const ws = tempWorkspace()
    cleanup = ws.cleanup
    const v19 = openStore(ws.db, { migrations: migrations.filter((m) => m.version <= 19) })
    v19.db.prepare(`INSERT INTO workspace_meta (key, value) VALUES ('probe', 'kept')`).run()
    expect(v19.db.prepare(`SELECT name FROM sqlite_master WHERE name = 'alarms'`).get()).toBeUndefined()
    v19.close()
    const store = openStore(ws.db)
    const db = store.db
    expect(store.schemaVersion()).toBeGreaterThanOrEqual(20)
    expect(db.prepare(`SELECT value FROM workspace_meta WHERE key = 'probe'`).get()).toEqual({ value: 'kept' })
    db.prepare(
      `INSERT INTO alarms (uid, dataset_id, query_id, definition, name, time_column, period, start_at, grace_seconds, mode, params, ledger_seq, created_at)
       VALUES ('u1', 1, 1, '{}', 'a', 't', 'hour', '2026-01-01T00:00:00.000Z', 0, 'when-fires', '{}', 1, '2026-01-01T00:00:00.000Z')`
    ).run()
    const period = db.prepare(
      `INSERT INTO alarm_periods (alarm_id, period, fired, evaluated_at, late_rows_note) VALUES (1, ?, '[]', '2026-01-01T01:00:00.000Z', 'late rows')`
    )
    period.run(0)
    expect(() => period.run(0)).toThrow(/UNIQUE|PRIMARY KEY/)
    expect(() => db.prepare(`UPDATE alarm_periods SET fired = '[["x"]]'`).run()).toThrow(/never changed/)
    expect(() => db.prepare(`DELETE FROM alarm_periods`).run()).toThrow(/never changed/)
    expect(() => db.prepare(`UPDATE alarms SET mode = 'sometimes'`).run()).toThrow(/CHECK/)
    store.close()
  })
})
