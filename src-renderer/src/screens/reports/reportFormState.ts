/**
 * The Reports screen as one value: the settings (scope, period, edition and its officer fields, format), then preview
 * -> export job -> saved file. A reducer changes it; a pure resolver says what the settings stand for (the requests),
 * why a step cannot be taken yet, and whether the export is the previewed report. Unit-tested under Node
 * (test/unit/renderer/report-form.test.ts).
 */
import type { ReportFormat, ReportPreview, ReportRequest, ReportTable, RequestOf } from '../../../../src-main/contract'

export interface ReportSettings {
  /** 'all' or a dataset id. */
  scope: string
  from: string
  to: string
  edition: 'analyst' | 'officer'
  /** Officer edition: who unlocks the sealed costs ('' = the only registered officer), why, and the passphrase. */
  officer: string
  reason: string
  passphrase: string
  format: ReportFormat
  table: ReportTable
  pageSize: 'A4' | 'Letter'
}

export interface ReportForm {
  settings: ReportSettings
  preview: ReportPreview | null
  /** The settings the preview was made with (its key: without the passphrase). */
  previewedWith: string | null
  jobId: string | null
  saved: string | null
}

export type ReportFormAction =
  | { type: 'settings'; patch: Partial<ReportSettings> }
  | { type: 'previewed'; preview: ReportPreview; key: string }
  | { type: 'exporting'; jobId: string }
  | { type: 'saved'; text: string | null }
  /** After an officer act (preview or export), the passphrase is forgotten whatever the outcome. */
  | { type: 'forgetPassphrase' }
  /** The preview's own period written into the form (its exact end: the same settings give the same data and hash later). */
  | { type: 'keepPeriod'; registeredOfficers: readonly string[] }

export const initialReportForm: ReportForm = {
  settings: {
    scope: 'all',
    from: '',
    to: '',
    edition: 'analyst',
    officer: '',
    reason: '',
    passphrase: '',
    format: 'pdf',
    table: 'ledger',
    pageSize: 'A4'
  },
  preview: null,
  previewedWith: null,
  jobId: null,
  saved: null
}

export function reportFormReducer(form: ReportForm, a: ReportFormAction): ReportForm {
  switch (a.type) {
    case 'settings':
      return { ...form, settings: { ...form.settings, ...a.patch } }
    case 'previewed':
      return { ...form, preview: a.preview, previewedWith: a.key, jobId: null, saved: null }
    case 'exporting':
      return { ...form, jobId: a.jobId, saved: null }
    case 'saved':
      return { ...form, saved: a.text }
    case 'forgetPassphrase':
      return { ...form, settings: { ...form.settings, passphrase: '' } }
    case 'keepPeriod': {
      if (!form.preview) return form
      const { from, to } = form.preview.data.period
      const kept: ReportForm = { ...form, settings: { ...form.settings, from: from ?? '', to } }
      // Still the preview on screen when it was before: it is the report of exactly these settings.
      const same = form.previewedWith === previewKey(form, a.registeredOfficers)
      return same ? { ...kept, previewedWith: previewKey(kept, a.registeredOfficers) } : kept
    }
  }
}

export interface ResolvedReportForm {
  /** What Preview sends; null while something is missing (`why`). */
  previewRequest: ReportRequest | null
  /** What Export sends: the previewed report when the settings did not change (same end of period: same data, same hash). */
  exportRequest: RequestOf<'reports/export'> | null
  why: string | null
  /** The settings are those of the preview on screen. */
  samePreview: boolean
}

/** The settings that make the report (not how it is written out, nor the passphrase), as a key. */
function reportKey(s: ReportSettings, officer: string): string {
  return JSON.stringify([s.scope, s.from.trim(), s.to.trim(), s.edition, s.edition === 'officer' ? [officer, s.reason.trim()] : null])
}

export function resolveReportForm(form: ReportForm, registeredOfficers: readonly string[]): ResolvedReportForm {
  const s = form.settings
  const officer = s.officer.trim() || (registeredOfficers.length === 1 ? registeredOfficers[0] : '')
  const key = reportKey(s, officer)
  const samePreview = form.preview !== null && form.previewedWith === key
  const why =
    s.edition !== 'officer'
      ? null
      : registeredOfficers.length === 0
        ? 'The officer edition opens sealed costs with an officer’s key, and no privacy officer is registered yet: set one up under “Privacy officers” on the Ledger screen.'
        : officer === ''
          ? 'Choose the officer who opens the sealed costs.'
          : s.reason.trim().length < 3
            ? 'Give the reason for reading the sealed costs (a few words): it is recorded.'
            : s.passphrase === ''
              ? `Give the passphrase of “${officer}”: it opens the sealed costs, and each opening is signed and recorded.`
              : null
  if (why !== null) return { previewRequest: null, exportRequest: null, why, samePreview }
  const r: ReportRequest = { edition: s.edition }
  if (s.scope !== 'all') r.datasetId = Number(s.scope)
  if (s.from.trim()) r.from = s.from.trim()
  if (s.to.trim()) r.to = s.to.trim()
  if (s.edition === 'officer') {
    r.officer = officer
    r.reason = s.reason.trim()
    r.passphrase = s.passphrase
  }
  const exportBase = samePreview && form.preview ? { ...r, to: form.preview.data.period.to } : r
  return {
    previewRequest: r,
    exportRequest: {
      ...exportBase,
      format: s.format,
      table: s.format === 'csv' ? s.table : undefined,
      pageSize: s.format === 'pdf' ? s.pageSize : undefined
    },
    why: null,
    samePreview
  }
}

/** The key the preview is recorded under (see `resolveReportForm`). */
export function previewKey(form: ReportForm, registeredOfficers: readonly string[]): string {
  const s = form.settings
  return reportKey(s, s.officer.trim() || (registeredOfficers.length === 1 ? registeredOfficers[0] : ''))
}
