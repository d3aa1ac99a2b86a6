/**
 * Attack: an anomaly search release on a linked Parquet file whose score column holds +infinity for one individual.
 * DuckDB reads a double as stored (NaN reads as NULL, +-infinity stays); were +infinity passed to the engine it would
 * refuse the scores after the charge: the release would fail for alice's data and answer for bob's, a failure after the
 * charge on a data-dependent condition. Both must answer, whatever the oracle; so must a large finite score where the
 * direct oracle's factor eps / t_l is large (the likelihood's terms overflow unless computed from their bounded difference).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import type { QueryDefinition } from '../../../src-main/contract/datasets'
import type { Store } from '../../../src-main/services/platform/handler-types'
import { ledgerHandlers } from '../../../src-main/services/releases/ledger-handlers'
import { linkFile } from '../../../src-main/services/datasets/link-file'
import { closeDuckDb, duckAll, duckString } from '../../../src-main/services/sources/duckdb-sync'
import { tempWorkspace } from '../helpers'
import { chargeCount, closeLedgerWorkspace, openLedgerWorkspace, saveQuery } from '../ledger/fixtures'
import { officerAct } from '../officer-fixture'

let ws: ReturnType<typeof tempWorkspace>
let store: Store
let h: ReturnType<typeof ledgerHandlers>
beforeEach(() => {
  ;({ ws, store, h } = openLedgerWorkspace('qa-search-inf-'))
})
afterEach(async () => {
  closeLedgerWorkspace(store, ws)
  await closeDuckDb()
})

async function searchOn(name: string, aliceScore: string, oracle = 'direct', tLow = 5, tHigh = 10): Promise<{ outcome: string; charged: number }> {
  const pq = join(ws.dir, `${name}.parquet`)
  duckAll(
    `COPY (SELECT * FROM (VALUES ('alice', ${aliceScore}), ('bob', 3.0::DOUBLE), ('carol', 1.0::DOUBLE), ('dan', 2.0::DOUBLE)) AS t(who, score)) TO ${duckString(pq)} (FORMAT parquet)`
  )
  const ds = linkFile(store.db, { name, file: pq, personColumn: null, ...officerAct(store.db) }).id
  await h['budgets/set']({ datasetId: ds, epsilon: '100', reason: 'test', ...officerAct(store.db) })
  const def = {
    kind: 'anomaly-search',
    scoreColumn: 'score',
    idColumn: 'who',
    individuals: ['alice', 'bob', 'carol', 'dan'],
    tLow,
    tHigh,
    epsilonPerQuery: 0.5,
    budget: 5,
    oracle
  } as unknown as QueryDefinition
  const q = saveQuery(store.db, ds, `search ${name}`, def)
  const before = chargeCount(store.db, ds)
  let outcome: string
  try {
    outcome = `answered ${(await h['releases/run']({ queryId: q, params: { kind: 'anomaly-search', epsilon: 1 } as never })).answer!.kind}`
  } catch (e) {
    outcome = (e as Error).message
  }
  return { outcome, charged: chargeCount(store.db, ds) - before }
}

describe('a score of +infinity in a linked file', () => {
  it('the search release answers whether or not one individual scores +infinity (no failure after the charge)', async () => {
    const finite = await searchOn('finite', '1e300::DOUBLE')
    const infinite = await searchOn('infinite', "'inf'::DOUBLE")
    expect(finite).toEqual({ outcome: 'answered anomaly-search', charged: 1 })
    expect(infinite).toEqual({ outcome: 'answered anomaly-search', charged: 1 })
  })

  it('the direct oracle with a small tLow answers with alice at a large finite score (1e307)', async () => {
    expect(await searchOn('huge', '1e307::DOUBLE', 'direct', 0.01, 0.02)).toEqual({ outcome: 'answered anomaly-search', charged: 1 })
  })

  it('every oracle, with a small tLow (large factors on the score), answers with alice at +infinity', async () => {
    for (const oracle of ['direct', 'binary', 'rr']) {
      expect(await searchOn(`inf-${oracle}`, "'inf'::DOUBLE", oracle, 0.01, 0.02)).toEqual({ outcome: 'answered anomaly-search', charged: 1 })
    }
  })
})
