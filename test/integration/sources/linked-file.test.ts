/**
 * Linked files through the CLI (`quiet-alarm link`), releases on them charged like imported datasets with the
 * file's fingerprint in the ledger entry, and a missing file or a changed schema refused with one sentence before any
 * charge. No mocks: DuckDB reads real Parquet and CSV files.
 */
import { openedChargeDetails } from './charge-details'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { readFileSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { QueryDefinition } from '../../../src-main/contract/datasets'
import type { Store } from '../../../src-main/services/store/store'
import { ledgerHandlers } from '../../../src-main/services/releases/ledger-handlers'
import { verifyLedger } from '../../../src-main/services/ledger/verify'
import { getDataset, listDatasets, storedRows } from '../../../src-main/services/catalog/catalog'
import { fingerprintFile, linkedFileOf } from '../../../src-main/services/sources/linked-file'
import { linkFile } from '../../../src-main/services/datasets/link-file'
import { duckAll, duckString } from '../../../src-main/services/sources/duckdb-sync'
import { main } from '../../../src-main/cli'
import { openStore } from '../../../src-main/services/store/store'
import { tempWorkspace } from '../helpers'
import { closeLedgerWorkspace, openLedgerWorkspace, saveQuery } from '../ledger/fixtures'
import { TEST_OFFICER, officerAct, testPassphrase } from '../officer-fixture'

let ws: ReturnType<typeof tempWorkspace>
let store: Store
let h: ReturnType<typeof ledgerHandlers>

beforeEach(() => {
  ;({ ws, store, h } = openLedgerWorkspace('qa-link-'))
})
afterEach(() => closeLedgerWorkspace(store, ws))

/** badges: 4 rooms, persons p0..p49, one row per (person, hour) over two days. */
function writeParquet(path: string, extra = ''): void {
  duckAll(
    `COPY (SELECT 'p' || (i % 50) AS person, 'R' || (1 + (i % 4)) AS room, (i % 3) AS floor, ` +
      `TIMESTAMP '2015-01-01' + INTERVAL (i % 48) HOUR AS at, (i * 7919) % 1000 / 10.0 AS score${extra} FROM range(2000) t(i)) ` +
      `TO ${duckString(path)} (FORMAT parquet)`
  )
}

/** The CLI in-process; linking is an officer act, so the test officer's passphrase is in the environment. */
async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = ''
  let err = ''
  const saved = process.env.QUIET_ALARM_PASSPHRASE
  process.env.QUIET_ALARM_PASSPHRASE = testPassphrase(TEST_OFFICER)
  try {
    const code = await main(args, {
      stdout: { write: (x: string) => ((out += x), true) },
      stderr: { write: (x: string) => ((err += x), true) },
      cwd: ws.dir
    } as never)
    return { code, out, err }
  } finally {
    if (saved === undefined) delete process.env.QUIET_ALARM_PASSPHRASE
    else process.env.QUIET_ALARM_PASSPHRASE = saved
  }
}

const tslm = { kind: 'threshold' as const, mechanism: 'tslm' as const, beta: 0.05, alpha: 10 }

function chargeDetails(datasetId: number) {
  return openedChargeDetails<{ size: number; mtimeMs: number; hash: string; format: string; file: string }>(store.db, datasetId, 'olga')
}

describe('linked files', () => {
  it('a path DuckDB would read as a pattern is refused: the officer signs one file, a release never counts another', async () => {
    // The attack: a file linked as export?.csv, then export2.csv written beside it with other people's rows; read_csv
    // expands the pattern and counts the unsigned file.
    for (const name of ['export?.csv', 'export*.csv', 'export[1].csv']) {
      const csv = join(ws.dir, name)
      writeFileSync(csv, 'person,room\n' + Array.from({ length: 10 }, (_, i) => `p${i},R1`).join('\n') + '\n')
      expect(() => linkFile(store.db, { name: `linked ${name}`, file: csv, personColumn: null, ...officerAct(store.db) }), name).toThrow(
        /may not contain \*, \? or \[/
      )
    }
    expect(listDatasets(store.db)).toEqual([])
  })

  it('CLI: link --file F.parquet --person-column; the catalog shows the kind, columns and unit; the path stays in the workspace only', async () => {
    const pq = join(ws.dir, 'badges.parquet')
    writeParquet(pq)
    officerAct(store.db)
    store.close()
    const r = await cli(['link', '--db', ws.db, '--name', 'badges', '--file', 'badges.parquet', '--person-column', 'person', '--json'])
    expect(r.err).toBe('')
    expect(r.code).toBe(0)
    const j = JSON.parse(r.out)
    expect(j).toMatchObject({ name: 'badges', source: 'linked-file', rows: 2000, unit: 'person', unitKind: 'person' })
    expect(j.columns.map((c: { name: string; type: string }) => `${c.name}:${c.type}`)).toEqual([
      'person:text',
      'room:text',
      'floor:integer',
      'at:timestamp',
      'score:real'
    ])
    store = openStore(ws.db)
    const info = listDatasets(store.db)[0]
    expect(info.source).toBe('linked-file')
    expect(info.sourceFile).toBe('badges.parquet')
    expect(JSON.stringify(info)).not.toContain(ws.dir)
    expect(linkedFileOf(store.db, info.id)!.path).toBe(pq)
    expect(() => storedRows(store.db, info.id)).toThrow(/linked file; its rows are not paged/)
    // Bad input: both units, an unknown person column, a file that is not there, a text file: exit 2, nothing stored.
    store.close()
    expect((await cli(['link', '--db', ws.db, '--name', 'x', '--file', 'badges.parquet', '--person-column', 'person', '--row-level'])).code).toBe(2)
    const unknown = await cli(['link', '--db', ws.db, '--name', 'x', '--file', 'badges.parquet', '--person-column', 'nobody'])
    expect(unknown.code).toBe(2)
    expect(unknown.err).toMatch(/The person column "nobody" is not a column of the file/)
    expect((await cli(['link', '--db', ws.db, '--name', 'x', '--file', 'gone.parquet'])).err).toMatch(/There is no file ".*gone.parquet"/)
    writeFileSync(join(ws.dir, 'notes.txt'), 'hello')
    expect((await cli(['link', '--db', ws.db, '--name', 'x', '--file', 'notes.txt'])).err).toMatch(/must be a Parquet file/)
    writeFileSync(join(ws.dir, 'fake.parquet'), 'not parquet at all')
    expect((await cli(['link', '--db', ws.db, '--name', 'x', '--file', 'fake.parquet'])).err).toMatch(/is not a Parquet file/)
    const dup = await cli([
      'link',
      '--db',
      ws.db,
      '--name',
      'x',
      '--file',
      'badges.parquet',
      '--person-column',
      'person',
      '--per-person-columns',
      'room'
    ])
    // Refused whatever the rows hold (checking them would tell the caller whether some person has two values).
    expect(dup.err).toMatch(/Columns cannot be declared one value per person on a linked source \("room"\)/)
    const other = await cli([
      'link',
      '--db',
      ws.db,
      '--name',
      'x',
      '--file',
      'badges.parquet',
      '--person-column',
      'person',
      '--per-person-columns',
      'person_id_never_checked'
    ])
    expect(other.err).toBe(dup.err.replace('"room"', '"person_id_never_checked"'))
    store = openStore(ws.db)
    expect(listDatasets(store.db).map((d) => d.name)).toEqual(['badges'])
    store.close()
    expect((await cli(['datasets', 'list', '--db', ws.db])).out).toMatch(
      /1  badges  2,000 rows \(linked file badges.parquet, queried in place\)  unit: person/
    )
    expect((await cli(['datasets', 'show', '--db', ws.db, '--dataset', 'badges'])).out).toMatch(
      /2000 rows in the linked file badges.parquet \(queried in place; rows when linked\)/
    )
    store = openStore(ws.db)
  })

  it('releases on a linked Parquet file are charged as usual and record the file fingerprint; a changed file gets a new one', async () => {
    const pq = join(ws.dir, 'badges.parquet')
    writeParquet(pq)
    const ds = linkFile(store.db, { name: 'badges', file: pq, personColumn: null, ...officerAct(store.db) }).id
    const q = saveQuery(store.db, ds, 'rooms', {
      kind: 'threshold',
      groupBy: ['room'],
      count: { kind: 'rows' },
      threshold: { kind: 'constant', value: 400 },
      groups: [['R1'], ['R2'], ['R9']]
    })
    await h['budgets/set']({ datasetId: ds, epsilon: '5', reason: 'test', ...officerAct(store.db, 'olga') })
    const r1 = await h['releases/run']({ queryId: q, params: tslm })
    expect(r1.epsilon).toBeGreaterThan(0)
    const first = chargeDetails(ds)[0].params.source!
    expect(first).toEqual({ format: 'parquet', file: 'badges.parquet', ...fingerprintFile(pq, 'parquet') })
    expect(first.hash).toMatch(/^[0-9a-f]{64}$/)
    // New rows, same schema: released on as it now is, with its new fingerprint.
    writeParquet(pq)
    utimesSync(pq, new Date(), new Date(Date.now() + 5000))
    duckAll(`COPY (SELECT * FROM read_parquet(${duckString(pq)}) WHERE room <> 'R4') TO ${duckString(pq + '.tmp')} (FORMAT parquet)`)
    renameSync(pq + '.tmp', pq)
    await h['releases/run']({ queryId: q, params: tslm })
    const second = chargeDetails(ds)[1].params.source!
    expect(second.hash).not.toBe(first.hash)
    expect(second.size).not.toBe(first.size)
    expect(verifyLedger(store.db).ok).toBe(true)
  })

  it('a missing file or a changed schema is one sentence before the charge; nothing is charged', async () => {
    const pq = join(ws.dir, 'badges.parquet')
    writeParquet(pq)
    const ds = linkFile(store.db, { name: 'badges', file: pq, personColumn: 'person', ...officerAct(store.db) }).id
    const q = saveQuery(store.db, ds, 'rooms', {
      kind: 'threshold',
      groupBy: ['room'],
      count: { kind: 'persons', personColumn: 'person', cap: 2, maxGroups: 1 },
      threshold: { kind: 'constant', value: 40 },
      groups: [['R1'], ['R2']]
    })
    const search = saveQuery(store.db, ds, 'search', {
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
    await h['budgets/set']({ datasetId: ds, epsilon: '5', reason: 'test', ...officerAct(store.db, 'olga') })
    const entries = async () => (await h['ledger/entries']({})).total
    const before = await entries()
    rmSync(pq)
    await expect(h['releases/run']({ queryId: q, params: tslm })).rejects.toThrow(
      /^The file linked as dataset "badges" \(badges.parquet\) is missing; put it back or link the dataset again. Nothing was charged.$/
    )
    await expect(h['releases/run']({ queryId: search, params: { kind: 'anomaly-search' } })).rejects.toThrow(/is missing/)
    writeParquet(pq, ', 1 AS extra')
    await expect(h['releases/run']({ queryId: q, params: tslm })).rejects.toThrow(/has changed its schema: its columns are not the ones it had/)
    duckAll(
      `COPY (SELECT person, room, CAST(floor AS VARCHAR) AS floor, "at", score FROM range(1), read_parquet(${duckString(pq)})) TO ${duckString(pq + '.tmp')} (FORMAT parquet)`
    )
    renameSync(pq + '.tmp', pq)
    await expect(h['releases/run']({ queryId: q, params: tslm })).rejects.toThrow(
      /column "floor" changed type from BIGINT to VARCHAR; link it again as a new dataset. Nothing was charged./
    )
    expect(await entries()).toBe(before)
    // Back as linked: the release runs (the truncation to one room per person runs on DuckDB's tuples).
    writeParquet(pq)
    await h['releases/run']({ queryId: q, params: tslm })
    const s = await h['releases/run']({ queryId: search, params: { kind: 'anomaly-search' } })
    expect(s.epsilon).toBeGreaterThan(0)
    expect(await entries()).toBe(before + 2)
    expect(getDataset(store.db, ds).info.unit).toEqual({ kind: 'person', column: 'person' })
  })

  it('one CSV value moves no other row: a quote closed early stays in its row; a quote left open or a line break in a quoted value is refused before the charge for every query alike', async () => {
    // The attack: alice's room typed as `"R1"x` (or `"R1` left open) made DuckDB's reader skip every line after hers,
    // and a quoted line break joins the lines up to the next quote to her record: the count of R1 fell from 1,001 to
    // 501 with no error, far beyond the one row she holds.
    const csv = join(ws.dir, 'visits.csv')
    const rows = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i},R1,${i + 1}\n`).join('')
    const file = (alice: string) => 'person,room,token\n' + rows(500, 'a') + alice + '\n' + rows(500, 'b')
    writeFileSync(csv, file('alice,R1,7'))
    const ds = linkFile(store.db, { name: 'visits', file: csv, personColumn: null, ...officerAct(store.db) }).id
    await h['budgets/set']({ datasetId: ds, epsilon: '100', reason: 'test', ...officerAct(store.db, 'olga') })
    const q = saveQuery(store.db, ds, 'busy rooms', {
      kind: 'threshold',
      groupBy: ['room'],
      filter: [{ column: 'token', op: '>', value: 0 }],
      count: { kind: 'rows' },
      threshold: { kind: 'constant', value: 700 },
      groups: [['R1']]
    })
    const answer = (await h['releases/run']({ queryId: q, params: tslm })).answer!
    expect(answer.kind === 'threshold' && answer.flagged.length).toBe(1)
    // Damage within alice's line changes at most her row: R1 still holds at least the other 1,000 rows.
    for (const alice of ['alice,"R1"x,7', 'alice,R1,7,9']) {
      writeFileSync(csv, file(alice))
      const within = (await h['releases/run']({ queryId: q, params: tslm })).answer!
      expect(within.kind === 'threshold' && within.flagged.length, alice).toBe(1)
    }
    const entries = async () => (await h['ledger/entries']({})).total
    const before = await entries()
    // A line with too few values is refused too (no value can remove a comma without a line break).
    const damaged = ['alice,"R1,7', 'alice,"R1\nx",7', 'alice,R1', 'alice,"R1\n' + rows(400, 'c') + 'carol,x",7']
    for (const alice of damaged) {
      writeFileSync(csv, file(alice))
      await expect(h['releases/run']({ queryId: q, params: tslm }), alice.slice(0, 20)).rejects.toThrow(
        /^The file linked as dataset "visits" \(visits.csv\) no longer reads as one record per line \(.*\); releases on it run again once the file is repaired. Nothing was charged.$/
      )
    }
    expect(await entries()).toBe(before)
    // The officer linking such a file learns why.
    expect(() => linkFile(store.db, { name: 'visits again', file: csv, personColumn: null, ...officerAct(store.db) })).toThrow(
      /^"visits.csv" cannot be linked: its 1,402 lines after the header read as 1,001 records: a line is not one record of its columns/
    )
    // Repaired (CRLF line ends, a blank line, no line end at the end: still one record per line): answered again.
    writeFileSync(csv, file('alice,R1,7').replace(/\n/g, '\r\n') + '\r\n' + 'zoe,R1,9')
    expect((await h['releases/run']({ queryId: q, params: tslm })).answer!.kind).toBe('threshold')
    expect(await entries()).toBe(before + 1)
  })

  it('a carriage return in one CSV line past the reader sample is never a failure after the charge', async () => {
    const csv = join(ws.dir, 'long.csv')
    const rows = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i},R1,${i + 1}\n`).join('')
    const file = (alice: string) => 'person,room,token\n' + rows(40_000, 'a') + alice + '\n' + rows(500, 'b')
    writeFileSync(csv, file('alice,R1,7'))
    const ds = linkFile(store.db, { name: 'long', file: csv, personColumn: null, ...officerAct(store.db) }).id
    await h['budgets/set']({ datasetId: ds, epsilon: '100', reason: 'test', ...officerAct(store.db, 'olga') })
    const q = saveQuery(store.db, ds, 'rooms', {
      kind: 'threshold',
      groupBy: ['room'],
      count: { kind: 'rows' },
      threshold: { kind: 'constant', value: 700 },
      groups: [['R1']]
    })
    expect((await h['releases/run']({ queryId: q, params: tslm })).answer!.kind).toBe('threshold')
    const entries = async () => (await h['ledger/entries']({})).total
    const before = await entries()
    // A carriage return inside alice's value: refused before the charge.
    writeFileSync(csv, file('alice,R\r1,7'))
    await expect(h['releases/run']({ queryId: q, params: tslm })).rejects.toThrow(
      /^The file linked as dataset "long" \(long.csv\) no longer reads as one record per line .*Nothing was charged.$/
    )
    expect(await entries()).toBe(before)
    // Alice's line alone ending CRLF in a file of LF lines: read, and answered.
    writeFileSync(csv, file('alice,R1,7\r'))
    expect((await h['releases/run']({ queryId: q, params: tslm })).answer!.kind).toBe('threshold')
    expect(await entries()).toBe(before + 1)
  })

  it("a Parquet text value that is not UTF-8 in one person's row is refused before the charge for every person alike", async () => {
    // The attack: DuckDB checks a string only in the rows a query reads, so alice's release (filtered on her) was
    // charged and not answered while bob's was answered: a bit about alice's row at unbounded epsilon.
    const pq = join(ws.dir, 'notes.parquet')
    const write = (note: string) =>
      duckAll(
        `COPY (SELECT * FROM (VALUES ('alice', 'R1', '${note}'), ('bob', 'R1', 'ok'), ('bob', 'R2', 'ok2')) AS t(person, room, note)) TO ${duckString(pq)} (FORMAT parquet, COMPRESSION uncompressed)`
      )
    write('QQQQQQQQ')
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
    const run = async (person: string) => {
      try {
        return `answered ${(await h['releases/run']({ queryId: saveQuery(store.db, ds, `q ${person}`, query(person)), params: tslm })).answer!.kind}`
      } catch (e) {
        return (e as Error).message
      }
    }
    expect([await run('alice'), await run('bob')]).toEqual(['answered threshold', 'answered threshold'])
    const entries = async () => (await h['ledger/entries']({})).total
    const before = await entries()
    // Alice's note rewritten as bytes that are not UTF-8 (in the page and in the footer's statistics).
    const bytes = readFileSync(pq)
    for (let i = 0; i + 8 <= bytes.length; i++) if (bytes.toString('latin1', i, i + 8) === 'QQQQQQQQ') bytes.fill(0xff, i, i + 8)
    writeFileSync(pq, bytes)
    const refused =
      'The file linked as dataset "notes" (notes.parquet) no longer decodes whole (a text value that is not valid UTF-8, or a damaged page); releases on it run again once the file is repaired. Nothing was charged.'
    expect([await run('alice'), await run('bob')]).toEqual([refused, refused])
    expect(await entries()).toBe(before)
    expect(() => linkFile(store.db, { name: 'notes again', file: pq, personColumn: null, ...officerAct(store.db) })).toThrow(
      /^"notes.parquet" cannot be linked: DuckDB cannot decode all of its rows/
    )
    write('repaired')
    expect([await run('alice'), await run('bob')]).toEqual(['answered threshold', 'answered threshold'])
  })

  it('a damaged Parquet page in the row group of one person is refused before the charge for every person alike', async () => {
    // The attack: person 1's rows and person 2's in row groups of their own; a page of person 2's token column damaged.
    // A query filtered on person 1 skips that row group by its statistics, one on person 2 reads it and fails: after
    // the charge, for person 2 only. Counting the columns would not find it (DuckDB answers a count from the footer).
    const pq = join(ws.dir, 'tokens.parquet')
    duckAll(
      `COPY (SELECT CAST(p AS INTEGER) AS person, CAST(1 AS INTEGER) AS room, CAST(i AS INTEGER) AS token FROM range(1, 3) s(p), range(2048) t(i) ORDER BY person) ` +
        `TO ${duckString(pq)} (FORMAT parquet, COMPRESSION uncompressed, ROW_GROUP_SIZE 2048)`
    )
    const ds = linkFile(store.db, { name: 'tokens', file: pq, personColumn: null, ...officerAct(store.db) }).id
    await h['budgets/set']({ datasetId: ds, epsilon: '100', reason: 'test', ...officerAct(store.db, 'olga') })
    const run = async (person: number) => {
      const q = saveQuery(store.db, ds, `q ${person}`, {
        kind: 'threshold',
        groupBy: ['room'],
        filter: [
          { column: 'person', op: '=', value: person },
          { column: 'token', op: '>=', value: 0 }
        ],
        count: { kind: 'rows' },
        threshold: { kind: 'constant', value: 1000 },
        groups: [[1]]
      })
      try {
        return `answered ${(await h['releases/run']({ queryId: q, params: tslm })).answer!.kind}`
      } catch (e) {
        return (e as Error).message
      }
    }
    expect([await run(1), await run(2)]).toEqual(['answered threshold', 'answered threshold'])
    const entries = async () => (await h['ledger/entries']({})).total
    const before = await entries()
    const [offset] = duckAll(`SELECT data_page_offset FROM parquet_metadata(${duckString(pq)}) WHERE row_group_id = 1 AND path_in_schema = 'token'`)
      .rows[0] as [number]
    const bytes = readFileSync(pq)
    bytes.fill(0xff, Number(offset), Number(offset) + 8)
    writeFileSync(pq, bytes)
    const refused =
      'The file linked as dataset "tokens" (tokens.parquet) no longer decodes whole (a text value that is not valid UTF-8, or a damaged page); releases on it run again once the file is repaired. Nothing was charged.'
    expect([await run(1), await run(2)]).toEqual([refused, refused])
    expect(await entries()).toBe(before)
  })

  it('a linked CSV: header names checked before the charge; a value that no longer fits its type is empty (NULL), never a failure after the charge', async () => {
    const csv = join(ws.dir, 'badges.csv')
    writeFileSync(csv, 'person,room,floor\n' + Array.from({ length: 300 }, (_, i) => `p${i % 30},R${1 + (i % 3)},${i % 4}`).join('\n') + '\n')
    const ds = linkFile(store.db, { name: 'badges csv', file: csv, personColumn: null, ...officerAct(store.db) }).id
    expect(getDataset(store.db, ds).info.columns.map((c) => c.type)).toEqual(['text', 'text', 'integer'])
    const q = saveQuery(store.db, ds, 'rooms', {
      kind: 'threshold',
      groupBy: ['room'],
      filter: [{ column: 'floor', op: '>=', value: 1 }],
      count: { kind: 'rows' },
      threshold: { kind: 'constant', value: 40 },
      groups: [['R1'], ['R2']]
    })
    await h['budgets/set']({ datasetId: ds, epsilon: '5', reason: 'test', ...officerAct(store.db, 'olga') })
    await h['releases/run']({ queryId: q, params: tslm })
    expect(chargeDetails(ds)[0].params.source).toMatchObject({ format: 'csv', file: 'badges.csv' })
    writeFileSync(csv, 'person,site,floor\np1,R1,1\n')
    await expect(h['releases/run']({ queryId: q, params: tslm })).rejects.toThrow(/has changed its schema: column "room" is gone/)
    writeFileSync(csv, 'person,room,floor\np1,R1,1\np2,R2,upstairs\n')
    // "upstairs" is no integer any more: read as empty (its row fails the floor filter), and the release is answered.
    expect((await h['releases/run']({ queryId: q, params: tslm })).answer!.kind).toBe('threshold')
    expect(chargeDetails(ds)).toHaveLength(2)
  })
})
