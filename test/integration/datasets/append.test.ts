/**
 * `import --dataset D --append F` and `datasets/append`: a dataset that grows. Each test is the failure it stops: a
 * half-appended file (a bad value after a staged batch), rows under the wrong columns (a header in another order,
 * a missing or extra column), a broken one-value-per-person declaration, rows appended to a linked or public dataset,
 * and an analyst or officer account adding rows (the custodian's act).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { runCli } from '../cli-runner'
import { createServices } from '../../../src-main/services'
import { addAccount } from '../../../src-main/services/accounts/account-store'
import { openStore } from '../../../src-main/services/store/store'
import { declarePublic } from '../../../src-main/services/datasets/declare-public'
import { TEST_OFFICER, officerAct, testPassphrase } from '../officer-fixture'
import { tempWorkspace } from '../helpers'

let ws: ReturnType<typeof tempWorkspace>
beforeAll(() => {
  ws = tempWorkspace('qa-append-')
})
afterAll(() => ws.cleanup())

const cli = (...args: string[]) => runCli(args, { cwd: ws.dir })
const file = (name: string, lines: string[]) => {
  writeFileSync(join(ws.dir, name), lines.join('\n') + '\n')
  return name
}

/** Every stored row of a dataset, in rowid order, and its catalog counts (read directly: the contract hides private rows). */
function stored(db: string, name: string): { rows: unknown[][]; rowCount: number; bytes: number } {
  const store = openStore(db)
  try {
    const d = store.db.prepare('SELECT id, table_name, row_count, source_bytes FROM datasets WHERE name = ?').get(name) as {
      id: number
      table_name: string
      row_count: number
      source_bytes: number
    }
    const rows = store.db.prepare(`SELECT * FROM "${d.table_name}" ORDER BY rowid`).raw().all() as unknown[][]
    return { rows, rowCount: d.row_count, bytes: d.source_bytes }
  } finally {
    store.close()
  }
}

describe('import --append', () => {
  it('adds the rows of a file whose header names the same columns in another order, in file order, and counts them', async () => {
    file('hours.csv', ['room,at,n', 'r1,2026-01-01 00:10:00,3', 'r2,2026-01-01 00:20:00,4'])
    expect((await cli('import', '--db', ws.db, '--file', 'hours.csv', '--name', 'hours')).code).toBe(0)
    const before = stored(ws.db, 'hours')
    file('more.csv', ['n,room,at', '5,r1,2026-01-01 01:10:00', '6,r3,2026-01-01 01:50:00'])
    const r = await cli('import', '--db', ws.db, '--dataset', 'hours', '--append', 'more.csv', '--json')
    expect(r.err).toBe('')
    expect(r.code).toBe(0)
    expect(JSON.parse(r.out)).toMatchObject({ datasetId: 1, name: 'hours', appended: 2, rows: 4 })
    expect(r.out.trim().split('\n')).toHaveLength(1)
    const after = stored(ws.db, 'hours')
    expect(after.rows.slice(0, 2)).toEqual(before.rows)
    // Values under their own columns (the file's order was n, room, at) and typed as the dataset's columns.
    expect(after.rows.slice(2).map((row) => [row[0], row[2]])).toEqual([
      ['r1', 5],
      ['r3', 6]
    ])
    expect(after.rowCount).toBe(4)
    expect(after.bytes).toBeGreaterThan(before.bytes)
    const text = await cli('import', '--db', ws.db, '--dataset', '1', '--append', 'more.csv')
    expect(text.out).toMatch(/^Appended 2 rows to dataset 1 "hours" \(now 6 rows\) in \d+\.\d s\n$/)
  })

  it('bad input exits 2 with one line and changes nothing stored, also when the bad row comes after a staged batch', async () => {
    const before = stored(ws.db, 'hours')
    const many = ['room,at,n']
    for (let i = 0; i < 12_000; i++) many.push(`r${i % 7},2026-01-02 00:00:00,${i}`)
    many.push('r1,2026-01-02 00:00:00,lots')
    file('late-bad.csv', many)
    file('missing.csv', ['room,at', 'r1,2026-01-01 00:00:00'])
    file('extra.csv', ['room,at,n,who', 'r1,2026-01-01 00:00:00,1,x'])
    file('ragged.csv', ['room,at,n', 'r1,2026-01-01 00:00:00'])
    file('badtime.csv', ['room,at,n', 'r1,yesterday,1'])
    file('empty.csv', ['room,at,n'])
    const cases: Array<[string[], RegExp]> = [
      [
        ['--append', 'late-bad.csv'],
        /^quiet-alarm: Line 12002: column "n" takes a whole number but has "lots"; fix the file \(the dataset's column types stay as imported\); nothing was appended\n$/
      ],
      [
        ['--append', 'missing.csv'],
        /^quiet-alarm: The file's header has no column "n"; an append needs the same columns as dataset "hours" \(3: "room", "at", "n"\); nothing was appended\n$/
      ],
      [['--append', 'extra.csv'], /^quiet-alarm: The file's header has a column "who" the dataset does not have; an append needs the same columns/],
      [['--append', 'ragged.csv'], /^quiet-alarm: Line 2 has 2 fields, the header has 3; fix the file .*; nothing was appended\n$/],
      [['--append', 'badtime.csv'], /^quiet-alarm: Line 2: column "at" takes a timestamp but has "yesterday"/],
      [['--append', 'empty.csv'], /^quiet-alarm: The file has a header row but no data rows; nothing to append\n$/],
      [['--append', 'nope.csv'], /^quiet-alarm: Cannot read nope.csv: no such file\n$/],
      [['--append', 'more.csv', '--name', 'x'], /^quiet-alarm: --name does not go with --append/],
      [['--append', 'more.csv', '--person-column', 'room'], /^quiet-alarm: --person-column does not go with --append/]
    ]
    for (const [args, message] of cases) {
      const r = await cli('import', '--db', ws.db, '--dataset', 'hours', ...args)
      expect(r.err, args.join(' ')).toMatch(message)
      expect(r.code).toBe(2)
      expect(r.out).toBe('')
    }
    const noDataset = await cli('import', '--db', ws.db, '--dataset', 'nope', '--append', 'more.csv')
    expect(noDataset.err).toMatch(/^quiet-alarm: There is no dataset named "nope"/)
    const noAppend = await cli('import', '--db', ws.db, '--dataset', 'hours', '--file', 'more.csv')
    expect(noAppend.err).toBe('quiet-alarm: --dataset goes with --append F (a file of new rows for that dataset)\n')
    expect(stored(ws.db, 'hours')).toEqual(before)
  })

  it('refuses rows that break a declared one-value-per-person column, counted over the old rows and the new', async () => {
    file('staff.csv', ['person,ward,shift', 'p1,A,1', 'p2,B,1'])
    const imp = await cli('import', '--db', ws.db, '--file', 'staff.csv', '--person-column', 'person', '--per-person-columns', 'ward')
    expect(imp.code).toBe(0)
    const before = stored(ws.db, 'staff')
    // Alone, the new file is consistent (p1 in one ward); with the stored rows, p1 is in two.
    file('staff-more.csv', ['person,ward,shift', 'p1,C,2', 'p1,C,3'])
    const r = await cli('import', '--db', ws.db, '--dataset', 'staff', '--append', 'staff-more.csv')
    expect(r.code).toBe(2)
    expect(r.err).toBe(
      'quiet-alarm: The column "ward" is declared to hold one value per person, but with the file\'s rows a person has several values in it; nothing was appended\n'
    )
    expect(stored(ws.db, 'staff')).toEqual(before)
    file('staff-ok.csv', ['person,ward,shift', 'p1,A,2', 'p3,C,3'])
    expect((await cli('import', '--db', ws.db, '--dataset', 'staff', '--append', 'staff-ok.csv')).code).toBe(0)
    expect(stored(ws.db, 'staff').rowCount).toBe(4)
  })

  it('refuses a public dataset (its declaration covers the rows it was made on) and a linked one (it grows where it lives)', async () => {
    const store = openStore(ws.db)
    try {
      const id = (store.db.prepare("SELECT id FROM datasets WHERE name = 'hours'").get() as { id: number }).id
      file('pub.csv', ['room,at,n', 'r1,2026-01-01 00:10:00,3'])
      expect((await cli('import', '--db', ws.db, '--file', 'pub.csv', '--name', 'pub')).code).toBe(0)
      const pubId = (store.db.prepare("SELECT id FROM datasets WHERE name = 'pub'").get() as { id: number }).id
      declarePublic(store.db, { datasetId: pubId, reason: 'published counts', ...officerAct(store.db) })
      expect(id).not.toBe(pubId)
    } finally {
      store.close()
    }
    const before = stored(ws.db, 'pub')
    const r = await cli('import', '--db', ws.db, '--dataset', 'pub', '--append', 'more.csv')
    expect(r.code).toBe(2)
    expect(r.err).toBe(
      'quiet-alarm: Dataset "pub" is declared public and its declaration covers the rows it was made on; import the new rows as a dataset of their own\n'
    )
    expect(stored(ws.db, 'pub')).toEqual(before)
    const link = await runCli(['link', '--db', ws.db, '--file', 'hours.csv', '--name', 'linked-hours', '--officer', TEST_OFFICER], {
      cwd: ws.dir,
      env: { QUIET_ALARM_PASSPHRASE: testPassphrase(TEST_OFFICER) }
    })
    expect(link.err).toBe('')
    expect(link.code).toBe(0)
    const l = await cli('import', '--db', ws.db, '--dataset', 'linked-hours', '--append', 'more.csv')
    expect(l.code).toBe(2)
    expect(l.err).toMatch(
      /^quiet-alarm: Dataset "linked-hours" is linked \(file\), so it grows where it lives; only imported datasets take appended rows\n$/
    )
  })
})

describe('datasets/append in the service', () => {
  it("is the custodian's act: an analyst's or an officer's account is refused and nothing is written", async () => {
    const svc = tempWorkspace('qa-append-svc-')
    const s = createServices({ mode: 'headless', deployment: 'service', dbPath: svc.db, poolSize: 1 })
    try {
      const db = s.context.store.db
      const grant = (name: string, role: 'analyst' | 'officer' | 'custodian') => {
        const { credential } = addAccount(db, { name, role, days: 30 }, officerAct(db))
        const auth = s.accounts.authenticate(credential, '10.0.0.1')
        if (!auth.ok) throw new Error(auth.error.message)
        return auth.principal
      }
      const custodian = grant('cas', 'custodian')
      writeFileSync(join(svc.dir, 'a.csv'), 'room,n\nr1,1\nr2,2\n')
      writeFileSync(join(svc.dir, 'b.csv'), 'room,n\nr3,3\n')
      const started = await s.dispatch('datasets/import', { fileId: s.context.files!.register(join(svc.dir, 'a.csv')).fileId, name: 'a' }, custodian)
      expect(started.ok).toBe(true)
      const job = await s.context.jobs.settled((started as { value: { jobId: string } }).value.jobId)
      expect(job?.state).toBe('done')
      const count = () => (db.prepare('SELECT row_count AS n FROM datasets WHERE id = 1').get() as { n: number }).n
      for (const [name, role] of [
        ['ana', 'analyst'],
        ['olga', 'officer']
      ] as const) {
        const out = await s.dispatch(
          'datasets/append',
          { fileId: s.context.files!.register(join(svc.dir, 'b.csv')).fileId, datasetId: 1 },
          grant(name, role)
        )
        expect(out).toMatchObject({ ok: false, error: { code: 'forbidden' } })
        expect((out as { error: { message: string } }).error.message).toMatch(/^Forbidden: "datasets\/append" is the custodian's act/)
        expect(count()).toBe(2)
      }
      const ok = await s.dispatch('datasets/append', { fileId: s.context.files!.register(join(svc.dir, 'b.csv')).fileId, datasetId: 1 }, custodian)
      expect(ok).toMatchObject({ ok: true, value: { appended: 1, rows: 3 } })
      expect(count()).toBe(3)
    } finally {
      await s.close()
      svc.cleanup()
    }
  })
})
