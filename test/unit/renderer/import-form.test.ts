/**
 * The import form without React (importFormState.ts): a pick, its preview, the privacy unit preselected from a column
 * named like a person (with the reason, following type changes until the user chooses), the columns with one value per
 * person, and the request the Import button sends.
 */
import { describe, expect, it } from 'vitest'
import type { FileHandle, PreviewFileResponse } from '../../../src-main/contract'
import {
  type ImportForm,
  type ImportFormAction,
  importFormReducer,
  initialImportForm,
  resolveImportForm
} from '../../../src-renderer/src/screens/datasets/importFormState'

const FILE: FileHandle = { fileId: 'f1', fileName: 'visits.2024.csv', bytes: 100 }

function preview(cols: Array<[string, 'integer' | 'real' | 'text' | 'timestamp']>): PreviewFileResponse {
  return {
    delimiter: ',',
    hasBom: false,
    fileBytes: 100,
    columns: cols.map(([name, inferredType], i) => ({ position: i + 1, name, inferredType })),
    rows: [],
    inferredFromRows: 10,
    badRows: []
  }
}

const run = (...actions: ImportFormAction[]): ImportForm => actions.reduce(importFormReducer, initialImportForm)
const VISITS = preview([
  ['timestamp', 'timestamp'],
  ['person_id', 'text'],
  ['building', 'text'],
  ['room', 'text']
])

describe('import form', () => {
  it('nothing to send before a file is previewed', () => {
    expect(resolveImportForm(initialImportForm)).toMatchObject({ request: null, why: 'Pick a file first.' })
    expect(resolveImportForm(run({ type: 'pick' }))).toMatchObject({ request: null, why: 'Pick a file first.' })
  })

  it('a column named like a person is preselected as the unit, with the reason, and sent', () => {
    const f = run({ type: 'pick' }, { type: 'previewed', file: FILE, preview: VISITS })
    expect(f.name).toBe('visits.2024')
    expect(f.personColumn).toBe('person_id')
    const r = resolveImportForm(f)
    expect(r.unitReason).toBe(
      'Preselected: the name “person_id” says it identifies a person, so each person (all of their rows together) is protected, not each row. Change it if “person_id” does not name a person, or if every row is a different person.'
    )
    expect(r.unitSuggestion).toBeNull()
    expect(r.request).toEqual({
      fileId: 'f1',
      name: 'visits.2024',
      delimiter: ',',
      types: {},
      onBadRow: 'abort',
      reportBadRows: 50,
      personColumn: 'person_id'
    })
  })

  it('preselected only when the name says it identifies a person; a count of people ("persons") is only suggested', () => {
    const pick = (cols: Array<[string, 'integer' | 'real' | 'text' | 'timestamp']>) =>
      run({ type: 'previewed', file: FILE, preview: preview(cols) }).personColumn
    expect(pick([['patient_no', 'integer']])).toBe('patient_no')
    expect(pick([['User ID', 'text']])).toBe('User ID')
    expect(pick([['badge', 'text']])).toBe('badge')
    expect(
      pick([
        ['room', 'text'],
        ['persons', 'integer']
      ])
    ).toBe('')
    expect(pick([['visitors', 'text']])).toBe('')
    expect(pick([['user', 'integer']])).toBe('')
    const counted = run({
      type: 'previewed',
      file: FILE,
      preview: preview([
        ['room', 'text'],
        ['persons', 'integer']
      ])
    })
    expect(resolveImportForm(counted).unitSuggestion).toMatch(/^“persons” looks like it names a person/)
  })

  it('no person-like column: row-level, no reason, no suggestion', () => {
    const f = run({
      type: 'previewed',
      file: FILE,
      preview: preview([
        ['room', 'text'],
        ['capacity', 'integer']
      ])
    })
    const r = resolveImportForm(f)
    expect(f.personColumn).toBe('')
    expect(r).toMatchObject({ unitReason: null, unitSuggestion: null, perPersonOptions: [] })
    expect(r.request).not.toHaveProperty('personColumn')
  })

  it('the user may change it: row-level is kept (with a suggestion), and type changes no longer move it', () => {
    const f = run({ type: 'previewed', file: FILE, preview: VISITS }, { type: 'unit', personColumn: '' })
    const r = resolveImportForm(f)
    expect(r.unitReason).toBeNull()
    expect(r.unitSuggestion).toMatch(/^“person_id” looks like it names a person/)
    expect(r.request).not.toHaveProperty('personColumn')
    const typed = importFormReducer(f, { type: 'columnType', column: 'person_id', columnType: 'integer' })
    expect(typed.personColumn).toBe('')
    expect(resolveImportForm(typed).request?.types).toEqual({ person_id: 'integer' })
  })

  it('a preselected unit follows the types: a person column typed as a time is no longer one', () => {
    const f = run({ type: 'previewed', file: FILE, preview: VISITS }, { type: 'columnType', column: 'person_id', columnType: 'timestamp' })
    expect(f.personColumn).toBe('')
    expect(resolveImportForm(f).unitReason).toBeNull()
  })

  it('columns with one value per person: offered on a person-level import only, in file order, never the person column', () => {
    const f = run(
      { type: 'previewed', file: FILE, preview: VISITS },
      { type: 'perPerson', column: 'room', on: true },
      { type: 'perPerson', column: 'building', on: true }
    )
    const r = resolveImportForm(f)
    expect(r.perPersonOptions).toEqual(['timestamp', 'building', 'room'])
    expect(r.request?.perPersonColumns).toEqual(['building', 'room'])
    const off = importFormReducer(f, { type: 'perPerson', column: 'room', on: false })
    expect(resolveImportForm(off).request?.perPersonColumns).toEqual(['building'])
    // Choosing "building" as the person column drops it from the declared ones; row-level sends none.
    const asPerson = importFormReducer(f, { type: 'unit', personColumn: 'building' })
    expect(resolveImportForm(asPerson).request).toMatchObject({ personColumn: 'building', perPersonColumns: ['room'] })
    const rowLevel = importFormReducer(f, { type: 'unit', personColumn: '' })
    expect(resolveImportForm(rowLevel).perPersonOptions).toEqual([])
    expect(resolveImportForm(rowLevel).request).not.toHaveProperty('perPersonColumns')
  })

  it('a name is needed; type overrides are sent only where they differ from the inferred type; a new pick forgets the file', () => {
    let f = run({ type: 'previewed', file: FILE, preview: VISITS }, { type: 'name', name: '  ' })
    expect(resolveImportForm(f)).toMatchObject({ request: null, why: 'Give the dataset a name to import it.' })
    f = run(
      { type: 'previewed', file: FILE, preview: VISITS },
      { type: 'columnType', column: 'room', columnType: 'integer' },
      { type: 'columnType', column: 'building', columnType: 'text' },
      { type: 'onBadRow', onBadRow: 'skip' }
    )
    expect(resolveImportForm(f).request).toMatchObject({ types: { room: 'integer' }, onBadRow: 'skip' })
    const started = importFormReducer(f, { type: 'started', jobId: 'j1' })
    expect(started.jobId).toBe('j1')
    const again = importFormReducer(started, { type: 'pick' })
    expect(again).toMatchObject({ picks: 1, picked: null, preview: null, jobId: null })
  })
})
