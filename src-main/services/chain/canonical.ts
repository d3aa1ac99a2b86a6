/**
 * Canonical serialisation and hashing of ledger entries. The hash of entry n is
 * SHA-256( prev_hash || "\n" || canonical(fields of entry n) ), where canonical() is JSON with keys sorted at every level
 * and no whitespace: byte-identical to RFC 8785 (JCS) on every value it is given. The hashed fields hold integers,
 * strings and nulls only (`cells` and `detail` are hashed as the strings stored). docs/spec/v1/ledger.md states the
 * bytes for verifiers written without this code.
 */
import { createHash } from 'node:crypto'
import type { LedgerEntryRecord } from '../../contract/ledger-records'

export const GENESIS_HASH = '0'.repeat(64)

export function canonicalJson(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value)
    case 'boolean':
      return value ? 'true' : 'false'
    case 'number':
      if (!Number.isFinite(value)) throw new RangeError('canonical JSON has no non-finite numbers')
      return JSON.stringify(value)
    case 'object': {
      const obj = value as Record<string, unknown>
      const keys = Object.keys(obj)
        .filter((k) => obj[k] !== undefined)
        .sort()
      return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(',')}}`
    }
    default:
      throw new RangeError(`canonical JSON cannot hold a ${typeof value}`)
  }
}

/** The fields of a ledger entry that the hash covers (every column except the hashes themselves and the signature). */
export type HashedEntryFields = Omit<LedgerEntryRecord, 'prevHash' | 'hash' | 'signer' | 'signature'> & {
  /** The signing officer's key id (signed entries only; undefined leaves the field out of the hash). */
  signer?: string
}

const str = JSON.stringify
const isInt = (x: unknown) => typeof x === 'number' && Number.isFinite(x)

/**
 * `canonicalJson(fields)` written out for the fixed shape of an entry (keys in sorted order), checked against the
 * generic one in test/unit/canonical.test.ts: the kernel hashes every entry at each fresh reading, and the generic
 * function's key sorting was most of that time. Anything of another type takes the generic path.
 */
export function canonicalEntryText(f: HashedEntryFields): string {
  if (
    typeof f.actor !== 'string' ||
    !isInt(f.amountNano) ||
    typeof f.at !== 'string' ||
    typeof f.cells !== 'string' ||
    !isInt(f.datasetId) ||
    typeof f.datasetName !== 'string' ||
    typeof f.description !== 'string' ||
    typeof f.detail !== 'string' ||
    typeof f.kind !== 'string' ||
    (f.notion !== null && typeof f.notion !== 'string') ||
    (f.releaseId !== null && !isInt(f.releaseId)) ||
    !isInt(f.seq) ||
    (f.signer !== undefined && typeof f.signer !== 'string')
  )
    return canonicalJson(f)
  return (
    `{"actor":${str(f.actor)},"amountNano":${str(f.amountNano)},"at":${str(f.at)},"cells":${str(f.cells)},"datasetId":${str(f.datasetId)},` +
    `"datasetName":${str(f.datasetName)},"description":${str(f.description)},"detail":${str(f.detail)},"kind":${str(f.kind)},` +
    `"notion":${f.notion === null ? 'null' : str(f.notion)},"releaseId":${f.releaseId === null ? 'null' : str(f.releaseId)},"seq":${str(f.seq)}` +
    `${f.signer === undefined ? '' : `,"signer":${str(f.signer)}`}}`
  )
}

export function entryHash(prevHash: string, fields: HashedEntryFields): string {
  return createHash('sha256').update(prevHash).update('\n').update(canonicalEntryText(fields)).digest('hex')
}
