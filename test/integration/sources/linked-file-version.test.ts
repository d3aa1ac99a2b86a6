/**
 * A linked file's whole-read verdict is about one file version, and a release reads only the version it checked. The
 * attacks: a file writer rewrites bytes past the header block with the same size and puts the mtime back (the verdict
 * of the old bytes was reused: one open quote swallowed 1,000 rows of a charged answer, or one person's damaged Parquet
 * value failed only that person's release after its charge); a log appended while a release runs (the lines after the
 * check were released on, never checked); a refused file rescanned in full at every preview. No mocks: DuckDB reads
 * real files, releases run inline on this thread.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { appendFileSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { QueryDefinition } from '../../../src-main/contract/datasets'
import type { Store } from '../../../src-main/services/store/store'
import { ledgerHandlers } from '../../../src-main/services/releases/ledger-handlers'
import { NEUTRAL_FAILURE, runRelease } from '../../../src-main/services/releases/release-service'
import { linkFile } from '../../../src-main/services/datasets/link-file'
import { duckAll, duckString } from '../../../src-main/services/sources/duckdb-sync'
import { wholeReadScans } from '../../../src-main/services/sources/linked-file-whole'
import { tempWorkspace } from '../helpers'
import { closeLedgerWorkspace, openLedgerWorkspace, saveQuery } from '../ledger/fixtures'
import { officerAct } from '../officer-fixture'

let ws: ReturnType<typeof tempWorkspace>
let store: Store
let h: ReturnType<typeof ledgerHandlers>
beforeEach(() => {
  ;({ ws, store, h } = openLedgerWorkspace('qa-linkver-'))
})
afterEach(() => closeLedgerWorkspace(store, ws))

const tslm = { kind: 'threshold' as const, mechanism: 'tslm' as const, beta: 0.05, alpha: 10 }
const rows = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i},R1,${i + 1}\n`).join('')
const entries = async () => (await h['ledger/entries']({})).total
/** A whole second, so that a writer can put the mtime back exactly (utimes takes seconds as a float). */
const WRITTEN_AT = 1_790_000_000

/** A linked CSV `person,room,token` with budget 100 and a query flagging R1 when it holds more than `threshold` rows. */
async function linkedLog(csv: string, content: string, threshold: number, name = 'log'): Promise<number> {
  writeFileSync(csv, content)
  utimesSync(csv, WRITTEN_AT, WRITTEN_AT)
  const ds = linkFile(store.db, { name, file: csv, personColumn: null, ...officerAct(store.db) }).id
  await h['budgets/set']({ datasetId: ds, epsilon: '100', reason: 'test', ...officerAct(store.db, 'olga') })
  return saveQuery(store.db, ds, 'rooms', {
    kind: 'threshold',
    groupBy: ['room'],
    count: { kind: 'rows' },
    threshold: { kind: 'constant', value: threshold },
    groups: [['R1']]
  })
}

async function release(queryId: number): Promise<{ flagged: unknown } | string> {
  try {
    const r = await h['releases/run']({ queryId, params: tslm })
    return { flagged: (r.answer as { flagged: unknown }).flagged }
  } catch (e) {
    return (e as Error).message
  }
}

describe('linked file versions', () => {
  it('a CSV rewritten past its header block with the same size and its mtime put back is checked again: the open quote is refused before the charge', async () => {
    const csv = join(ws.dir, 'log.csv')
    // 7,001 rows in R1 (threshold 6,700): alice's line lies past the first 64 KiB; an open quote there swallows the 1,000 after it.
    const file = (alice: string) => 'person,room,token\n' + rows(6000, 'a') + alice + '\n' + rows(1000, 'b')
    const q = await linkedLog(csv, file('alice,R1,77'), 6700)
    expect(await release(q)).toEqual({ flagged: [['R1']] })
    const before = await entries()
    const st = statSync(csv)
    writeFileSync(csv, file('alice,"R1,7'))
    expect(statSync(csv).size).toBe(st.size)
    utimesSync(csv, WRITTEN_AT, WRITTEN_AT)
    expect(statSync(csv).mtimeMs).toBe(st.mtimeMs)
    const r = await release(q)
    expect(r, 'answered on 6,001 rows: the 1,000 after the open quote swallowed').toMatch(
      /no longer reads as one record per line.*Nothing was charged/
    )
    expect(await entries()).toBe(before)
  })

  it("a Parquet page rewritten in place (footer unchanged) with its mtime put back is checked again: both persons refused before the charge, not one person's release failing after it", async () => {
    const pq = join(ws.dir, 'notes.parquet')
    duckAll(
      `COPY (SELECT * FROM (VALUES ('alice', 'R1', 'MMMMMMMM'), ('bob', 'R1', 'ok'), ('bob', 'R2', 'ok2'), ('carl', 'R2', 'AAAA'), ('dan', 'R2', 'zzzz')) AS t(person, room, note)) TO ${duckString(pq)} (FORMAT parquet, COMPRESSION uncompressed)`
    )
    utimesSync(pq, WRITTEN_AT, WRITTEN_AT)
    const ds = linkFile(store.db, { name: 'notes', file: pq, personColumn: null, ...officerAct(store.db) }).id
    await h['budgets/set']({ datasetId: ds, epsilon: '100', reason: 'test', ...officerAct(store.db, 'olga') })
    const query = (person: string): QueryDefinition => ({
      kind: 'threshold',
      groupBy: ['room'],
      filter: [
        { column: 'person', op: '=', value: person },
        { column: 'note', op: '!=', value: 'x' }
      ],
      count: { kind: 'rows' },
      threshold: { kind: 'constant', value: 1 },
      groups: [['R1'], ['R2']]
    })
    const alice = saveQuery(store.db, ds, 'alice', query('alice'))
    const bob = saveQuery(store.db, ds, 'bob', query('bob'))
    expect(typeof (await release(alice))).toBe('object')
    expect(typeof (await release(bob))).toBe('object')
    const bytes = readFileSync(pq)
    // alice's value is no min/max statistic, so it lies in her page only: made invalid UTF-8, same size, footer unchanged.
    const at = bytes.indexOf('MMMMMMMM', 0, 'latin1')
    expect(at).toBeGreaterThan(0)
    bytes.fill(0xff, at, at + 8)
    writeFileSync(pq, bytes)
    utimesSync(pq, WRITTEN_AT, WRITTEN_AT)
    const before = await entries()
    const refusals = [await release(alice), await release(bob)]
    for (const r of refusals) expect(r).toMatch(/no longer decodes whole.*Nothing was charged/)
    expect(refusals[0]).toBe(refusals[1])
    expect(await entries()).toBe(before)
  })

  it('a line appended to the log after the check is never released on: the release fails with the neutral sentence, whatever the line holds, and the charge stays', async () => {
    const outcome = async (name: string, appended: string) => {
      const csv = join(ws.dir, `${name}.csv`)
      const q = await linkedLog(csv, 'person,room,token\n' + rows(6000, 'a'), 6700, name)
      const before = await entries()
      let result: string
      try {
        const r = runRelease(store.db, { queryId: q, params: tslm }, { afterCharge: () => appendFileSync(csv, appended + '\n' + rows(1000, 'b')) })
        result = `answered ${JSON.stringify((r.answer as { flagged: unknown }).flagged)}`
      } catch (e) {
        result = (e as Error).message.replace(/Release \d+/, 'Release N')
      }
      return { result, charged: (await entries()) - before }
    }
    // With carol's open quote the read counted 6,000 rows (her line and the 1,000 after it dropped): answered, not flagged.
    const quote = await outcome('quote', 'carol,"R1,7')
    const plain = await outcome('plain', 'alice,R1,77')
    const neutral = `Release N was charged but not answered (${NEUTRAL_FAILURE}); the charge stays in the ledger`
    expect(quote).toEqual({ result: neutral, charged: 1 })
    expect(plain).toEqual({ result: neutral, charged: 1 })
  })

  it('a refused file version is scanned once, not at every preview; a new version is scanned again', async () => {
    const csv = join(ws.dir, 'log.csv')
    const q = await linkedLog(csv, 'person,room,token\n' + rows(3000, 'a'), 2000)
    appendFileSync(csv, 'carol,"R1,7\n' + rows(500, 'b'))
    const scans = wholeReadScans()
    const previews: string[] = []
    for (let i = 0; i < 5; i++) {
      try {
        await h['releases/preview']({ queryId: q, params: tslm })
        previews.push('previewed')
      } catch (e) {
        previews.push((e as Error).message)
      }
    }
    expect(new Set(previews).size).toBe(1)
    expect(previews[0]).toMatch(/no longer reads as one record per line/)
    expect(wholeReadScans() - scans).toBe(1)
    appendFileSync(csv, rows(10, 'c'))
    await expect(h['releases/preview']({ queryId: q, params: tslm })).rejects.toThrow(/no longer reads as one record per line/)
    expect(wholeReadScans() - scans).toBe(2)
  })
})
