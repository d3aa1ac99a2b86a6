/**
 * The written-out canonical texts of a ledger entry and of an audit event (the hashes every chain check recomputes)
 * are exactly the generic canonical JSON of the same fields, for random values of every shape a row can hold (strings
 * with quotes, escapes and non-ASCII, nulls, absent signers, large integers), and for values of an unexpected type.
 */
import { describe, expect, it } from 'vitest'
import { canonicalAuditText } from '../../src-main/services/chain/audit-chain'
import { type HashedEntryFields, canonicalEntryText, canonicalJson } from '../../src-main/services/chain/canonical'
import { seededRng } from '../../src-worker/engine/random'

const rng = seededRng('canonical-texts')
const pick = <T>(xs: T[]): T => xs[Math.floor(rng.next() * xs.length)]
const text = () => pick(['', 'a', 'He said "no"', 'back\\slash', 'line\nbreak', 'tab\t', 'é ✓ 𝄞', '\u0000\u001f', '{"json":[1,2]}'])
const int = () => pick([0, 1, 42, 2 ** 31, Number.MAX_SAFE_INTEGER, 1e15])

describe('canonical entry and audit texts', () => {
  it('equal the generic canonical JSON on 5,000 random rows', () => {
    for (let i = 0; i < 5000; i++) {
      const e: HashedEntryFields = {
        seq: int(),
        at: text(),
        kind: pick(['charge', 'budget', 'public', text()]),
        datasetId: int(),
        datasetName: text(),
        notion: pick([null, 'eps-dp', text()]),
        amountNano: int(),
        cells: text(),
        releaseId: pick([null, int()]),
        actor: text(),
        description: text(),
        detail: text(),
        signer: pick([undefined, text()])
      }
      expect(canonicalEntryText(e)).toBe(canonicalJson(e))
      const a = { id: int(), at: text(), kind: text(), actor: text(), subject: pick([null, text()]), detail: text(), signer: pick([null, text()]) }
      expect(canonicalAuditText(a)).toBe(canonicalJson({ ...a, signer: a.signer ?? undefined }))
    }
  })

  it('take the generic path for a value of another type (a row written with the file)', () => {
    const odd = {
      seq: '7',
      at: 1,
      kind: true,
      datasetId: 1.5,
      datasetName: null,
      notion: 3,
      amountNano: -1,
      cells: [],
      releaseId: 'x',
      actor: 'a',
      description: 'd',
      detail: {}
    }
    expect(canonicalEntryText(odd as never)).toBe(canonicalJson(odd))
  })
})
