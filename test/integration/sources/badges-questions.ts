/**
 * The anomaly questions the database-server tests (linked-postgres, linked-clickhouse) ask of their badges table (persons
 * p0..p49 in `person`, rooms in `room`, floors 0..2 in `floor`, a `score` per row): is room R1 on floor 0, or R9 on
 * floor 2, an anomaly; and which of p1..p3 scores far above the others.
 */
import type Database from 'better-sqlite3'
import { saveQuery } from '../ledger/fixtures'

export function saveBadgesAnomalyQuestions(db: Database.Database, datasetId: number): { aiq: number; search: number } {
  const aiq = saveQuery(db, datasetId, 'odd rooms', {
    kind: 'anomaly-identification',
    columns: ['room', 'floor'],
    binWidths: [null, 1],
    metric: 'l1',
    radius: 0,
    maxNeighbours: 2,
    k: 1,
    records: [
      ['R1', 0],
      ['R9', 2]
    ]
  })
  const search = saveQuery(db, datasetId, 'search', {
    kind: 'anomaly-search',
    scoreColumn: 'score',
    idColumn: 'person',
    individuals: ['p1', 'p2', 'p3'],
    tLow: 50,
    tHigh: 90,
    epsilonPerQuery: 0.5,
    budget: 1,
    oracle: 'rr'
  })
  return { aiq, search }
}
