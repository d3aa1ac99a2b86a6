/**
 * An alarm's releases (kind alarm-period) read back everywhere a release is shown: the release text the CLI prints,
 * the report's releases table and its HTML. Without the kind in the registry the text called a missing spec (TypeError)
 * or printed a period as an anomaly search, and the report's export failed.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { SecureRandom } from '../../../src-worker/engine/random'
import { evaluateDueAlarms } from '../../../src-main/services/alarms/evaluate'
import { createAlarm } from '../../../src-main/services/alarms/create'
import type { ledgerHandlers } from '../../../src-main/services/releases/ledger-handlers'
import { releaseText } from '../../../src-main/services/ledger/ledger-text'
import { gatherReportData } from '../../../src-main/services/reports/report-data'
import { renderReportHtml } from '../../../src-main/services/reports/report-html'
import { resolvePeriod } from '../../../src-main/services/reports/period'
import { buildVerification } from '../../../src-main/services/reports/verification'
import type { Store } from '../../../src-main/services/store/store'
import type { tempWorkspace } from '../helpers'
import { closeLedgerWorkspace, openLedgerWorkspace } from '../ledger/fixtures'
import { officerAct } from '../officer-fixture'
import { HOUR, START, plantStream } from './continual-fixture'

let ws: ReturnType<typeof tempWorkspace>
let store: Store
let h: ReturnType<typeof ledgerHandlers>
beforeEach(() => {
  ;({ ws, store, h } = openLedgerWorkspace('qa-alarm-shown-'))
})
afterEach(() => closeLedgerWorkspace(store, ws))

describe('alarm releases shown', () => {
  it('print, list and report as alarm periods, for a per-period and a when-fires alarm', async () => {
    const s = plantStream(store.db, { hours: 3, rooms: 2, quiet: 5, high: 500, threshold: 100, over: (h, r) => h === 1 && r === 0 })
    const base = {
      queryId: s.queryId,
      timeColumn: 'at',
      period: 'hour' as const,
      start: new Date(START).toISOString(),
      beta: 0.05,
      alpha: 20,
      reason: 'watch',
      ...officerAct(store.db)
    }
    createAlarm(store.db, base)
    createAlarm(store.db, { ...base, mode: 'when-fires', fires: 5 })
    evaluateDueAlarms(store.db, new Date(START + 3 * HOUR), SecureRandom.create())
    const releases = (await h['releases/list']({})).filter((r) => r.kind === 'alarm-period')
    expect(releases.length).toBeGreaterThanOrEqual(4)
    const texts = releases.map((r) => releaseText(r))
    for (const t of texts) {
      expect(t).toContain('Alarm period "rooms over capacity"')
      expect(t).not.toContain('Most likely to be the anomaly')
    }
    expect(texts.some((t) => /Alarm \d+, period 2026-01-01T01:00:00.000Z to 2026-01-01T02:00:00.000Z:\nFlagged 1 of 2/.test(t))).toBe(true)
    expect(texts.some((t) => /when-fires instance 1/.test(t))).toBe(true)

    const report = await gatherReportData(store, { datasetId: null, period: resolvePeriod(undefined, undefined), edition: 'analyst' })
    const rows = report.releases.filter((r) => r.kind === 'alarm-period')
    expect(rows.length).toBe(releases.length)
    expect(rows.some((r) => r.asked === 2 && r.flagged === 1)).toBe(true)
    const html = renderReportHtml(report, buildVerification(store.db, report, new Date()))
    expect(html).toContain('alarm period')
    expect(html).toContain('1 of 2 predicates flagged')
  })
})
