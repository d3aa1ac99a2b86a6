/**
 * The command line meets a person halfway: a typo gets a suggestion, every missing option is named at once, `query save
 * --help` shows a query file that works, numbers are read in any ordinary notation, and the demo says how to open it in
 * the app.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { QUERY_SAVE_EXAMPLE } from '../../src-main/cli/commands/dataset-commands'
import { DEMO_PASSPHRASE } from '../../src-main/cli/commands/ledger-commands'
import { closest } from '../../src-main/cli/suggest'
import { runCli } from './cli-runner'

const ROOT = resolve(__dirname, '..', '..')

const cli = (args: string[], opts: { cwd?: string; env?: Record<string, string> } = {}) => runCli(args, { cwd: ROOT, ...opts })

let dir: string
let db: string
let demoOut: string

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'qa-cli-friction-'))
  db = join(dir, 'demo workspace.sqlite')
  const r = await cli(['demo', '--db', db], { cwd: dir })
  expect(r.code).toBe(0)
  demoOut = r.out
}, 120_000)

afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('did you mean', () => {
  it('suggests the command for a typo, and says where the list is otherwise', async () => {
    expect(await cli(['relase'])).toEqual({ code: 2, out: '', err: 'quiet-alarm: unknown command "relase"; did you mean "release"?\n' })
    expect((await cli(['ledgr'])).err).toBe('quiet-alarm: unknown command "ledgr"; did you mean "ledger"?\n')
    expect((await cli(['frobnicate'])).err).toBe('quiet-alarm: unknown command "frobnicate"; run "quiet-alarm --help" for the list\n')
  })

  it('suggests the option for a typo (before anything is read or written)', async () => {
    const r = await cli(['release', '--db', db, '--query', '1', '--bta', '0.05', '--alpha', '1'])
    expect(r).toEqual({ code: 2, out: '', err: 'quiet-alarm: "release" has no option --bta; did you mean --beta?\n' })
    expect((await cli(['budget', '--datset', 'x'])).err).toBe('quiet-alarm: "budget" has no option --datset; did you mean --dataset?\n')
    expect((await cli(['ledger', '--hed=abc'])).err).toBe('quiet-alarm: "ledger" has no option --hed; did you mean --head?\n')
    expect((await cli(['status', '--nope'])).err).toBe(
      'quiet-alarm: "status" has no option --nope; run "quiet-alarm status --help" for its options\n'
    )
  })

  it('suggests the sub-command for a typo', async () => {
    const r = await cli(['ledger', 'verfy', '--db', db])
    expect(r.err).toBe('quiet-alarm: "ledger" takes one of: verify, unlock, checkpoint, export (got "verfy"); did you mean "verify"?\n')
  })

  it('closest: a swap of two letters is one edit; words far apart get no suggestion', () => {
    expect(closest('relaese', ['release', 'ledger'])).toBe('release')
    expect(closest('xyz', ['release', 'ledger'])).toBeNull()
    expect(closest('pass', ['passphrase-file', 'officer'])).toBe('passphrase-file')
  })
})

describe('missing options are named in one line', () => {
  it('release of a threshold query names --beta and --alpha together', async () => {
    const r = await cli(['release', '--db', db, '--query', '1'])
    expect(r).toEqual({ code: 2, out: '', err: 'quiet-alarm: --beta and --alpha are required for a threshold release\n' })
  })

  it('each command names all its missing options before it runs', async () => {
    expect((await cli(['threshold'])).err).toBe(
      'quiet-alarm: --workload, --mechanism, --alpha and --beta are required; see "quiet-alarm threshold --help"\n'
    )
    expect((await cli(['threshold', '--alpha', '1'])).err).toBe(
      'quiet-alarm: --workload, --mechanism and --beta are required; see "quiet-alarm threshold --help"\n'
    )
    expect((await cli(['budget', '--db', db])).err).toBe(
      'quiet-alarm: --dataset, --epsilon and --reason are required; see "quiet-alarm budget --help"\n'
    )
    expect((await cli(['budget', '--db', db, '--freeze'])).err).toBe(
      'quiet-alarm: --dataset and --reason are required; see "quiet-alarm budget --help"\n'
    )
    expect((await cli(['report', '--db', db])).err).toBe('quiet-alarm: --format and --out are required; see "quiet-alarm report --help"\n')
    expect((await cli(['ledger', 'unlock', '--db', db])).err).toBe(
      'quiet-alarm: --release and --reason are required; see "quiet-alarm ledger --help"\n'
    )
    expect((await cli(['search', '--nab-preset', 'x.csv'])).err).toBe(
      'quiet-alarm: --epsilon and --oracle are required; see "quiet-alarm search --help"\n'
    )
    // Nothing missing: no complaint (help and plain listing still work).
    expect((await cli(['ledger', '--db', db])).code).toBe(0)
  })
})

describe('query save --help', () => {
  it('shows a minimal query file and the schema it follows, and that file saves as shown', async () => {
    const help = await cli(['query', 'save', '--help'])
    expect(help.code).toBe(0)
    const schema = join(ROOT, 'resources', 'schemas', 'query.schema.json')
    expect(help.out).toContain(schema)
    expect(help.out).toContain('quiet-alarm query save --db quiet-alarm-demo.sqlite --spec rooms.json')
    // The example is printed as JSON that parses back to the exported one.
    const start = help.out.indexOf('  {')
    const end = help.out.indexOf('\n  }\n', start) + 4
    expect(JSON.parse(help.out.slice(start, end))).toEqual(QUERY_SAVE_EXAMPLE)
    // Without "save", the notes are not shown.
    expect((await cli(['query', '--help'])).out).not.toContain('query.schema.json')
    // And it saves on the demo workspace as it is.
    const file = join(dir, 'rooms.json')
    writeFileSync(file, JSON.stringify(QUERY_SAVE_EXAMPLE))
    const saved = await cli(['query', 'save', '--db', db, '--spec', file, '--json'])
    expect(saved.err).toBe('')
    expect(JSON.parse(saved.out).query).toMatchObject({ name: QUERY_SAVE_EXAMPLE.name, kind: 'threshold' })
  })
})

describe('numbers in any ordinary notation', () => {
  it('a budget of 1e3, 1E3, +2000 or 3000.0 is read exactly', async () => {
    const env = { QUIET_ALARM_PASSPHRASE: DEMO_PASSPHRASE }
    for (const [typed, exact] of [
      ['1e3', '1000'],
      ['1E3', '1000'],
      ['+2000', '2000'],
      ['3000.0', '3000'],
      ['4000.', '4000']
    ]) {
      const r = await cli(['budget', '--db', db, '--dataset', 'occupancy', '--epsilon', typed, '--reason', 'raise for the audit', '--json'], { env })
      expect(r.err, typed).toBe('')
      expect(JSON.parse(r.out).entry.epsilonExact, typed).toBe(exact)
    }
    const bad = await cli(['budget', '--db', db, '--dataset', 'occupancy', '--epsilon', '1,000', '--reason', 'x y z'], { env })
    expect(bad.err).toBe('quiet-alarm: --epsilon must be a number of 0 or more, such as 2.5, 10000000.0 or 1e3 (got "1,000")\n')
  })

  it('release parameters too: --beta 5e-2 --alpha 1.0 preview a threshold release', async () => {
    const r = await cli(['release', '--db', db, '--query', '1', '--preview', '--beta', '5e-2', '--alpha', '1.0', '--json'])
    expect(r.err).toBe('')
    expect(JSON.parse(r.out).preview).toBeTruthy()
  })
})

describe('the demo', () => {
  it('ends with the command that opens it in the app (quoted for the shell)', () => {
    const lines = demoOut.trimEnd().split('\n')
    expect(lines[lines.length - 1]).toBe(`  cd ${ROOT} && npm run serve -- --db '${db}'`)
    expect(lines[lines.length - 2]).toMatch(/^Open it in the app/)
  })
})
