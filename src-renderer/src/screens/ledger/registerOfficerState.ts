/**
 * The form that registers a privacy officer: the first one of the workspace alone, every later one added by a registered
 * officer whose passphrase signs the registration. Pure (unit-tested under Node): what the form stands for, and the one
 * sentence that says why it cannot be sent yet.
 */
import type { RequestOf } from '../../../../src-main/contract'
import { newPassphraseProblem } from '../../../../src-main/contract/officer-passphrase'

export interface RegisterOfficerForm {
  name: string
  passphrase: string
  repeated: string
  /** The registered officer who adds the new one ('' = the only one registered). */
  byOfficer: string
  byPassphrase: string
}

export const emptyRegisterOfficerForm: RegisterOfficerForm = { name: '', passphrase: '', repeated: '', byOfficer: '', byPassphrase: '' }

export function resolveRegisterOfficer(
  form: RegisterOfficerForm,
  registered: readonly string[]
): { request: RequestOf<'officer/register'> | null; why: string | null; first: boolean } {
  const first = registered.length === 0
  const name = form.name.trim()
  const by = form.byOfficer.trim() || (registered.length === 1 ? registered[0] : '')
  const why =
    name === ''
      ? 'Give the new officer’s name: it is recorded with every act they sign.'
      : registered.includes(name)
        ? `An officer named “${name}” is already registered: choose another name.`
        : (newPassphraseProblem(form.passphrase, form.repeated) ??
          (first
            ? null
            : by === ''
              ? 'Choose the registered officer who adds the new one.'
              : form.byPassphrase === ''
                ? `Give the passphrase of “${by}”: the new officer is added with their signature.`
                : null))
  if (why !== null) return { request: null, why, first }
  return {
    request: { name, passphrase: form.passphrase, ...(first ? {} : { by: { officer: by, passphrase: form.byPassphrase } }) },
    why: null,
    first
  }
}
