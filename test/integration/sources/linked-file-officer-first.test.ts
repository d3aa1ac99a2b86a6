/**
 * Linking a file derives the officer's key (scrypt, this thread) while DuckDB checks that the file reads whole (its
 * threads). The attacks: a caller without the passphrase learning whether a file reads whole, or that it exists, from
 * the refusal; a check left running after the link has thrown (DuckDB's bridge busy, its verdict lost); a verdict taken
 * for a file version other than the one scanned (the file rewritten while the key is derived). No mocks: DuckDB reads
 * real files.
 */
import { readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { listDatasets } from '../../../src-main/services/catalog/catalog'
import { linkFile } from '../../../src-main/services/datasets/link-file'
import { catalogType } from '../../../src-main/services/sources/dialect-duckdb'
import { duckAll, duckString } from '../../../src-main/services/sources/duckdb-sync'
import { fingerprintFile, readSchema } from '../../../src-main/services/sources/linked-file'
import { CHANGED_WHILE_CHECKED, beginFileReadsWhole, fileReadsWhole, wholeReadScans } from '../../../src-main/services/sources/linked-file-whole'
import { openStore, type Store } from '../../../src-main/services/store/store'
import { tempWorkspace } from '../helpers'
import { TEST_OFFICER, officerAct } from '../officer-fixture'

let ws: ReturnType<typeof tempWorkspace>
let store: Store
beforeEach(() => {
  ws = tempWorkspace('qa-link-first-')
  store = openStore(ws.db)
})
afterEach(() => {
  store.close()
  ws.cleanup()
})

const DAMAGED = 'DuckDB cannot decode all of its rows (a text value that is not valid UTF-8, or a damaged page)'

/** Two row groups of `person, room, token`; `damaged`: a data page of the second row group's token column overwritten. */
function tokens(name: string, damaged: boolean): string {
  const pq = join(ws.dir, name)
  duckAll(
    `COPY (SELECT CAST(p AS INTEGER) AS person, CAST(1 AS INTEGER) AS room, CAST(i AS INTEGER) AS token FROM range(1, 3) s(p), range(2048) t(i) ORDER BY person) ` +
      `TO ${duckString(pq)} (FORMAT parquet, COMPRESSION uncompressed, ROW_GROUP_SIZE 2048)`
  )
  if (damaged) damage(pq)
  return pq
}

/** Overwrites 8 bytes of a data page of the second row group's token column, keeping the size and the mtime. */
function damage(pq: string): void {
  const [offset] = duckAll(`SELECT data_page_offset FROM parquet_metadata(${duckString(pq)}) WHERE row_group_id = 1 AND path_in_schema = 'token'`)
    .rows[0] as [number]
  const { atime, mtime } = statSync(pq)
  const bytes = readFileSync(pq)
  bytes.fill(0xff, Number(offset), Number(offset) + 8)
  writeFileSync(pq, bytes)
  utimesSync(pq, atime, mtime)
}

const stored = () => ({
  datasets: listDatasets(store.db).length,
  sources: (store.db.prepare('SELECT count(*) AS n FROM dataset_sources').get() as { n: number }).n,
  audit: (store.db.prepare('SELECT count(*) AS n FROM audit_events').get() as { n: number }).n
})

describe('linking a file: the officer first', () => {
  it('a wrong passphrase gets the same refusal whether the file reads whole, is damaged, is no Parquet file or is missing; nothing is stored', () => {
    const officer = officerAct(store.db)
    const wrong = { officer: TEST_OFFICER, passphrase: 'not the passphrase' }
    const refusal = `The passphrase of officer "${TEST_OFFICER}" is wrong; nothing was written`
    const notParquet = join(ws.dir, 'notes.parquet')
    writeFileSync(notParquet, 'person,room\np1,R1\n')
    const files = [tokens('whole.parquet', false), tokens('damaged.parquet', true), notParquet, join(ws.dir, 'missing.parquet')]
    const before = stored()
    for (const file of files) {
      expect(() => linkFile(store.db, { name: 'tokens', file, personColumn: 'person', ...wrong })).toThrow(refusal)
      expect(() => linkFile(store.db, { name: 'tokens', file, personColumn: 'nobody', ...wrong })).toThrow(refusal)
    }
    expect(stored()).toEqual(before)
    // With the passphrase, each file gets its own answer.
    expect(linkFile(store.db, { name: 'whole', file: files[0], personColumn: 'person', ...officer }).rowCount).toBe(4096)
    expect(() => linkFile(store.db, { name: 'damaged', file: files[1], personColumn: 'person', ...officer })).toThrow(
      `"damaged.parquet" cannot be linked: ${DAMAGED}`
    )
    expect(() => linkFile(store.db, { name: 'notes', file: notParquet, personColumn: 'person', ...officer })).toThrow('is not a Parquet file')
    expect(() => linkFile(store.db, { name: 'missing', file: files[3], personColumn: 'person', ...officer })).toThrow('There is no file')
  })

  it('the check begun before a wrong passphrase is taken before the refusal: its verdict is kept for the file version, not scanned again', () => {
    const officer = officerAct(store.db)
    const pq = tokens('damaged.parquet', true)
    const scans = wholeReadScans()
    expect(() => linkFile(store.db, { name: 'tokens', file: pq, personColumn: 'person', officer: TEST_OFFICER, passphrase: 'wrong' })).toThrow(
      'is wrong; nothing was written'
    )
    expect(wholeReadScans() - scans).toBe(1)
    // DuckDB's bridge is free (a later statement is answered) and the refused attempt's verdict is the one given now.
    expect(duckAll('SELECT 40 + 2').rows).toEqual([[42]])
    expect(() => linkFile(store.db, { name: 'tokens', file: pq, personColumn: 'person', ...officer })).toThrow(`cannot be linked: ${DAMAGED}`)
    expect(wholeReadScans() - scans).toBe(1)
  })

  it('an unknown officer or a missing passphrase is refused before the file is read', () => {
    officerAct(store.db)
    const pq = tokens('damaged.parquet', true)
    const scans = wholeReadScans()
    expect(() => linkFile(store.db, { name: 'tokens', file: pq, personColumn: 'person', officer: 'Mallory', passphrase: 'x' })).toThrow(
      '"Mallory" is not a registered privacy officer'
    )
    expect(() => linkFile(store.db, { name: 'tokens', file: pq, personColumn: 'person', officer: TEST_OFFICER, passphrase: '' })).toThrow(
      'This is an officer act: it needs the passphrase'
    )
    expect(wholeReadScans()).toBe(scans)
    expect(listDatasets(store.db)).toEqual([])
  })

  it('a file rewritten while its check is under way (the key being derived) is "changed while checked", and no verdict is kept for either version', () => {
    const pq = tokens('tokens.parquet', false)
    const columns = readSchema('parquet', pq).map((c) => ({ ...c, type: catalogType(c.duckType) }))
    const f = { format: 'parquet' as const, path: pq, columns }
    const scanned = fingerprintFile(pq, 'parquet').version!
    const check = beginFileReadsWhole(f, scanned)
    // Whether DuckDB has read the whole bytes by now or not: the damaged version must not inherit their verdict.
    damage(pq)
    expect(check.wait()).toBe(CHANGED_WHILE_CHECKED)
    expect(check.wait()).toBe(CHANGED_WHILE_CHECKED)
    const scans = wholeReadScans()
    expect(fileReadsWhole(f, fingerprintFile(pq, 'parquet').version!)).toBe(DAMAGED)
    expect(fileReadsWhole(f, scanned)).toBe(CHANGED_WHILE_CHECKED)
    expect(wholeReadScans() - scans).toBe(1)
  })
})
