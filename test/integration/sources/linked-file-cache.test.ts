/**
 * Attack on the whole-read check (linked-file-whole.ts) through DuckDB's external file cache: a linked Parquet file
 * rewritten in place with the same size and its mtime put back (cp -p, rsync -t, a writer that restores it) is a new
 * file version (ctime moved), so the check scans it again; a cache that validates blocks by modification time and size
 * only would serve that scan the old bytes, the check would certify the damaged version, and a release whose filter
 * reads the damaged row group (alice's) would fail after its charge while bob's is answered.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { QueryDefinition } from '../../../src-main/contract/datasets'
import type { ReleaseParams } from '../../../src-main/contract/ledger'
import type { Store } from '../../../src-main/services/platform/handler-types'
import { ledgerHandlers } from '../../../src-main/services/releases/ledger-handlers'
import { linkFile } from '../../../src-main/services/datasets/link-file'
import { closeDuckDb, duckAll, duckString } from '../../../src-main/services/sources/duckdb-sync'
import { tempWorkspace } from '../helpers'
import { closeLedgerWorkspace, openLedgerWorkspace, saveQuery } from '../ledger/fixtures'
import { officerAct } from '../officer-fixture'

let ws: ReturnType<typeof tempWorkspace>
let store: Store
let h: ReturnType<typeof ledgerHandlers>
beforeEach(() => {
  ;({ ws, store, h } = openLedgerWorkspace('qa-stale-cache-'))
})
afterEach(async () => {
  closeLedgerWorkspace(store, ws)
  await closeDuckDb()
})

const tslm: ReleaseParams = { kind: 'threshold', mechanism: 'tslm', beta: 0.05, alpha: 10 }
const question = (p: string): QueryDefinition => ({
  kind: 'threshold',
  groupBy: ['room'],
  filter: [{ column: 'person', op: '=', value: p }],
  count: { kind: 'rows' },
  threshold: { kind: 'constant', value: 1 },
  groups: [[0], [1], [2]]
})

/** Whether `sql` (a read of `path`) fails in DuckDB when run on a fresh copy (a path it never cached). */
function failsFresh(bytes: Buffer, dir: string, k: number, sql: (rel: string) => string): boolean {
  const p = join(dir, `probe-${k}.parquet`)
  writeFileSync(p, bytes)
  try {
    duckAll(sql(`read_parquet(${duckString(p)})`))
    return false
  } catch {
    return true
  }
}

describe('the whole-read check and DuckDB external file cache', () => {
  it('a damaged rewrite that keeps size and mtime is refused before the charge (not charged and then failed)', async () => {
    const path = join(ws.dir, 'visits.parquet')
    // Sorted by person, one person per row group: a filter on the person reads that person's row group only.
    duckAll(
      `COPY (SELECT CASE WHEN i < 20000 THEN 'alice' ELSE 'bob' END AS person, (i % 3)::INTEGER AS room, make_timestamp(1600000000000000 + (i % 4) * 3600000000) AS at FROM range(40000) r(i) ORDER BY i) ` +
        `TO ${duckString(path)} (FORMAT parquet, COMPRESSION uncompressed, ROW_GROUP_SIZE 20000)`
    )
    const good = readFileSync(path)
    // A byte of alice's room page header such that alice's read fails and bob's does not (found on fresh copies).
    // The file's first page header (the person column's dictionary page of row group 0) damaged: no reader can parse it.
    const damaged = Buffer.from(good)
    damaged[4] ^= 0x5a
    const check = (rel: string) => `SELECT sum(strlen("person")), bit_xor(hash("room")), bit_xor(hash("at")) FROM ${rel}`
    expect(failsFresh(damaged, ws.dir, 0, check)).toBe(true)
    const ds = linkFile(store.db, { name: 'visits', file: path, personColumn: null, ...officerAct(store.db) }).id
    await h['budgets/set']({ datasetId: ds, epsilon: '100', reason: 'test', ...officerAct(store.db) })
    // One release before the rewrite (reads the file: its blocks are now in DuckDB's cache).
    await h['releases/run']({ queryId: saveQuery(store.db, ds, 'warm', question('bob')), params: tslm })
    const st = statSync(path)
    writeFileSync(path, damaged)
    utimesSync(path, st.atime, st.mtime)
    const out: Record<string, string> = {}
    for (const p of ['alice', 'bob']) {
      try {
        out[p] = `answered ${(await h['releases/run']({ queryId: saveQuery(store.db, ds, `q ${p}`, question(p)), params: tslm })).answer!.kind}`
      } catch (e) {
        out[p] = (e as Error).message
      }
    }
    // The file does not read whole: refused before the charge (nothing charged), never charged and then failed.
    expect(out.alice).toMatch(/no longer decodes whole.*Nothing was charged/)
    expect(out.bob).toMatch(/no longer decodes whole.*Nothing was charged/)
  })
})
