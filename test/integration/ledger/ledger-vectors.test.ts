/**
 * The ledger test vectors (test/fixtures/ledger-vectors, written by `npm run vectors:ledger`): `ledger verify` gives each
 * vector's expected verdict on the workspace rebuilt from the vector's records, so the checked-in bytes are what the
 * verdicts are about (a verifier written outside Quiet Alarm is held to the same verdicts: python-verifier.test.ts).
 */
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { verifyLedger } from '../../../src-main/services/ledger/verify'
import { isUserError } from '../../../src-main/services/platform/errors'
import { TAMPERS, VECTOR_DIR } from '../../support/ledger-vectors'
import { type LedgerVector, type VectorVerdict, workspaceOfVector } from '../../support/vector-workspace'
import { tempWorkspace } from '../helpers'

const files = readdirSync(VECTOR_DIR)
  .filter((f) => f.endsWith('.json'))
  .sort()
const vectors = files.map((f) => JSON.parse(readFileSync(join(VECTOR_DIR, f), 'utf8')) as LedgerVector)

const ws = tempWorkspace('qa-vectors-')
afterAll(() => ws.cleanup())

function verdict(v: LedgerVector): VectorVerdict {
  const store = workspaceOfVector(join(ws.dir, `${v.name}.sqlite`), v)
  try {
    const r = verifyLedger(store.db, undefined, v.receipt)
    return { ok: r.ok, firstBrokenSeq: r.firstBroken?.seq ?? null }
  } catch (e) {
    if (isUserError(e) && v.receipt !== undefined) return { ok: 'refused', firstBrokenSeq: null }
    throw e
  } finally {
    store.close()
  }
}

describe('ledger test vectors', () => {
  it('one vector per tamper the generator knows, at least 22 of them negative', () => {
    expect(vectors.map((v) => v.name).sort()).toEqual(TAMPERS.map((t) => t.name).sort())
    expect(vectors.filter((v) => v.expected.ok !== true).length).toBeGreaterThanOrEqual(22)
  })

  it('the vectors carry no wrapped keys or sealed costs in their records (those are for rebuilding the workspace only)', () => {
    for (const v of vectors) {
      const text = JSON.stringify(v.records)
      for (const w of Object.values(v.workspace.wrapped)) expect(text).not.toContain(JSON.parse(w).aead.data)
      for (const s of v.workspace.sealedCosts) expect(text).not.toContain(s.sealed.slice(0, 64))
    }
  })

  for (const v of vectors) {
    it(`${v.name}: ledger verify says ${v.expected.ok === true ? 'verified' : v.expected.ok === 'refused' ? 'receipt refused' : `FAILED at ${v.expected.firstBrokenSeq}`}`, () => {
      expect(verdict(v)).toEqual(v.expected)
    })
  }
})
