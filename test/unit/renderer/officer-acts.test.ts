/**
 * Who an officer act is by, as the app's ledger screens and the CLI show it (contract/officer-acts.ts): a name that no
 * officer's key signed is never shown as the officer's ("by Mallory"), only as what was recorded.
 */
import { describe, expect, it } from 'vitest'
import { actedBy, actingOfficer, unsignedActsText } from '../../../src-main/contract/officer-acts'

describe('the author of an officer act', () => {
  it('a signed act is by its officer; an unsigned one only names what was recorded', () => {
    expect(actedBy({ actor: 'Dana', signed: true })).toBe('by Dana')
    expect(actedBy({ actor: 'Mallory', signed: false })).toBe('(unsigned, recorded as "Mallory")')
    expect(actingOfficer({ actor: 'Dana', signed: true })).toBe('Dana')
    expect(actingOfficer({ actor: 'Mallory', signed: false })).toBe('(unsigned, recorded as "Mallory")')
  })

  it('a server that does not say whether an act is signed (an older one) shows the recorded name as before', () => {
    expect(actedBy({ actor: 'Dana' })).toBe('by Dana')
    expect(actingOfficer({ actor: 'Dana' })).toBe('Dana')
  })

  it('the warning while unsigned acts are in force says how many, in one sentence', () => {
    expect(unsignedActsText(1)).toMatch(/^NO OFFICER IS REGISTERED: 1 budget and public act in force is unsigned \(/)
    expect(unsignedActsText(3)).toMatch(/^NO OFFICER IS REGISTERED: 3 budget and public acts in force are unsigned \(.*\)\.$/)
  })
})
