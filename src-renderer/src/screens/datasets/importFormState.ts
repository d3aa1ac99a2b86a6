/**
 * The import form as one value, its transitions (a reducer: pick -> preview -> choices -> started) and what it stands
 * for (a pure resolver: the request, why it cannot be sent yet, the privacy unit and the reason it was chosen). No
 * React: unit-tested under Node (test/unit/renderer/import-form.test.ts).
 */
import type { ColumnType, FileHandle, ImportRequest, PreviewFileResponse } from '../../../../src-main/contract'
import { stripExtension } from '../../components/fileName'
import { personUnitSuggestion, preselectedUnitReason } from '../../components/privacyUnitText'
import { likelyPersonColumn, preselectedPersonColumn } from '../queries/columnDefaultsDefinition'

export interface ImportForm {
  /** Picks so far: tells a new preview (or pick error) from the previous one. */
  picks: number
  picked: FileHandle | null
  preview: PreviewFileResponse | null
  /** The type of each column (the inferred one until the user changes it). */
  types: Record<string, ColumnType>
  name: string
  onBadRow: 'abort' | 'skip'
  /** The privacy unit: '' = each row is a different person (row-level), else the person column. */
  personColumn: string
  /** 'app': preselected from the column names (the reason is shown, and it follows type changes); 'user': chosen. */
  unitChosenBy: 'app' | 'user'
  /** Person-level only: columns declared to hold one value per person (checked over every row at import). */
  perPerson: string[]
  jobId: string | null
}

export type ImportFormAction =
  | { type: 'pick' }
  | { type: 'previewed'; file: FileHandle; preview: PreviewFileResponse }
  | { type: 'columnType'; column: string; columnType: ColumnType }
  | { type: 'name'; name: string }
  | { type: 'onBadRow'; onBadRow: 'abort' | 'skip' }
  | { type: 'unit'; personColumn: string }
  | { type: 'perPerson'; column: string; on: boolean }
  | { type: 'started'; jobId: string }

export const initialImportForm: ImportForm = {
  picks: 0,
  picked: null,
  preview: null,
  types: {},
  name: '',
  onBadRow: 'abort',
  personColumn: '',
  unitChosenBy: 'app',
  perPerson: [],
  jobId: null
}

function typedColumns(preview: PreviewFileResponse, types: Record<string, ColumnType>): Array<{ name: string; type: ColumnType }> {
  return preview.columns.map((c) => ({ name: c.name, type: types[c.name] ?? c.inferredType }))
}

export function importFormReducer(form: ImportForm, a: ImportFormAction): ImportForm {
  switch (a.type) {
    case 'pick':
      // A new pick forgets the previous file, its preview and its job; the name, unit and choices come with the next preview.
      return { ...form, picks: form.picks + 1, picked: null, preview: null, types: {}, jobId: null }
    case 'previewed': {
      const types = Object.fromEntries(a.preview.columns.map((c) => [c.name, c.inferredType]))
      const person = preselectedPersonColumn(typedColumns(a.preview, types)) ?? ''
      return {
        ...form,
        picked: a.file,
        preview: a.preview,
        types,
        name: stripExtension(a.file.fileName),
        personColumn: person,
        unitChosenBy: 'app',
        perPerson: [],
        jobId: null
      }
    }
    case 'columnType': {
      const types = { ...form.types, [a.column]: a.columnType }
      if (form.unitChosenBy === 'user' || !form.preview) return { ...form, types }
      // A preselected unit follows the types: a column typed as a time or a decimal no longer names a person.
      const person = preselectedPersonColumn(typedColumns(form.preview, types)) ?? ''
      return { ...form, types, personColumn: person, perPerson: form.perPerson.filter((c) => c !== person) }
    }
    case 'name':
      return { ...form, name: a.name }
    case 'onBadRow':
      return { ...form, onBadRow: a.onBadRow }
    case 'unit':
      return { ...form, personColumn: a.personColumn, unitChosenBy: 'user', perPerson: form.perPerson.filter((c) => c !== a.personColumn) }
    case 'perPerson': {
      const others = form.perPerson.filter((c) => c !== a.column)
      const next = a.on ? [...others, a.column] : others
      // In the file's column order, whatever the ticking order.
      const order = form.preview?.columns.map((c) => c.name) ?? next
      return { ...form, perPerson: order.filter((c) => next.includes(c)) }
    }
    case 'started':
      return { ...form, jobId: a.jobId }
  }
}

export interface ResolvedImportForm {
  /** The request the Import button sends; null while something is missing (`why` says what). */
  request: ImportRequest | null
  why: string | null
  /** The columns with their current types (empty before a preview). */
  columns: Array<{ name: string; type: ColumnType }>
  /** Why the privacy unit shown was preselected (null when the user chose it, or nothing was detected). */
  unitReason: string | null
  /** A row-level choice next to a column that looks like a person: what to consider. */
  unitSuggestion: string | null
  /** The columns that may be declared one value per person (person-level only: every column but the person column). */
  perPersonOptions: string[]
}

export function resolveImportForm(form: ImportForm): ResolvedImportForm {
  const preview = form.preview
  if (!preview || !form.picked) {
    return { request: null, why: 'Pick a file first.', columns: [], unitReason: null, unitSuggestion: null, perPersonOptions: [] }
  }
  const columns = typedColumns(preview, form.types)
  const names = columns.map((c) => c.name)
  const person = names.includes(form.personColumn) ? form.personColumn : ''
  const likely = likelyPersonColumn(columns)
  const unitReason = person !== '' && form.unitChosenBy === 'app' ? preselectedUnitReason(person) : null
  const unitSuggestion = person === '' && likely ? personUnitSuggestion(likely) : null
  const perPersonOptions = person === '' ? [] : names.filter((n) => n !== person)
  const perPerson = form.perPerson.filter((c) => perPersonOptions.includes(c))
  const name = form.name.trim()
  const why = name === '' ? 'Give the dataset a name to import it.' : null
  const overrides = Object.fromEntries(
    preview.columns.filter((c) => form.types[c.name] && form.types[c.name] !== c.inferredType).map((c) => [c.name, form.types[c.name]])
  )
  const request: ImportRequest | null =
    why !== null
      ? null
      : {
          fileId: form.picked.fileId,
          name,
          delimiter: preview.delimiter,
          types: overrides,
          onBadRow: form.onBadRow,
          reportBadRows: 50,
          ...(person !== '' ? { personColumn: person } : {}),
          ...(perPerson.length > 0 ? { perPersonColumns: perPerson } : {})
        }
  return { request, why, columns, unitReason, unitSuggestion, perPersonOptions }
}
