/**
 * The forged-workspace attacks' dataset: ten other persons in each of six rooms, and person P in all six; the officer's
 * budget of 5 allows one honest release of the rooms question (6 x 0.576 = 3.45, per person), not two.
 */
import type Database from 'better-sqlite3'
import { recordPrivacyUnit } from '../../../src-main/services/catalog/unit-record'
import { saveQuery } from '../../../src-main/services/datasets/query-store'
import { setBudget } from '../../../src-main/services/ledger/budgets'
import { craftDataset } from '../ledger/fixtures'
import { officerAct } from '../officer-fixture'

export const ROOMS = ['R1', 'R2', 'R3', 'R4', 'R5', 'R6']

export function sixRoomVisits(db: Database.Database): { id: number; queryId: number; budgetSeq: number } {
  const rows: Array<[string, string]> = []
  for (const room of ROOMS) for (let i = 0; i < 10; i++) rows.push([`other-${room}-${i}`, room])
  for (const room of ROOMS) rows.push(['P', room])
  const id = craftDataset(
    db,
    'visits',
    [
      { name: 'person', type: 'text' },
      { name: 'room', type: 'text' }
    ],
    rows
  )
  db.transaction(() => recordPrivacyUnit(db, id, 'person'))()
  const budgetSeq = setBudget(db, { datasetId: id, epsilon: '5', reason: 'room review', ...officerAct(db) }).seq
  const q = saveQuery(db, id, 'rooms', {
    kind: 'threshold',
    groupBy: ['room'],
    count: { kind: 'persons', personColumn: 'person', cap: 1 },
    threshold: { kind: 'constant', value: 15 },
    groups: ROOMS.map((r) => [r])
  })
  return { id, queryId: q.id, budgetSeq }
}
