/**
 * Officer acts in tests: budgets, public declarations and unlocks must be signed by a registered officer.
 * `officerAct(db, name)` registers that officer once per workspace (the first by itself, later ones added by the first)
 * and returns the credentials to spread into the act's request: `setBudget(db, { ...input, ...officerAct(db) })`.
 */
import type Database from 'better-sqlite3'
import { listOfficers, registerOfficer } from '../../src-main/services/trust/officers'

export const TEST_OFFICER = 'Test Officer'

/** Each test officer's passphrase (test data only). */
export const testPassphrase = (name: string) => `test passphrase of ${name}`

export function officerAct(db: Database.Database, name: string = TEST_OFFICER): { officer: string; passphrase: string } {
  const officers = listOfficers(db)
  if (!officers.some((o) => o.name === name)) {
    const first = officers[0]
    registerOfficer(db, {
      name,
      passphrase: testPassphrase(name),
      by: first ? { officer: first.name, passphrase: testPassphrase(first.name) } : undefined
    })
  }
  return { officer: name, passphrase: testPassphrase(name) }
}
