/**
 * "Link a file" as one value and its transitions (a reducer: pick -> preview -> choices -> linked) and what it stands
 * for (a pure resolver: the request without the officer's part, why it cannot be sent yet, the privacy unit among the
 * file's columns and why it was chosen). No React: unit-tested under Node (test/unit/renderer/link-file-form.test.ts).
 */
import type { FileHandle, LinkFilePreview } from '../../../../src-main/contract'
import { stripExtension } from '../../components/fileName'
import { personUnitSuggestion, preselectedUnitReason } from '../../components/privacyUnitText'
import { likelyPersonColumn, preselectedPersonColumn } from '../queries/columnDefaultsDefinition'

export interface LinkFileForm {
  /** Picks so far: tells a new preview (or pick error) from the previous one. */
  picks: number
  picked: FileHandle | null
  preview: LinkFilePreview | null
  name: string
  /** The privacy unit: '' = each row is a different person (row-level), else the person column. */
  personColumn: string
  /** 'app': preselected from the column names (the reason is shown); 'user': chosen. */
  unitChosenBy: 'app' | 'user'
}

export type LinkFileFormAction =
  | { type: 'pick' }
  | { type: 'previewed'; file: FileHandle; preview: LinkFilePreview }
  | { type: 'name'; name: string }
  | { type: 'unit'; personColumn: string }
  | { type: 'linked' }

export const initialLinkFileForm: LinkFileForm = { picks: 0, picked: null, preview: null, name: '', personColumn: '', unitChosenBy: 'app' }

export function linkFileFormReducer(form: LinkFileForm, a: LinkFileFormAction): LinkFileForm {
  switch (a.type) {
    case 'pick':
      return { ...form, picks: form.picks + 1, picked: null, preview: null }
    case 'previewed':
      return {
        ...form,
        picked: a.file,
        preview: a.preview,
        name: stripExtension(a.file.fileName),
        personColumn: preselectedPersonColumn(a.preview.columns) ?? '',
        unitChosenBy: 'app'
      }
    case 'name':
      return { ...form, name: a.name }
    case 'unit':
      return { ...form, personColumn: a.personColumn, unitChosenBy: 'user' }
    case 'linked':
      // The file is now a dataset: the next link starts from a new pick.
      return { ...initialLinkFileForm, picks: form.picks }
  }
}

export interface ResolvedLinkFileForm {
  /** What the Link button sends, without the officer's name and passphrase; null while something is missing (`why`). */
  request: { fileId: string; name: string; personColumn: string | null } | null
  why: string | null
  /** The file's columns (empty before a preview): the privacy unit is one of them, or row-level. */
  columns: LinkFilePreview['columns']
  unitReason: string | null
  unitSuggestion: string | null
}

export function resolveLinkFileForm(form: LinkFileForm): ResolvedLinkFileForm {
  const { preview, picked } = form
  if (!preview || !picked) return { request: null, why: 'Choose a file first.', columns: [], unitReason: null, unitSuggestion: null }
  const columns = preview.columns
  const person = columns.some((c) => c.name === form.personColumn) ? form.personColumn : ''
  const likely = likelyPersonColumn(columns)
  const unitReason = person !== '' && form.unitChosenBy === 'app' ? preselectedUnitReason(person) : null
  const unitSuggestion = person === '' && likely ? personUnitSuggestion(likely) : null
  const name = form.name.trim()
  const why = name === '' ? 'Give the linked dataset a name.' : null
  return {
    request: why === null ? { fileId: picked.fileId, name, personColumn: person === '' ? null : person } : null,
    why,
    columns,
    unitReason,
    unitSuggestion
  }
}
