/**
 * Registering a privacy officer in the app (registerOfficerState.ts) and the passphrase rules said once for every door
 * (contract/officer-passphrase.ts, the same minimum the services enforce).
 */
import { describe, expect, it } from 'vitest'
import { OFFICER_PASSPHRASE_MIN_CHARS, newPassphraseProblem } from '../../../src-main/contract/officer-passphrase'
import { MIN_PASSPHRASE } from '../../../src-main/services/trust/officers'
import { emptyRegisterOfficerForm, resolveRegisterOfficer } from '../../../src-renderer/src/screens/ledger/registerOfficerState'

const PASS = 'correct horse battery staple'

describe('new passphrase', () => {
  it('the rule the form states is the one the services enforce', () => {
    expect(OFFICER_PASSPHRASE_MIN_CHARS).toBe(MIN_PASSPHRASE)
  })

  it('says what is wrong, in one sentence', () => {
    expect(newPassphraseProblem('', '')).toBe('Choose a passphrase for the new officer.')
    expect(newPassphraseProblem('short', '')).toBe('The passphrase has 5 characters; it needs at least 12.')
    expect(newPassphraseProblem(' '.repeat(12), ' '.repeat(12))).toBe('The passphrase cannot be only spaces.')
    expect(newPassphraseProblem(PASS, '')).toBe('Type the passphrase again to confirm it.')
    expect(newPassphraseProblem(PASS, PASS + '!')).toBe('The two passphrases differ: type the same one twice.')
    expect(newPassphraseProblem(PASS, PASS)).toBeNull()
    // Characters, not UTF-16 units: 12 emoji are 12 characters.
    expect(newPassphraseProblem('🔑'.repeat(11), '🔑'.repeat(11))).toBe('The passphrase has 11 characters; it needs at least 12.')
  })
})

describe('register an officer', () => {
  it('the first officer: a name and a passphrase twice', () => {
    expect(resolveRegisterOfficer(emptyRegisterOfficerForm, [])).toMatchObject({ request: null, first: true, why: /name/ })
    const r = resolveRegisterOfficer({ ...emptyRegisterOfficerForm, name: ' Dana ', passphrase: PASS, repeated: PASS }, [])
    expect(r).toEqual({ request: { name: 'Dana', passphrase: PASS }, why: null, first: true })
  })

  it('a later officer is added by a registered one, with their passphrase; names are unique', () => {
    const form = { ...emptyRegisterOfficerForm, name: 'Lee', passphrase: PASS, repeated: PASS }
    expect(resolveRegisterOfficer({ ...form, name: 'Dana' }, ['Dana']).why).toBe(
      'An officer named “Dana” is already registered: choose another name.'
    )
    expect(resolveRegisterOfficer(form, ['Dana']).why).toBe('Give the passphrase of “Dana”: the new officer is added with their signature.')
    expect(resolveRegisterOfficer(form, ['Dana', 'Kim']).why).toBe('Choose the registered officer who adds the new one.')
    const r = resolveRegisterOfficer({ ...form, byPassphrase: 'dana passphrase' }, ['Dana'])
    expect(r).toEqual({ request: { name: 'Lee', passphrase: PASS, by: { officer: 'Dana', passphrase: 'dana passphrase' } }, why: null, first: false })
  })
})
