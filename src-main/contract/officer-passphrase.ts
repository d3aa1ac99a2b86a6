/**
 * The rules of a privacy officer's passphrase, said once for every door (the app's form, the CLI's prompt). The
 * passphrase wraps the officer's signing and sealing keys: it is never stored, and it cannot be recovered.
 */
export const OFFICER_PASSPHRASE_MIN_CHARS = 12

/** The rules in words, for the form that asks for a new passphrase. */
export const OFFICER_PASSPHRASE_RULES = [
  `At least ${OFFICER_PASSPHRASE_MIN_CHARS} characters; a few unrelated words are long and easy to remember.`,
  'It protects the officer’s key: every budget, public declaration, unlock and checkpoint is signed with it.',
  'It is never stored and cannot be recovered: if it is lost, the key can no longer sign (another registered officer can add a new one).'
] as const

/** Why a new passphrase (typed twice) cannot be used yet, in one sentence; null when it can. */
export function newPassphraseProblem(passphrase: string, repeated: string): string | null {
  const chars = [...passphrase].length
  if (chars === 0) return 'Choose a passphrase for the new officer.'
  if (chars < OFFICER_PASSPHRASE_MIN_CHARS)
    return `The passphrase has ${chars} ${chars === 1 ? 'character' : 'characters'}; it needs at least ${OFFICER_PASSPHRASE_MIN_CHARS}.`
  if (passphrase.trim() === '') return 'The passphrase cannot be only spaces.'
  if (repeated !== passphrase)
    return repeated === '' ? 'Type the passphrase again to confirm it.' : 'The two passphrases differ: type the same one twice.'
  return null
}
