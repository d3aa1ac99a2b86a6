/**
 * The Reports screen without React (reportFormState.ts): the analyst edition needs nothing; the officer edition needs a
 * registered officer, a reason and the passphrase (forgotten after each act); the export is the previewed report (its
 * end of period) while the settings are those of the preview.
 */
import { describe, expect, it } from 'vitest'
import type { ReportPreview } from '../../../src-main/contract'
import {
  type ReportForm,
  initialReportForm,
  previewKey,
  reportFormReducer,
  resolveReportForm
} from '../../../src-renderer/src/screens/reports/reportFormState'

const PREVIEW = { data: { period: { from: null, to: '2026-01-02T03:04:05.000Z' } } } as unknown as ReportPreview

function settle(form: ReportForm, officers: string[]): ReportForm {
  return reportFormReducer(form, { type: 'previewed', preview: PREVIEW, key: previewKey(form, officers) })
}

describe('report form', () => {
  it('analyst edition: preview and export of the whole workspace by default', () => {
    const r = resolveReportForm(initialReportForm, [])
    expect(r).toMatchObject({ why: null, previewRequest: { edition: 'analyst' }, samePreview: false })
    expect(r.exportRequest).toEqual({ edition: 'analyst', format: 'pdf', pageSize: 'A4', table: undefined })
  })

  it('scope and period are sent trimmed; CSV sends its table, not a page size', () => {
    const f = reportFormReducer(initialReportForm, { type: 'settings', patch: { scope: '3', from: ' 2025-01-01 ', format: 'csv', table: 'denials' } })
    expect(resolveReportForm(f, []).exportRequest).toEqual({
      edition: 'analyst',
      datasetId: 3,
      from: '2025-01-01',
      format: 'csv',
      table: 'denials',
      pageSize: undefined
    })
  })

  it('officer edition: says what is missing, in order, then sends officer, reason and passphrase', () => {
    let f = reportFormReducer(initialReportForm, { type: 'settings', patch: { edition: 'officer' } })
    expect(resolveReportForm(f, []).why).toMatch(/no privacy officer is registered yet/)
    expect(resolveReportForm(f, ['a', 'b']).why).toBe('Choose the officer who opens the sealed costs.')
    // The only registered officer is the one.
    expect(resolveReportForm(f, ['dpo']).why).toMatch(/^Give the reason/)
    f = reportFormReducer(f, { type: 'settings', patch: { reason: 'quarterly audit' } })
    expect(resolveReportForm(f, ['dpo']).why).toBe(
      'Give the passphrase of “dpo”: it opens the sealed costs, and each opening is signed and recorded.'
    )
    f = reportFormReducer(f, { type: 'settings', patch: { passphrase: 'correct horse battery staple' } })
    const r = resolveReportForm(f, ['dpo'])
    expect(r.previewRequest).toEqual({ edition: 'officer', officer: 'dpo', reason: 'quarterly audit', passphrase: 'correct horse battery staple' })
    expect(reportFormReducer(f, { type: 'forgetPassphrase' }).settings.passphrase).toBe('')
  })

  it('the export is the previewed report while the settings stay; the passphrase is not part of that', () => {
    let f = reportFormReducer(initialReportForm, {
      type: 'settings',
      patch: { edition: 'officer', reason: 'quarterly audit', passphrase: 'correct horse battery staple' }
    })
    f = settle(f, ['dpo'])
    f = reportFormReducer(f, { type: 'forgetPassphrase' })
    expect(resolveReportForm(f, ['dpo'])).toMatchObject({ samePreview: true, exportRequest: null })
    f = reportFormReducer(f, { type: 'settings', patch: { passphrase: 'correct horse battery staple' } })
    expect(resolveReportForm(f, ['dpo']).exportRequest).toMatchObject({ to: '2026-01-02T03:04:05.000Z', format: 'pdf' })
    // Another period: not the previewed report any more, and the export follows the settings.
    f = reportFormReducer(f, { type: 'settings', patch: { from: '2025-06-01' } })
    const r = resolveReportForm(f, ['dpo'])
    expect(r.samePreview).toBe(false)
    expect(r.exportRequest).not.toHaveProperty('to')
  })

  it('"Keep this period" writes the preview\'s exact period into the form: the same settings ask for the same data later', () => {
    const previewed = { data: { period: { from: '2026-01-01T00:00:00.000Z', to: '2026-01-02T03:04:05.000Z' } } } as unknown as ReportPreview
    let f = reportFormReducer(initialReportForm, { type: 'settings', patch: { from: '2026-01-01' } })
    f = reportFormReducer(f, { type: 'previewed', preview: previewed, key: previewKey(f, []) })
    f = reportFormReducer(f, { type: 'keepPeriod', registeredOfficers: [] })
    expect(f.settings).toMatchObject({ from: '2026-01-01T00:00:00.000Z', to: '2026-01-02T03:04:05.000Z' })
    // The preview on screen is still the report of these settings, and a later preview or export asks for that period.
    const r = resolveReportForm(f, [])
    expect(r.samePreview).toBe(true)
    expect(r.previewRequest).toEqual({ edition: 'analyst', from: '2026-01-01T00:00:00.000Z', to: '2026-01-02T03:04:05.000Z' })
    expect(r.exportRequest).toMatchObject({ to: '2026-01-02T03:04:05.000Z' })
    // Without a preview there is no period to keep.
    expect(reportFormReducer(initialReportForm, { type: 'keepPeriod', registeredOfficers: [] })).toBe(initialReportForm)
  })
})
