/**
 * The passphrase's key derivation on the KDF worker (kdf-worker.ts, officer-crypto.ts `beginUnwrapKeys`): the key it
 * gives is the key derived on the calling thread, it opens exactly what `unwrapKeys` opens, and a worker that fails or is
 * stopped gives an error that names no passphrase, after which the next derivation works.
 */
import { scryptSync } from 'node:crypto'
import { afterAll, describe, expect, it } from 'vitest'
import { KdfError, beginScrypt, closeKdfWorker } from '../../src-main/services/trust/kdf-worker'
import { beginUnwrapKeys, createKeyPair, signText, unwrapKeys, verifyText } from '../../src-main/services/trust/officer-crypto'

const MAXMEM = 256 * 1024 * 1024

afterAll(() => closeKdfWorker())

describe('the KDF worker', () => {
  it('derives the key scrypt derives on this thread, for every parameter set, once', () => {
    const salt = Buffer.from('0123456789abcdef0123456789abcdef', 'hex')
    for (const [N, r, p] of [
      [2 ** 10, 1, 1],
      [2 ** 14, 8, 2],
      [2 ** 17, 8, 1]
    ]) {
      const derived = beginScrypt('a passphrase of twelve', { salt: salt.toString('base64'), N, r, p, maxmem: MAXMEM })
      const key = derived.wait()
      expect(key.equals(scryptSync('a passphrase of twelve', salt, 32, { N, r, p, maxmem: MAXMEM }))).toBe(true)
      // Taken once: a second wait has no key to give (the caller zeroes the one it took).
      expect(() => derived.wait()).toThrow(/taken once/)
    }
  })

  it('opens exactly what unwrapKeys opens: the right passphrase in any Unicode form, nothing else', () => {
    // "é" composed (NFC) when the keys were made, decomposed (NFD) when they are opened: both normalise to NFC.
    const officer = createKeyPair('officer passphrase caf\u00e9')
    const publics = { signPublic: officer.signPublic, sealPublic: officer.sealPublic }
    const keys = beginUnwrapKeys(officer.keyId, officer.wrapped, 'officer passphrase cafe\u0301', publics).wait()
    expect(keys).not.toBeNull()
    expect(verifyText(officer.signPublic, 'checkpoint', signText(keys!.signKey, 'checkpoint'))).toBe(true)
    expect(unwrapKeys(officer.keyId, officer.wrapped, 'officer passphrase cafe\u0301', publics)).not.toBeNull()

    // A wrong passphrase, another key id (bound as associated data), other registered public keys: nothing opens.
    const other = createKeyPair('another officer passphrase')
    expect(beginUnwrapKeys(officer.keyId, officer.wrapped, 'officer passphrase cafe', publics).wait()).toBeNull()
    expect(beginUnwrapKeys(other.keyId, officer.wrapped, 'officer passphrase caf\u00e9', publics).wait()).toBeNull()
    expect(
      beginUnwrapKeys(officer.keyId, officer.wrapped, 'officer passphrase caf\u00e9', {
        signPublic: other.signPublic,
        sealPublic: other.sealPublic
      }).wait()
    ).toBeNull()
    // Parameters written into the file beyond the accepted bounds are refused before any derivation.
    const locked = { ...officer.wrapped, kdf: { ...officer.wrapped.kdf, N: 2 ** 30 } }
    expect(beginUnwrapKeys(officer.keyId, locked, 'officer passphrase caf\u00e9', publics).wait()).toBeNull()
  })

  it("derivations begun one after another are each answered to their own wait, in any order: never another officer's key", () => {
    const olga = createKeyPair('olga passphrase 0001')
    const omar = createKeyPair('omar passphrase 0002')
    const publics = (k: typeof olga) => ({ signPublic: k.signPublic, sealPublic: k.sealPublic })
    // The worker runs one at a time: the second begin takes the first's outcome, which is kept for its own wait.
    const first = beginUnwrapKeys(olga.keyId, olga.wrapped, 'olga passphrase 0001', publics(olga))
    const wrong = beginUnwrapKeys(omar.keyId, omar.wrapped, 'olga passphrase 0001', publics(omar))
    const second = beginUnwrapKeys(omar.keyId, omar.wrapped, 'omar passphrase 0002', publics(omar))
    const omarKeys = second.wait()
    expect(wrong.wait()).toBeNull()
    const olgaKeys = first.wait()
    const signed = (keys: typeof omarKeys) => signText(keys!.signKey, 'checkpoint')
    expect(verifyText(omar.signPublic, 'checkpoint', signed(omarKeys))).toBe(true)
    expect(verifyText(olga.signPublic, 'checkpoint', signed(olgaKeys))).toBe(true)
    expect(verifyText(olga.signPublic, 'checkpoint', signed(omarKeys))).toBe(false)
    expect(() => first.wait()).toThrow(/taken once/)
  })

  it('a derivation that fails, or a worker stopped under it, throws an error naming no passphrase; the next one works', async () => {
    const secret = 'the secret passphrase 7f3a'
    const salt = Buffer.alloc(16, 7).toString('base64')
    // scrypt refuses parameters that need more than maxmem (128 N r bytes): node:crypto's message, not the passphrase.
    const refused = beginScrypt(secret, { salt, N: 2 ** 17, r: 8, p: 1, maxmem: 1024 * 1024 })
    let failure: unknown = null
    try {
      refused.wait()
    } catch (e) {
      failure = e
    }
    expect(failure).toBeInstanceOf(KdfError)
    expect(String((failure as Error).message)).toMatch(/^The key derivation failed: /)
    expect(String((failure as Error).message)).not.toContain(secret)

    const pending = beginScrypt(secret, { salt, N: 2 ** 17, r: 8, p: 1, maxmem: MAXMEM })
    await closeKdfWorker()
    expect(() => pending.wait()).toThrow(KdfError)

    const again = beginScrypt(secret, { salt, N: 2 ** 10, r: 8, p: 1, maxmem: MAXMEM }).wait()
    expect(again.equals(scryptSync(secret, Buffer.from(salt, 'base64'), 32, { N: 2 ** 10, r: 8, p: 1, maxmem: MAXMEM }))).toBe(true)
  })
})
