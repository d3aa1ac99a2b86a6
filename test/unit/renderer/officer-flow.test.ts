/**
 * The officer's part of the app as pure rules: the officer field offers the registered officers (officerChoices.ts);
 * "Link a file" chooses the privacy unit among the file's columns (linkFileFormState.ts); a denial and verify lead to
 * the officer's forms (officerAdvice.ts); Settings says how to change the workspace where the app runs
 * (workspaceSwitch.ts); the budget has one name (notions.ts); the first run's link step says it is the officer's.
 */
import { describe, expect, it } from 'vitest'
import type { LedgerVerifyResult, LinkFilePreview } from '../../../src-main/contract'
import { firstRunSteps } from '../../../src-renderer/src/screens/datasets/firstRunDefinition'
import { initialLinkFileForm, linkFileFormReducer, resolveLinkFileForm } from '../../../src-renderer/src/screens/datasets/linkFileFormState'
import { budgetName } from '../../../src-renderer/src/screens/ledger/notions'
import { budgetAsk, checkpointAdvice } from '../../../src-renderer/src/screens/ledger/officerAdvice'
import { officerChoices, resolveOfficerName } from '../../../src-renderer/src/screens/ledger/officerChoices'
import { workspaceSwitch } from '../../../src-renderer/src/screens/settings/workspaceSwitch'

describe('the officer field', () => {
  it('is a choice among the registered officers whenever one is registered, and typed only while none is', () => {
    expect(officerChoices([], '')).toEqual({ kind: 'text' })
    expect(officerChoices(['Dana'], '')).toEqual({ kind: 'select', value: 'Dana', options: [{ value: 'Dana', label: 'Dana' }] })
    const two = officerChoices(['Dana', 'Lee'], '')
    expect(two).toEqual({
      kind: 'select',
      value: '',
      options: [
        { value: '', label: 'Choose…' },
        { value: 'Dana', label: 'Dana' },
        { value: 'Lee', label: 'Lee' }
      ]
    })
    expect(officerChoices(['Dana', 'Lee'], 'Lee')).toMatchObject({ value: 'Lee' })
    // A name that is not (or no longer) registered is not the choice.
    expect(officerChoices(['Dana', 'Lee'], 'Mallory')).toMatchObject({ value: '' })
  })

  it('sends the chosen officer, the only one when none is chosen, and never a name that is not registered', () => {
    expect(resolveOfficerName(['Dana'], '')).toBe('Dana')
    expect(resolveOfficerName(['Dana'], 'Mallory')).toBe('Dana')
    expect(resolveOfficerName(['Dana', 'Lee'], ' Lee ')).toBe('Lee')
    expect(resolveOfficerName(['Dana', 'Lee'], '')).toBe('')
    expect(resolveOfficerName(['Dana', 'Lee'], 'Mallory')).toBe('')
    expect(resolveOfficerName([], ' Dana ')).toBe('Dana')
  })
})

const FILE = { fileId: 'f1', fileName: 'badges.parquet', bytes: 4096 }
const PREVIEW: LinkFilePreview = {
  format: 'parquet',
  columns: [
    { name: 'timestamp', type: 'timestamp' },
    { name: 'room', type: 'text' },
    { name: 'badge_id', type: 'text' },
    { name: 'minutes', type: 'integer' }
  ],
  rows: [['2024-03-12 09:00:00', 'R1', 'b1', '10']]
}

describe('Link a file', () => {
  it('nothing to send before a file is previewed', () => {
    expect(resolveLinkFileForm(initialLinkFileForm)).toMatchObject({ request: null, why: 'Choose a file first.', columns: [] })
  })

  it('preselects a person column found by its name, with the reason; the file’s name names the dataset', () => {
    const form = linkFileFormReducer(linkFileFormReducer(initialLinkFileForm, { type: 'pick' }), { type: 'previewed', file: FILE, preview: PREVIEW })
    const r = resolveLinkFileForm(form)
    expect(r.columns.map((c) => c.name)).toEqual(['timestamp', 'room', 'badge_id', 'minutes'])
    expect(r.request).toEqual({ fileId: 'f1', name: 'badges', personColumn: 'badge_id' })
    expect(r.unitReason).toMatch(/^Preselected: the name “badge_id” says it identifies a person/)
    expect(r.unitSuggestion).toBeNull()
  })

  it('row-level is a choice of its own (the likely person column is then suggested); a chosen column has no "preselected" reason', () => {
    const previewed = linkFileFormReducer(initialLinkFileForm, { type: 'previewed', file: FILE, preview: PREVIEW })
    const rowLevel = resolveLinkFileForm(linkFileFormReducer(previewed, { type: 'unit', personColumn: '' }))
    expect(rowLevel.request).toEqual({ fileId: 'f1', name: 'badges', personColumn: null })
    expect(rowLevel.unitReason).toBeNull()
    expect(rowLevel.unitSuggestion).toMatch(/^“badge_id” looks like it names a person/)
    const room = resolveLinkFileForm(linkFileFormReducer(previewed, { type: 'unit', personColumn: 'room' }))
    expect(room.request?.personColumn).toBe('room')
    expect(room.unitReason).toBeNull()
  })

  it('a file with no person-like column is row-level until one is chosen; a name is required; a new pick forgets the file', () => {
    const plain: LinkFilePreview = {
      ...PREVIEW,
      columns: [
        { name: 'timestamp', type: 'timestamp' },
        { name: 'value', type: 'real' }
      ]
    }
    const form = linkFileFormReducer(initialLinkFileForm, {
      type: 'previewed',
      file: { fileId: 'f2', fileName: 'temp.csv', bytes: 100 },
      preview: plain
    })
    expect(resolveLinkFileForm(form).request).toEqual({ fileId: 'f2', name: 'temp', personColumn: null })
    expect(resolveLinkFileForm(linkFileFormReducer(form, { type: 'name', name: '  ' }))).toMatchObject({
      request: null,
      why: 'Give the linked dataset a name.'
    })
    const again = linkFileFormReducer(form, { type: 'pick' })
    expect(again).toMatchObject({ picks: 1, picked: null, preview: null })
    expect(linkFileFormReducer(form, { type: 'linked' })).toEqual({ ...initialLinkFileForm, picks: 0 })
  })
})

describe('where the officer is led', () => {
  it('a denial that asks the officer to raise or set a budget, and only such a denial', () => {
    expect(budgetAsk('Denied: ... Ask for less accuracy, or ask the privacy officer to raise the budget.')).toBe('raise')
    expect(budgetAsk('Denied: ... Ask for less accuracy, or ask the privacy officer to raise your budget.')).toBe('raise')
    expect(budgetAsk('Denied: ... nothing was spent. Ask the privacy officer to set a budget (quiet-alarm budget).')).toBe('set')
    expect(budgetAsk('Denied: ... Ask the privacy officer to set the budget again (the same figure will do), which signs the unit.')).toBe('set')
    expect(budgetAsk("Denied: the workspace's ledger does not verify (at entry 3: hash); nothing was spent.")).toBeNull()
    expect(budgetAsk(null)).toBeNull()
  })

  const verified = (v: Partial<LedgerVerifyResult>): LedgerVerifyResult => ({
    ok: true,
    entries: 3,
    headHash: 'ab'.repeat(16),
    firstBroken: null,
    message: 'ok',
    ...v
  })

  it('verify: entries or audit events after the last checkpoint end with what to do, for whom', () => {
    const after = verified({ lastCheckpoint: { ledgerSeq: 1, auditId: 2, officer: 'Dana', at: '' }, notCheckpointed: { entries: 2, auditEvents: 0 } })
    expect(checkpointAdvice(after, true)).toBe('Sign a checkpoint now (your passphrase): verify then detects any rewrite or removal of these too.')
    expect(checkpointAdvice(after, false)).toMatch(/^Ask a privacy officer to sign a checkpoint/)
    expect(checkpointAdvice(verified({ notCheckpointed: { entries: 0, auditEvents: 4 } }), true)).not.toBeNull()
    expect(checkpointAdvice(verified({ lastCheckpoint: null }), true)).not.toBeNull()
    expect(checkpointAdvice(verified({ notCheckpointed: { entries: 0, auditEvents: 0 } }), true)).toBeNull()
    expect(checkpointAdvice(verified({ entries: 0, lastCheckpoint: null }), true)).toBeNull()
  })
})

describe('Settings: another workspace', () => {
  it('the desktop app points to its own buttons; a headless page to the server’s start; a service to its custodian', () => {
    const desktop = workspaceSwitch('ipc', 'workbench')
    expect(desktop.kind).toBe('desktop')
    expect(desktop.text).toContain('“Open workspace…”')
    expect(desktop.text).toContain('“New workspace…”')
    expect(desktop.text).not.toMatch(/--db|terminal|QUIET_ALARM_DB/)
    expect(workspaceSwitch('http', 'workbench')).toMatchObject({ kind: 'headless', command: 'npm run serve -- --db PATH' })
    expect(workspaceSwitch('http', 'workbench').text).toMatch(/started with/)
    expect(workspaceSwitch('http', 'service').kind).toBe('service')
    expect(workspaceSwitch('ipc', 'service').kind).toBe('service')
  })
})

describe('names', () => {
  it('the budget that holds every notion together is named by the dataset’s unit', () => {
    expect(budgetName('person')).toBe('budget per person')
    expect(budgetName('row')).toBe('budget per row')
    expect(budgetName(null)).toBe('budget per person (or row)')
  })

  it('the first run’s data step says linking is the officer’s, before anything is chosen', () => {
    const step = firstRunSteps({ officers: 0, datasets: 0, budgeted: 0, queries: 0, releases: 0 }).find((s) => s.id === 'import')!
    expect(step.detail).toContain('is for the privacy officer: the link is signed with the officer’s key')
    const budget = firstRunSteps({ officers: 1, datasets: 1, budgeted: 0, queries: 0, releases: 0 }).find((s) => s.id === 'budget')!
    expect(budget.href).toBe('#/ledger/budget')
  })
})
