/**
 * scrypt parameters a file writer puts into an officer's wrapped keys that the bounds of `kdfProblem` would accept but
 * scrypt itself refuses (OpenSSL: 128 r (N + 2 + p) bytes within maxmem, N below 2^(16 r)). A registration of version 1
 * (an older workspace) does not sign the wrapped keys, so only the bounds stand between such a file and the officer. The
 * attack: every officer act fails with an unexpected failure (a link through the KDF worker, a checkpoint on this thread)
 * while `ledger verify` says the workspace is fine. Refused instead: verify names the parameters, and every act gets the
 * one sentence, before any key derivation.
 */
import { scryptSync } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest'
import { recordAudit } from '../../../src-main/services/chain/ledger-chain'
import { linkFile } from '../../../src-main/services/datasets/link-file'
import { verifyLedger } from '../../../src-main/services/ledger/verify'
import { UserError } from '../../../src-main/services/platform/errors'
import { openStore, type Store } from '../../../src-main/services/store/store'
import { writeCheckpoint } from '../../../src-main/services/trust/checkpoints'
import { closeKdfWorker } from '../../../src-main/services/trust/kdf-worker'
import { createKeyPair, signText } from '../../../src-main/services/trust/officer-crypto'
import { type OfficerRow, registrationText } from '../../../src-main/services/trust/officer-registry'
import { checkpoint } from '../../../src-main/services/trust/officers'
import { tempWorkspace } from '../helpers'

const PASS = 'the officer passphrase of Olga'

let ws: ReturnType<typeof tempWorkspace>
let store: Store
beforeEach(() => {
  ws = tempWorkspace('qa-kdf-limits-')
  store = openStore(ws.db)
  registerVersion1Officer()
})
afterEach(() => {
  store.close()
  ws.cleanup()
})
afterAll(() => closeKdfWorker())

/** The first officer as an older workspace registered it: the registration (v1) signs the officer's keys, not the wrapped keys. */
function registerVersion1Officer(): void {
  const kp = createKeyPair(PASS)
  const row: OfficerRow = {
    key_id: kp.keyId,
    name: 'Olga',
    created_at: new Date().toISOString(),
    sign_public: kp.signPublic,
    seal_public: kp.sealPublic,
    wrapped: JSON.stringify(kp.wrapped),
    added_by: kp.keyId,
    signature: ''
  }
  row.signature = signText(kp.signKey, registrationText(row, 1))
  const signer = { keyId: kp.keyId, sign: (text: string) => signText(kp.signKey, text) }
  store.db
    .transaction(() => {
      store.db
        .prepare(
          'INSERT INTO officers (key_id, name, created_at, sign_public, seal_public, wrapped, added_by, signature) VALUES (@key_id, @name, @created_at, @sign_public, @seal_public, @wrapped, @added_by, @signature)'
        )
        .run(row)
      recordAudit(store.db, 'officer/registered', 'Olga', `officer:${row.key_id}`, { keyId: row.key_id, name: 'Olga', addedBy: row.added_by }, signer)
      writeCheckpoint(store.db, signer)
    })
    .immediate()
}

/** The attacker rewrites the scrypt parameters in the file (trigger dropped); a v1 registration still verifies. */
function rewriteKdf(N: number, r: number, p: number): void {
  store.db.exec('DROP TRIGGER IF EXISTS officers_no_update')
  const { key_id, wrapped } = store.db.prepare('SELECT key_id, wrapped FROM officers').get() as { key_id: string; wrapped: string }
  const w = JSON.parse(wrapped)
  store.db.prepare('UPDATE officers SET wrapped = ? WHERE key_id = ?').run(JSON.stringify({ ...w, kdf: { ...w.kdf, N, r, p } }), key_id)
}

function thrown(act: () => unknown): unknown {
  try {
    act()
  } catch (e) {
    return e
  }
  throw new Error('the act was not refused')
}

describe('scrypt parameters in the file that scrypt itself refuses', () => {
  it('the honest older registration unlocks, links and verifies', () => {
    expect(verifyLedger(store.db).ok).toBe(true)
    expect(checkpoint(store.db, { passphrase: PASS }).officer).toBe('Olga')
    const csv = join(ws.dir, 'visits.csv')
    writeFileSync(csv, 'person,room\np1,R1\np2,R2\n')
    expect(linkFile(store.db, { name: 'visits', file: csv, personColumn: 'person', passphrase: PASS }).rowCount).toBe(2)
  })

  // Within 256 MiB by 128 N r, beyond it by 128 r (N + 2 + p); N = 2^16 at r = 1 is not below 2^(16 r).
  it.each([
    [2 ** 18, 8, 1],
    [2 ** 20, 2, 1],
    [2 ** 17, 16, 1],
    [2 ** 16, 1, 1]
  ])('N = %i, r = %i, p = %i: verify names them, and the link and the checkpoint are refused in one sentence', (N, r, p) => {
    // scrypt refuses these parameters whatever the passphrase and salt.
    expect(() => scryptSync(PASS, Buffer.alloc(16), 32, { N, r, p, maxmem: 256 * 1024 * 1024 })).toThrow(/Invalid scrypt params/)
    rewriteKdf(N, r, p)
    const v = verifyLedger(store.db)
    expect(v.ok).toBe(false)
    expect(v.message).toMatch(new RegExp(`the wrapped keys of officer "Olga" are refused: scrypt N = 2\\^${Math.log2(N)}`))

    const csv = join(ws.dir, 'visits.csv')
    writeFileSync(csv, 'person,room\np1,R1\n')
    const refusal = /^The wrapped keys of officer "Olga" are refused \(scrypt N = 2\^\d+[^)]*: changed outside the app\); nothing was written/
    for (const act of [
      () => linkFile(store.db, { name: 'visits', file: csv, personColumn: 'person', passphrase: PASS }),
      () => checkpoint(store.db, { passphrase: PASS })
    ]) {
      const e = thrown(act)
      expect(e).toBeInstanceOf(UserError)
      expect((e as UserError).code).toBe('forbidden')
      expect((e as Error).message).toMatch(refusal)
      expect((e as Error).message).not.toContain(PASS)
    }
    expect(store.db.prepare('SELECT count(*) AS n FROM dataset_sources').get()).toEqual({ n: 0 })
  })
})
