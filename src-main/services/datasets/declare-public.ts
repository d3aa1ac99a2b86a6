/**
 * Declaring a dataset public (ALGORITHMS.md section 5): the privacy officer's act, with a reason, recorded as a signed
 * ledger entry of kind 'public' (hash-chained), an audit event and a checkpoint.
 */
import type Database from 'better-sqlite3'
import type { LedgerEntry } from '../../contract/ledger'
import { UserError } from '../platform/errors'
import { appendEntry, recordAudit } from '../chain/ledger-chain'
import { getDataset } from '../catalog/catalog'
import { datasetUidFact } from '../catalog/fresh-dataset-id'
import { toLedgerEntry } from '../ledger/ledger-views'
import { refuseUnlessVerifies, writeCheckpoint } from '../trust/checkpoints'
import { unlockOfficer } from '../trust/officers'

export interface DeclarePublicInput {
  datasetId: number
  reason: string
  /** The officer's registered name or key id (may be left out when only one officer is registered). */
  officer?: string
  /** The officer's passphrase: declaring a dataset public is an officer act, signed. Never stored. */
  passphrase?: string
}

/** The officer's act: records that `datasetId` is public. Idempotent acts are refused (it is already public). */
export function declarePublic(db: Database.Database, input: DeclarePublicInput): LedgerEntry {
  const ds = getDataset(db, input.datasetId)
  const reason = typeof input.reason === 'string' ? input.reason.trim() : ''
  if (reason.length < 3)
    throw new UserError('Declaring a dataset public needs a reason (a few words saying why its values may be released); it is recorded in the ledger')
  if (reason.length > 500) throw new UserError('The reason is too long (at most 500 characters)')
  if (ds.info.public) throw new UserError(`Dataset "${ds.info.name}" is already public`, 'conflict')
  const key = unlockOfficer(db, { officer: input.officer, passphrase: input.passphrase })
  const officer = key.name
  const run = db.transaction(() => {
    refuseUnlessVerifies(db)
    const row = appendEntry(db, {
      kind: 'public',
      datasetId: ds.info.id,
      datasetName: ds.info.name,
      notion: null,
      amountNano: 0,
      cells: [],
      releaseId: null,
      actor: officer.slice(0, 100),
      description: reason,
      detail: { act: 'declare-public', ...datasetUidFact(db, ds.info.id), columns: ds.info.columns.map((c) => c.name) },
      signer: key
    })
    recordAudit(db, 'officer/declare-public', officer.slice(0, 100), `dataset:${ds.info.id}`, { seq: row.seq, reason })
    writeCheckpoint(db, key)
    return row
  })
  return toLedgerEntry(run.immediate())
}
