/**
 * The charges' ledger details of a dataset, each linked source's fingerprint opened with the officer's key: in the
 * ledger it is sealed to the officers (a file's size or a table's row estimate in clear would tell the analyst about
 * the private rows), which is asserted on the way.
 */
import type Database from 'better-sqlite3'
import { expect } from 'vitest'
import { unlockOfficer } from '../../../src-main/services/trust/officers'
import { openSourceFingerprint } from '../../../src-main/services/trust/source-fingerprint'
import { officerAct } from '../officer-fixture'

export function openedChargeDetails<S>(db: Database.Database, datasetId: number, officer: string): Array<{ params: { source?: S } }> {
  const key = unlockOfficer(db, officerAct(db, officer))
  return (
    db.prepare(`SELECT detail FROM ledger_entries WHERE kind = 'charge' AND dataset_id = ? ORDER BY seq`).all(datasetId) as Array<{ detail: string }>
  ).map((r) => {
    const d = JSON.parse(r.detail)
    const raw = d.params?.source
    if (raw !== undefined) {
      expect(Object.keys(raw).sort()).toEqual(['fingerprint', 'linked', 'sealed'])
      expect(raw.fingerprint).toBe('sealed to the privacy officers')
      d.params.source = openSourceFingerprint(raw, datasetId, key)
    }
    return d
  })
}
