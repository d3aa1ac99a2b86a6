/**
 * Attack: the privacy unit of a dataset - its person column and the columns declared one value per person - is held in
 * plain rows (`dataset_units`, `dataset_columns.per_person`). Someone with the workspace file sets `per_person = 1` on
 * `room`, a column a person spans: charged by those rows, a person in 6 rooms would pay one room's epsilon on 6 separate
 * cells (0.576 instead of 3.454) and eight releases would fit a budget of 5. The officer signs the unit with every
 * budget; releases are charged with the signed unit, denied (nothing spent) while the tables differ from it, and verify
 * names the change. Each test is the attack it stops.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ReleaseParams } from '../../../src-main/contract/ledger'
import { unitDeclaration } from '../../../src-main/services/trust/unit-declaration'
import { recordPrivacyUnit } from '../../../src-main/services/catalog/unit-record'
import { saveQuery } from '../../../src-main/services/datasets/query-store'
import { setBudget } from '../../../src-main/services/ledger/budgets'
import { unlockOfficer } from '../../../src-main/services/trust/officers'
import { writeCheckpoint } from '../../../src-main/services/trust/checkpoints'
import { appendEntry } from '../../../src-main/services/chain/ledger-chain'
import { verifyLedger } from '../../../src-main/services/ledger/verify'
import { nanoToNumber } from '../../../src-main/services/chain/nano-epsilon'
import { prepareRelease } from '../../../src-main/services/releases/prepare'
import { runRelease } from '../../../src-main/services/releases/release-service'
import { openStore, type Store } from '../../../src-main/services/store/store'
import { craftDataset, saveQuery as insertQueryUnchecked } from '../ledger/fixtures'
import { tempWorkspace } from '../helpers'
import { officerAct } from '../officer-fixture'

const ROOMS = ['R1', 'R2', 'R3', 'R4', 'R5', 'R6']
/** ln(1/(2 beta)) / alpha at beta 0.05, alpha 4. */
const PER_PREDICATE = Math.log(10) / 4
const PARAMS: ReleaseParams = { kind: 'threshold', mechanism: 'tslm', beta: 0.05, alpha: 4 }

let ws: ReturnType<typeof tempWorkspace>
let store: Store
beforeEach(() => {
  ws = tempWorkspace('qa-forged-unit-')
  store = openStore(ws.db)
})
afterEach(() => {
  store.close()
  ws.cleanup()
})

/** Person P visits all six rooms; `role` is declared one value per person at import, `room` is not. */
function rooms(): { id: number; queryId: number } {
  const rows: Array<[string, string, string]> = []
  for (const room of ROOMS) for (let i = 0; i < 10; i++) rows.push([`other-${room}-${i}`, room, 'staff'])
  for (const room of ROOMS) rows.push(['P', room, 'staff'])
  const id = craftDataset(
    store.db,
    'visits',
    [
      { name: 'person', type: 'text' },
      { name: 'room', type: 'text' },
      { name: 'role', type: 'text' }
    ],
    rows
  )
  store.db.transaction(() => recordPrivacyUnit(store.db, id, 'person', ['role']))()
  const q = saveQuery(store.db, id, 'rooms', {
    kind: 'threshold',
    groupBy: ['room'],
    count: { kind: 'persons', personColumn: 'person', cap: 1 },
    threshold: { kind: 'constant', value: 15 },
    groups: ROOMS.map((r) => [r])
  })
  return { id, queryId: q.id }
}

const charges = () => (store.db.prepare(`SELECT count(*) AS n FROM ledger_entries WHERE kind = 'charge'`).get() as { n: number }).n

describe('a forged privacy unit (workspace tables rewritten behind the app)', () => {
  it('the budget entry carries the unit the officer signed', () => {
    const { id } = rooms()
    const e = setBudget(store.db, { datasetId: id, epsilon: '5', reason: 'room review', ...officerAct(store.db) })
    expect(JSON.parse(store.db.prepare('SELECT detail FROM ledger_entries WHERE seq = ?').pluck().get(e.seq) as string).unit).toEqual({
      person: 'person',
      perPerson: ['role']
    })
    expect(unitDeclaration(store.db, id)).toEqual({ person: 'person', perPerson: ['role'] })
  })

  it("'room' forged one value per person after the budget: the release is denied and nothing is spent; verify names the change", () => {
    const { id, queryId } = rooms()
    setBudget(store.db, { datasetId: id, epsilon: '5', reason: 'room review', ...officerAct(store.db) })
    // Honest price: P can be in all 6 predicates.
    expect(nanoToNumber(prepareRelease(store.db, queryId, PARAMS).chargeNano)).toBeCloseTo(6 * PER_PREDICATE, 6)
    store.db.prepare(`UPDATE dataset_columns SET per_person = 1 WHERE dataset_id = ? AND name = 'room'`).run(id)
    // The charge is still computed with the signed unit (not one room's epsilon on six cells) ...
    const p = prepareRelease(store.db, queryId, PARAMS)
    expect(nanoToNumber(p.chargeNano)).toBeCloseTo(6 * PER_PREDICATE, 6)
    expect(p.cells).toEqual(['{}'])
    // ... and the release is refused before any charge while the tables differ from what was signed.
    const before = charges()
    expect(() => runRelease(store.db, { queryId, params: PARAMS })).toThrow(
      /differs from the one the officer signed with its budget \(ledger entry \d+\).*Nothing was spent/
    )
    expect(charges()).toBe(before)
    const v = verifyLedger(store.db)
    expect(v.ok).toBe(false)
    expect(v.firstBroken?.reason).toMatch(/the privacy unit of dataset "visits" .* was changed outside the app/)
  })

  it('the dataset forged row-level (person column removed, trigger dropped): denied, nothing spent', () => {
    const { id, queryId } = rooms()
    setBudget(store.db, { datasetId: id, epsilon: '5', reason: 'room review', ...officerAct(store.db) })
    const triggers = store.db
      .prepare(`SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'dataset_units'`)
      .pluck()
      .all() as string[]
    for (const t of triggers) store.db.exec(`DROP TRIGGER "${t}"`)
    store.db.prepare('UPDATE dataset_units SET person_column = NULL WHERE dataset_id = ?').run(id)
    expect(nanoToNumber(prepareRelease(store.db, queryId, PARAMS).chargeNano)).toBeCloseTo(6 * PER_PREDICATE, 6)
    const before = charges()
    expect(() => runRelease(store.db, { queryId, params: PARAMS })).toThrow(/differs from the one the officer signed/)
    expect(charges()).toBe(before)
    expect(verifyLedger(store.db).ok).toBe(false)
  })

  it('a budget written before units were signed (an older version, or crafted unsigned) admits no release until the officer sets it again', () => {
    const { id, queryId } = rooms()
    setBudget(store.db, { datasetId: id, epsilon: '5', reason: 'room review', ...officerAct(store.db) })
    // A later budget entry without the unit, signed and checkpointed (as an older version wrote them).
    const officer = unlockOfficer(store.db, officerAct(store.db))
    store.db.transaction(() => {
      appendEntry(store.db, {
        kind: 'budget',
        datasetId: id,
        datasetName: 'visits',
        notion: null,
        amountNano: 5e9,
        cells: [],
        releaseId: null,
        actor: 'olga',
        description: 'old style',
        detail: { scope: 'per unit, summed over notions' },
        signer: officer
      })
      writeCheckpoint(store.db, officer)
    })()
    expect(verifyLedger(store.db).ok).toBe(true)
    const before = charges()
    expect(() => runRelease(store.db, { queryId, params: PARAMS })).toThrow(
      /set before budgets carried the officer's signature on the dataset's privacy unit/
    )
    expect(charges()).toBe(before)
    setBudget(store.db, { datasetId: id, epsilon: '5', reason: 'signs the unit', ...officerAct(store.db) })
    expect(runRelease(store.db, { queryId, params: PARAMS }).status).toBe('answered')
    expect(charges()).toBe(before + 1)
  })

  it("'room' forged one value per person BEFORE the first budget: the officer is not made to sign it", () => {
    // The budget signed whatever the tables held: a declaration forged before the officer's first budget (or before the
    // officer re-signs an older budget, as the denial asks) was signed, charged one room's epsilon per person, and verify
    // saw nothing. The officer's act now checks the declared columns over the rows before signing them.
    const { id, queryId } = rooms()
    store.db.prepare(`UPDATE dataset_columns SET per_person = 1 WHERE dataset_id = ? AND name = 'room'`).run(id)
    const entries = () => (store.db.prepare('SELECT count(*) AS n FROM ledger_entries').get() as { n: number }).n
    const cred = officerAct(store.db)
    const before = entries()
    expect(() => setBudget(store.db, { datasetId: id, epsilon: '5', reason: 'room review', ...cred })).toThrow(
      /column "room" is declared to hold one value per person, but a person of "visits" has several values in it.*Nothing was signed/
    )
    expect(entries()).toBe(before)
    expect(() => runRelease(store.db, { queryId, params: PARAMS })).toThrow(/no budget/)
    // The declaration as the import made it is signed; the release is charged at the honest price.
    store.db.prepare(`UPDATE dataset_columns SET per_person = 0 WHERE dataset_id = ? AND name = 'room'`).run(id)
    setBudget(store.db, { datasetId: id, epsilon: '5', reason: 'room review', ...cred })
    expect(runRelease(store.db, { queryId, params: PARAMS }).epsilon).toBeCloseTo(6 * PER_PREDICATE, 6)
  })

  it('without the passphrase the check says nothing about the rows', () => {
    const { id } = rooms()
    store.db.prepare(`UPDATE dataset_columns SET per_person = 1 WHERE dataset_id = ? AND name = 'room'`).run(id)
    officerAct(store.db)
    expect(() =>
      setBudget(store.db, { datasetId: id, epsilon: '5', reason: 'room review', officer: 'Test Officer', passphrase: 'not the passphrase' })
    ).toThrow(/^The passphrase of officer "Test Officer" is wrong; nothing was written$/)
  })

  it('deleting the officer registry does not bring back the unsigned budget of a workspace from before officers', () => {
    // An older workspace: its budget predates signed units, so releases wait for the officer to set it again. The
    // check let them through whenever no officer was registered: deleting the officers' rows (trigger dropped) and
    // forging 'room' one value per person gave one room's epsilon per release on six cells.
    const { id, queryId } = rooms()
    officerAct(store.db)
    store.db.transaction(() =>
      appendEntry(store.db, {
        kind: 'budget',
        datasetId: id,
        datasetName: 'visits',
        notion: null,
        amountNano: 5e9,
        cells: [],
        releaseId: null,
        actor: 'olga',
        description: 'old style',
        detail: { scope: 'per unit, summed over notions' }
      })
    )()
    store.db.exec('DROP TRIGGER officers_no_delete')
    store.db.exec('DELETE FROM officers')
    store.db.prepare(`UPDATE dataset_columns SET per_person = 1 WHERE dataset_id = ? AND name = 'room'`).run(id)
    const before = charges()
    expect(() => runRelease(store.db, { queryId, params: PARAMS })).toThrow(/^Denied: .*Nothing was spent/)
    expect(charges()).toBe(before)
    // The registration recorded in the audit log shows an officer existed: verify fails, naming the removed registry.
    expect(verifyLedger(store.db).message).toMatch(/an officer acted in this workspace .* but no officer is registered/)
  })

  it('a saved definition that does not count persons by the unit (written with the file) is refused before any charge', () => {
    // The release path took the stored definition as it was: a row count on a person-level dataset is charged at
    // sensitivity 1 while a person with 50 rows in a room moves that count by 50. Saving refuses it; the release now
    // checks the stored definition the same way.
    const { id } = rooms()
    setBudget(store.db, { datasetId: id, epsilon: '50', reason: 'room review', ...officerAct(store.db) })
    const base = { kind: 'threshold' as const, groupBy: ['room'], threshold: { kind: 'constant' as const, value: 15 }, groups: ROOMS.map((r) => [r]) }
    const rows = insertQueryUnchecked(store.db, id, 'rows, written with the file', { ...base, count: { kind: 'rows' } })
    const byRole = insertQueryUnchecked(store.db, id, 'persons by role, written with the file', {
      ...base,
      count: { kind: 'persons', personColumn: 'role', cap: 1 }
    })
    const before = charges()
    for (const queryId of [rows, byRole]) {
      expect(() => runRelease(store.db, { queryId, params: PARAMS })).toThrow(
        /protects persons \(person column "person"\): count persons by "person"/
      )
    }
    expect(charges()).toBe(before)
  })

  it('a stored search whose individuals are not the persons (idColumn written with the file) is refused before any charge', () => {
    // On a person-level dataset the individuals searched must be its persons; searched by room, a person in six rooms
    // is six individuals, each protected by the charge, so the person loses up to six times it.
    const id = craftDataset(
      store.db,
      'scores',
      [
        { name: 'person', type: 'text' },
        { name: 'room', type: 'text' },
        { name: 'score', type: 'integer' }
      ],
      ROOMS.map((room, i): [string, string, number] => ['P', room, 10 + i])
    )
    store.db.transaction(() => recordPrivacyUnit(store.db, id, 'person'))()
    setBudget(store.db, { datasetId: id, epsilon: '50', reason: 'search review', ...officerAct(store.db) })
    const queryId = insertQueryUnchecked(store.db, id, 'search by room, written with the file', {
      kind: 'anomaly-search',
      scoreColumn: 'score',
      idColumn: 'room',
      individuals: ROOMS,
      tLow: 5,
      tHigh: 50,
      epsilonPerQuery: 0.5,
      budget: 2,
      oracle: 'direct'
    })
    const before = charges()
    expect(() => runRelease(store.db, { queryId, params: { kind: 'anomaly-search' } })).toThrow(
      /the individuals searched must be its persons \(idColumn "person"\)/
    )
    expect(charges()).toBe(before)
  })

  it('with the tables as signed, releases go through at the honest price', () => {
    const { id, queryId } = rooms()
    setBudget(store.db, { datasetId: id, epsilon: '5', reason: 'room review', ...officerAct(store.db) })
    const r = runRelease(store.db, { queryId, params: PARAMS })
    expect(r.status).toBe('answered')
    expect(verifyLedger(store.db).ok).toBe(true)
  })
})
