/**
 * Sealing must not deadlock Node's crypto in a long-lived process (a generated X25519 key pair per recipient exported
 * as a JWK does, after about 11,700 releases: ExportJWK -> GC -> ~KeyGenJob -> uv_mutex_lock). Sealing makes its
 * ephemeral key from random bytes and moves keys as DER: 20,000 seals to two officers in one process, every one of them
 * opening to its plaintext. `npm run soak` runs the full count; CI runs a bounded form (QA_SOAK_SEALS, see test/check.sh).
 */
import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createKeyPair, seal, unseal } from '../../src-main/services/trust/officer-crypto'

const SEALS = Number(process.env.QA_SOAK_SEALS ?? 20_000)

describe('sealing soak', () => {
  it(`seals ${SEALS.toLocaleString('en')} values to two officers in one process; each opens`, { timeout: 3_600_000 }, () => {
    const a = createKeyPair('alpha officer passphrase')
    const b = createKeyPair('bravo officer passphrase')
    const to = [a, b].map((k) => ({ keyId: k.keyId, sealPublic: k.sealPublic }))
    for (let i = 0; i < SEALS; i++) {
      const plain = `{"spentMax":${i}}`
      const s = seal(plain, `release:${i}`, to)
      // Open every one with the first officer's key, every 97th with the second's too.
      expect(unseal(s, `release:${i}`, a.keyId, a.sealPublic, a.sealKey)).toBe(plain)
      if (i % 97 === 0) expect(unseal(s, `release:${i}`, b.keyId, b.sealPublic, b.sealKey)).toBe(plain)
    }
  })

  it('the sealing path neither exports a JWK nor runs a key-generation job per seal', () => {
    const src = readFileSync(join(__dirname, '../../src-main/services/trust/officer-crypto.ts'), 'utf8')
    const sealing = src.slice(src.indexOf('export function seal('), src.indexOf('export function unseal('))
    expect(sealing).not.toMatch(/generateKeyPair|jwk/i)
    expect(src).not.toMatch(/format: 'jwk'/)
  })
})
