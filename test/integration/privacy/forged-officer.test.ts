/**
 * Attack on the use-time checks: an analyst with the workspace file, without any officer's
 * passphrase, inserts a privacy officer of their own into `officers` (a key pair made with a passphrase of theirs; the
 * registration either "added by" the real officer with a signature that does not verify, or registered by itself with
 * an earlier creation time than the real first officer). `ledger verify` reports both registrations, but the use-time
 * checks trusted any row of `officers` (or the first self-registration in creation order):
 * - the app unlocked the inserted officer's key for officer acts (a budget of 100 instead of the officer's 5);
 * - admission accepted a budget entry signed by the inserted key;
 * - ex-post costs were sealed to the inserted key (the analyst reads them without the app);
 * - a PostgreSQL link rewritten to another host and signed by a self-registered key with an earlier creation time
 *   passed the link's signature check (the server's password would then go to that host).
 * Every use-time check trusts only officers whose registration verifies (one self-registration, every other added
 * by a verified officer), as `ledger verify` does.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type Database from 'better-sqlite3'
import type { ReleaseParams } from '../../../src-main/contract/ledger'
import { setBudget } from '../../../src-main/services/ledger/budgets'
import { appendEntry } from '../../../src-main/services/chain/ledger-chain'
import { verifyLedger } from '../../../src-main/services/ledger/verify'
import { createKeyPair, signText, unseal } from '../../../src-main/services/trust/officer-crypto'
import { listOfficers } from '../../../src-main/services/trust/officers'
import { type OfficerRow, registrationText } from '../../../src-main/services/trust/officer-registry'
import { storeSealedCosts } from '../../../src-main/services/trust/sealing'
import { runRelease } from '../../../src-main/services/releases/release-service'
import { signLink } from '../../../src-main/services/trust/link-signature'
import { linkedPostgresOf } from '../../../src-main/services/sources/linked-postgres'
import { openStore, type Store } from '../../../src-main/services/store/store'
import { craftDataset } from '../ledger/fixtures'
import { tempWorkspace } from '../helpers'
import { officerAct } from '../officer-fixture'
import { sixRoomVisits } from './six-rooms-fixture'

const PARAMS: ReleaseParams = { kind: 'threshold', mechanism: 'tslm', beta: 0.05, alpha: 4 }
const MALLORY_PASS = 'mallory passphrase, not an officer'

let ws: ReturnType<typeof tempWorkspace>
let store: Store
beforeEach(() => {
  ws = tempWorkspace('qa-forged-officer-')
  store = openStore(ws.db)
})
afterEach(() => {
  store.close()
  ws.cleanup()
})

const visits = () => sixRoomVisits(store.db)

/** The attacker's tool: a row in `officers` for a key of theirs (sqlite3 on the file). */
function insertOfficer(db: Database.Database, how: 'added-by-real' | 'self-first') {
  const kp = createKeyPair(MALLORY_PASS)
  const real = listOfficers(db)[0]
  const row: OfficerRow = {
    key_id: kp.keyId,
    name: 'Mallory',
    created_at: how === 'self-first' ? '2000-01-01T00:00:00.000Z' : new Date().toISOString(),
    sign_public: kp.signPublic,
    seal_public: kp.sealPublic,
    wrapped: JSON.stringify(kp.wrapped),
    added_by: how === 'self-first' ? kp.keyId : real.keyId,
    signature: ''
  }
  // Added by the real officer: no valid signature can be made without its key. Self-registered: a valid self-signature.
  row.signature = how === 'self-first' ? signText(kp.signKey, registrationText(row)) : signText(kp.signKey, 'not the real officer')
  db.prepare(
    'INSERT INTO officers (key_id, name, created_at, sign_public, seal_public, wrapped, added_by, signature) VALUES (@key_id, @name, @created_at, @sign_public, @seal_public, @wrapped, @added_by, @signature)'
  ).run(row)
  const sign = (text: string) => signText(kp.signKey, text)
  return { keyId: kp.keyId, sign, sealKey: kp.sealKey, sealPublic: kp.sealPublic, name: 'Mallory', signPublic: kp.signPublic }
}

const charges = () => (store.db.prepare(`SELECT count(*) AS n FROM ledger_entries WHERE kind = 'charge'`).get() as { n: number }).n

describe('an officer inserted with the file', () => {
  for (const how of ['added-by-real', 'self-first'] as const) {
    it(`(${how}) cannot make an officer act through the app: a budget of 100 is refused, nothing written`, () => {
      const { id, queryId } = visits()
      insertOfficer(store.db, how)
      expect(verifyLedger(store.db).ok).toBe(false)
      const entries = () => (store.db.prepare('SELECT count(*) AS n FROM ledger_entries').get() as { n: number }).n
      const before = entries()
      expect(() => setBudget(store.db, { datasetId: id, epsilon: '100', reason: 'more', officer: 'Mallory', passphrase: MALLORY_PASS })).toThrow(
        /registration .*does not verify/
      )
      expect(entries()).toBe(before)
      // A workspace that does not verify admits nothing (admission asks the same kernel as verify), whoever inserted what.
      const c = charges()
      expect(() => runRelease(store.db, { queryId, params: PARAMS })).toThrow(
        /^Denied: the (workspace's ledger does not verify|budget of dataset "visits" .*does not carry a valid signature).*Nothing was spent/
      )
      expect(charges()).toBe(c)
    })

    it(`(${how}) a budget entry signed by the inserted key outside the app does not admit a release`, () => {
      const { id, queryId } = visits()
      const mallory = insertOfficer(store.db, how)
      const unit = { person: 'person', perPerson: [] }
      store.db.transaction(() =>
        appendEntry(store.db, {
          kind: 'budget',
          datasetId: id,
          datasetName: 'visits',
          notion: null,
          amountNano: 100e9,
          cells: [],
          releaseId: null,
          actor: 'Mallory',
          description: 'budget 100',
          detail: { reason: 'more', unit },
          signer: mallory
        })
      )()
      // The budget in force (the latest) is not an officer's: denied, nothing spent, until an officer sets it again.
      const before = charges()
      expect(() => runRelease(store.db, { queryId, params: PARAMS })).toThrow(
        /^Denied: the budget of dataset "visits" \(ledger entry \d+\) does not carry a valid signature/
      )
      expect(charges()).toBe(before)
    })
  }

  it('ex-post costs are not sealed to an inserted key', () => {
    const { queryId } = visits()
    const r = runRelease(store.db, { queryId, params: PARAMS })
    const mallory = insertOfficer(store.db, 'added-by-real')
    // Costs sealed now (as the answer of a release charged before the insertion is stored) go to verified officers only.
    store.db.exec('DROP TRIGGER release_ex_post_no_delete')
    store.db.prepare('DELETE FROM release_ex_post WHERE release_id = ?').run(r.releaseId)
    store.db.transaction(() => storeSealedCosts(store.db, r.releaseId, { spentMax: 1 }))()
    const row = store.db.prepare('SELECT sealed FROM release_ex_post WHERE release_id = ?').get(r.releaseId) as { sealed: string }
    const sealed = JSON.parse(row.sealed) as { recipients: Array<{ keyId: string }> }
    expect(sealed.recipients.map((x) => x.keyId)).not.toContain(mallory.keyId)
    expect(unseal(sealed as never, `release:${r.releaseId}`, mallory.keyId, mallory.sealPublic, mallory.sealKey)).toBeNull()
  })

  it('a PostgreSQL link rewritten to another host and signed by a self-registered key created "earlier" is refused before any connection', () => {
    officerAct(store.db)
    const id = craftDataset(store.db, 'badges', [{ name: 'room', type: 'text' }], [['R1']])
    const mallory = insertOfficer(store.db, 'self-first')
    const link = {
      datasetId: id,
      datasetUid: null,
      url: 'postgresql://reader@evil.example:5432/hr',
      passwordEnv: null,
      schema: 'public',
      table: 'badges',
      kind: 'table',
      columns: [{ name: 'room', pgType: 'text', type: 'text' as const }],
      personColumn: null
    }
    const { signer, signature } = signLink(mallory as never, link)
    store.db
      .prepare(
        'INSERT INTO dataset_postgres_sources (dataset_id, url, password_env, schema_name, relation_name, columns, fingerprint, signer, signature) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)'
      )
      .run(id, link.url, null, link.schema, link.table, JSON.stringify(link.columns), JSON.stringify({ kind: 'table' }), signer, signature)
    expect(() => linkedPostgresOf(store.db, id)).toThrow(/is not the one a privacy officer signed/)
  })
})
