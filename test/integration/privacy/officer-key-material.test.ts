/**
 * The officer's key material as a file writer attacks it: the wrapped private keys and their scrypt parameters are read
 * from the workspace file. Unsigned, N = 2^30 would lock the officer out while `ledger verify` said ok, and a blob of
 * other keys could be put in place. The registration signs both (v2), the parameters are bounded, and the private keys
 * unwrapped must be the registered ones.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { verifyLedger } from '../../../src-main/services/ledger/verify'
import { openStore, type Store } from '../../../src-main/services/store/store'
import { createKeyPair } from '../../../src-main/services/trust/officer-crypto'
import { checkpoint, registerOfficer } from '../../../src-main/services/trust/officers'
import { tempWorkspace } from '../helpers'

const PASS = 'the officer passphrase'

let ws: ReturnType<typeof tempWorkspace>
let store: Store
beforeEach(() => {
  ws = tempWorkspace('qa-key-material-')
  store = openStore(ws.db)
  registerOfficer(store.db, { name: 'Olga', passphrase: PASS })
})
afterEach(() => {
  store.close()
  ws.cleanup()
})

/** The attacker rewrites the officer's wrapped keys in the file (trigger dropped). */
function rewriteWrapped(edit: (w: Record<string, any>) => Record<string, any>): void {
  store.db.exec('DROP TRIGGER IF EXISTS officers_no_update')
  const row = store.db.prepare('SELECT key_id, wrapped FROM officers').get() as { key_id: string; wrapped: string }
  store.db.prepare('UPDATE officers SET wrapped = ? WHERE key_id = ?').run(JSON.stringify(edit(JSON.parse(row.wrapped))), row.key_id)
}

describe("the officer's wrapped keys and KDF parameters", () => {
  it('N = 2^30 written into the file: refused at once with one sentence (no lock-out by a minutes-long scrypt), and verify says so', () => {
    expect(verifyLedger(store.db).ok).toBe(true)
    rewriteWrapped((w) => ({ ...w, kdf: { ...w.kdf, N: 2 ** 30 } }))
    const t = Date.now()
    expect(() => checkpoint(store.db, { passphrase: PASS })).toThrow(/officer "Olga"/)
    expect(Date.now() - t).toBeLessThan(30_000)
    const v = verifyLedger(store.db)
    expect(v.ok).toBe(false)
    expect(v.message).toMatch(
      /registration of officer "Olga" does not carry a valid officer signature|wrapped keys of officer "Olga" are refused: scrypt N = 2\^30 is out of bounds/
    )
    expect(verifyLedger(store.db).message).not.toContain(PASS)
  })

  it("the keys swapped for the attacker's own (wrapped under the attacker's passphrase): they open nothing, and verify says so", () => {
    const mine = createKeyPair('attacker passphrase!')
    rewriteWrapped(() => mine.wrapped as never)
    // (A v1 registration's signature does not cover the wrapped keys; this one's signed audit event says it is v2.)
    expect(() => checkpoint(store.db, { passphrase: 'attacker passphrase!' })).toThrow(/officer "Olga"/)
    expect(verifyLedger(store.db).message).toMatch(/the registration of officer "Olga" does not carry a valid officer signature/)
  })

  it('the honest registration still unlocks and verifies', () => {
    expect(checkpoint(store.db, { passphrase: PASS }).officer).toBe('Olga')
    expect(verifyLedger(store.db).ok).toBe(true)
  })
})
