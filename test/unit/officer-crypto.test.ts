/**
 * The officer's cryptography: keys wrapped under the passphrase, signatures, sealing to several officers.
 */
import { describe, expect, it } from 'vitest'
import { SCRYPT, createKeyPair, keyIdOf, seal, signText, unseal, unwrapKeys, verifyText } from '../../src-main/services/trust/officer-crypto'

describe('officer keys', () => {
  const a = createKeyPair('alpha officer passphrase')
  const b = createKeyPair('bravo officer passphrase')

  it('wraps the private keys under scrypt (strong parameters) and AES-256-GCM; only the right passphrase unwraps them', () => {
    expect(a.wrapped.kdf).toMatchObject({ alg: 'scrypt', N: 2 ** 17, r: 8, p: 1 })
    expect(SCRYPT.N).toBeGreaterThanOrEqual(2 ** 17)
    expect(a.wrapped.aead.alg).toBe('aes-256-gcm')
    expect(a.keyId).toBe(keyIdOf(a.signPublic, a.sealPublic))
    expect(a.keyId).toMatch(/^[0-9a-f]{32}$/)
    expect(JSON.stringify(a.wrapped)).not.toContain('PRIVATE')
    expect(unwrapKeys(a.keyId, a.wrapped, 'alpha officer passphrasE')).toBeNull()
    expect(unwrapKeys(a.keyId, a.wrapped, '')).toBeNull()
    // The key id is bound: the same wrapped keys under another id do not open.
    expect(unwrapKeys(b.keyId, a.wrapped, 'alpha officer passphrase')).toBeNull()
    const keys = unwrapKeys(a.keyId, a.wrapped, 'alpha officer passphrase')
    expect(keys).not.toBeNull()
    const sig = signText(keys!.signKey, 'budget 5')
    expect(verifyText(a.signPublic, 'budget 5', sig)).toBe(true)
    expect(verifyText(a.signPublic, 'budget 50', sig)).toBe(false)
    expect(verifyText(b.signPublic, 'budget 5', sig)).toBe(false)
    expect(verifyText(a.signPublic, 'budget 5', 'not a signature')).toBe(false)
  })

  it('seals to every officer; each opens with their own key; nothing opens a changed ciphertext or another context', () => {
    const plain = JSON.stringify({ spentMax: 0.123456789, queries: 7 })
    const recipients = [a, b].map((k) => ({ keyId: k.keyId, sealPublic: k.sealPublic }))
    const s = seal(plain, 'release:7', recipients)
    const text = JSON.stringify(s)
    expect(text).not.toContain('0.123456789')
    expect(text).not.toContain('spentMax')
    expect(unseal(s, 'release:7', a.keyId, a.sealPublic, a.sealKey)).toBe(plain)
    expect(unseal(s, 'release:7', b.keyId, b.sealPublic, b.sealKey)).toBe(plain)
    // Another release's context, another officer's key under a's id, a flipped byte: nothing.
    expect(unseal(s, 'release:8', a.keyId, a.sealPublic, a.sealKey)).toBeNull()
    expect(unseal(s, 'release:7', a.keyId, a.sealPublic, b.sealKey)).toBeNull()
    const data = Buffer.from(s.data, 'base64')
    data[0] ^= 1
    expect(unseal({ ...s, data: data.toString('base64') }, 'release:7', a.keyId, a.sealPublic, a.sealKey)).toBeNull()
    // Someone not among the recipients cannot open it.
    const c = createKeyPair('charlie officer passphrase')
    expect(unseal(s, 'release:7', c.keyId, c.sealPublic, c.sealKey)).toBeNull()
    // Two seals of the same value differ (fresh keys and nonces).
    expect(JSON.stringify(seal(plain, 'release:7', recipients))).not.toBe(text)
    expect(() => seal(plain, 'release:7', [])).toThrow(/at least one recipient/)
  })
})
