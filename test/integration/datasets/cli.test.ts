/** The `import`, `datasets` and `query` commands, run in-process through the CLI runner. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { runCli } from '../cli-runner'
import { createServices } from '../../../src-main/services'
import { openStore } from '../../../src-main/services/store/store'
import { tempWorkspace } from '../helpers'

let ws: ReturnType<typeof tempWorkspace>
beforeAll(() => {
  ws = tempWorkspace('qa-cli-datasets-')
})
afterAll(() => ws.cleanup())

const cli = (...args: string[]) => runCli(args, { cwd: ws.dir })

describe('CLI: import, datasets, query', () => {
  it('imports with type overrides and skip, prints JSON, and progress goes to stderr only', async () => {
    const lines = ['room,person,at,n']
    for (let i = 0; i < 2000; i++) lines.push(`r${i % 4},p${i % 9},2015-01-0${1 + (i % 5)} 0${i % 10}:00:00,${i}`)
    lines.splice(5, 0, 'bad row')
    writeFileSync(join(ws.dir, 'occ.tsv'), lines.join('\n').replace(/,/g, '\t'))
    const r = await cli(
      'import',
      '--db',
      ws.db,
      '--file',
      'occ.tsv',
      '--name',
      'occupancy',
      '--type',
      'n=real,person=text',
      '--on-bad-row',
      'skip',
      '--json'
    )
    expect(r.code).toBe(0)
    const j = JSON.parse(r.out)
    expect(j).toMatchObject({ name: 'occupancy', rows: 2000, badRowCount: 1, badRows: [{ line: 6, reason: 'has 1 field, the header has 4' }] })
    expect(j.columns.map((c: { type: string }) => c.type)).toEqual(['text', 'text', 'timestamp', 'real'])
    expect(r.out.trim().split('\n')).toHaveLength(1)
  })

  it('bad input exits 2 with one line and stores nothing', async () => {
    writeFileSync(join(ws.dir, 'ragged.csv'), 'a,b\n1\n')
    const cases: Array<[string[], RegExp]> = [
      [['import', '--db', ws.db, '--file', 'ragged.csv'], /^quiet-alarm: Line 2 has 1 field, the header has 2; fix the file or skip bad rows\n$/],
      [['import', '--db', ws.db, '--file', 'missing.csv'], /^quiet-alarm: Cannot read missing.csv: no such file\n$/],
      [['import', '--db', ws.db, '--file', 'ragged.csv', '--type', 'a'], /^quiet-alarm: --type must be column=integer\|real\|text\|timestamp/],
      [['import', '--db', ws.db, '--file', 'ragged.csv', '--delimiter', 'x'], /^quiet-alarm: --delimiter must be one of/],
      [
        ['import', '--db', ws.db, '--file', 'occ.tsv', '--name', 'occupancy'],
        /^quiet-alarm: A dataset named "occupancy" already exists; choose another name\n$/
      ],
      [['datasets', 'rename', '--db', ws.db, '--dataset', 'nope', '--name', 'x'], /^quiet-alarm: There is no dataset named "nope"/],
      [['query', 'save', '--db', ws.db, '--spec', 'nope.json'], /^quiet-alarm: --spec must be a readable JSON file/]
    ]
    for (const [args, message] of cases) {
      const r = await cli(...args)
      expect(r.code).toBe(2)
      expect(r.err).toMatch(message)
      expect(r.out).toBe('')
    }
    const list = JSON.parse((await cli('datasets', 'list', '--db', ws.db, '--json')).out)
    expect(list.datasets.map((d: { name: string }) => d.name)).toEqual(['occupancy'])
  })

  it('lists, shows rows, renames, saves a query from a spec file, deletes', async () => {
    const text = (await cli('datasets', '--db', ws.db)).out
    expect(text).toMatch(/^1 {2}occupancy {2}2,000 rows/)
    // The rows of a private dataset are never shown; the officer's declaration (recorded in the ledger) makes them browsable.
    const refused = await cli('datasets', 'rows', '--db', ws.db, '--dataset', 'occupancy', '--limit', '2', '--json')
    expect(refused.code).toBe(2)
    expect(refused.out).toBe('')
    expect(refused.err).toBe(
      'quiet-alarm: The rows of "occupancy" are private and are not shown; only datasets the privacy officer declared public can be browsed\n'
    )
    // Declaring public is an officer act: register the officer, then act with the passphrase from a file.
    writeFileSync(join(ws.dir, 'jo.pass'), 'jo the officer passphrase\n')
    const noOfficer = await cli(
      'datasets',
      'public',
      '--db',
      ws.db,
      '--dataset',
      'occupancy',
      '--reason',
      'synthetic test data',
      '--passphrase-file',
      'jo.pass'
    )
    expect(noOfficer.code).toBe(2)
    expect(noOfficer.err).toMatch(/No privacy officer is registered in this workspace/)
    const init = await cli('officer', 'init', '--db', ws.db, '--name', 'Jo (officer)', '--passphrase-file', 'jo.pass')
    expect(init.code, init.err).toBe(0)
    expect(init.out).toMatch(/^Officer "Jo \(officer\)" registered \(the first officer of this workspace\)\.\nKey id: [0-9a-f]{4}( [0-9a-f]{4}){7}\n/)
    const declared = await cli(
      'datasets',
      'public',
      '--db',
      ws.db,
      '--dataset',
      'occupancy',
      '--reason',
      'synthetic test data',
      '--passphrase-file',
      'jo.pass',
      '--json'
    )
    expect(declared.code).toBe(0)
    expect(JSON.parse(declared.out).dataset.public).toBe(true)
    expect((await cli('datasets', 'public', '--db', ws.db, '--dataset', 'occupancy', '--reason', 'again', '--passphrase-file', 'jo.pass')).err).toBe(
      'quiet-alarm: Dataset "occupancy" is already public\n'
    )
    const rows = JSON.parse((await cli('datasets', 'rows', '--db', ws.db, '--dataset', 'occupancy', '--limit', '2', '--json')).out)
    expect(rows.rows).toEqual([
      ['r0', 'p0', '2015-01-01 00:00:00', 0],
      ['r1', 'p1', '2015-01-02 01:00:00', 1]
    ])
    expect((await cli('datasets', 'rename', '--db', ws.db, '--dataset', '1', '--name', 'occ')).code).toBe(0)
    writeFileSync(
      join(ws.dir, 'q.json'),
      JSON.stringify({
        dataset: 'occ',
        name: 'rooms over 30',
        definition: {
          kind: 'threshold',
          groupBy: ['room'],
          count: { kind: 'persons', personColumn: 'person', cap: 2 },
          threshold: { kind: 'constant', value: 30 },
          groups: [['r0'], ['r1']]
        }
      })
    )
    const saved = JSON.parse((await cli('query', 'save', '--db', ws.db, '--spec', 'q.json', '--json')).out)
    expect(saved.query).toMatchObject({ id: 1, datasetId: 1, name: 'rooms over 30', kind: 'threshold' })
    writeFileSync(
      join(ws.dir, 'bad-q.json'),
      JSON.stringify({ kind: 'anomaly-search', scoreColumn: 'room', tLow: 1, tHigh: 2, epsilonPerQuery: 0.1, budget: 1, oracle: 'rr' })
    )
    const bad = await cli('query', 'save', '--db', ws.db, '--spec', 'bad-q.json', '--dataset', 'occ', '--name', 'x')
    expect(bad.code).toBe(2)
    expect(bad.err).toBe('quiet-alarm: The score column "room" must hold numbers (it holds text)\n')
    expect(JSON.parse((await cli('query', 'list', '--db', ws.db, '--json')).out).queries).toHaveLength(1)
    expect((await cli('datasets', 'delete', '--db', ws.db, '--dataset', 'occ')).code).toBe(0)
    expect(JSON.parse((await cli('datasets', 'list', '--db', ws.db, '--json')).out).datasets).toEqual([])
    expect(JSON.parse((await cli('query', 'list', '--db', ws.db, '--json')).out).queries).toEqual([])
    // The deleted query stays in the table (hidden) for the history of releases.
    const store = openStore(ws.db)
    expect(store.db.prepare('SELECT count(*) n FROM queries WHERE deleted_at IS NOT NULL').get()).toEqual({ n: 1 })
    store.close()
  })

  it('the contract methods are reachable through the services dispatch', async () => {
    const services = createServices({ mode: 'headless', dbPath: join(ws.dir, 'svc.sqlite'), poolSize: 1 })
    try {
      expect(await services.dispatch('datasets/list', {})).toEqual({ ok: true, value: [] })
      expect(await services.dispatch('datasets/rows', { datasetId: 42 })).toEqual({
        ok: false,
        error: { message: 'There is no dataset 42 (it may have been deleted)', code: 'not-found' }
      })
      const { fileId } = services.context.files!.register(join(ws.dir, 'occ.tsv'))
      const r = await services.dispatch('datasets/import', { fileId, onBadRow: 'skip' })
      expect(r.ok).toBe(true)
      const info = await services.context.jobs.settled((r as { value: { jobId: string } }).value.jobId)
      expect(info?.state).toBe('done')
    } finally {
      await services.close()
    }
  })
})
