import { describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { join, resolve } from 'node:path'
import { LATEST_SCHEMA_VERSION } from '../../src-main/services/store/migrations'
import { openStore } from '../../src-main/services/store/store'
import { tempWorkspace } from './helpers'
import { runCli } from './cli-runner'

const ROOT = resolve(__dirname, '..', '..')

const runInProcess = (argv: string[]) => runCli(argv, { cwd: ROOT }).then((r) => ({ code: r.code, stdout: r.out, stderr: r.err }))

describe('CLI conventions', () => {
  it('a real process: bad input exits 2 with exactly one stderr line and nothing on stdout', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src-main/cli.ts'), 'status', '--nope'], { encoding: 'utf8', cwd: ROOT })
    expect(r.status).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1)
    expect(r.stderr).toMatch(/^quiet-alarm: "status" has no option --nope/)
  })

  it('--help lists every command; unknown commands are bad input', async () => {
    const help = await runInProcess(['--help'])
    expect(help.code).toBe(0)
    for (const c of [
      'status',
      'minent',
      'threshold',
      'noise',
      'aiq',
      'search',
      'import',
      'datasets',
      'release',
      'ledger',
      'budget',
      'demo',
      'sweep',
      'report'
    ]) {
      expect(help.stdout).toMatch(new RegExp(`^  ${c}\\b`, 'm'))
    }
    const bad = await runInProcess(['frobnicate'])
    expect(bad).toEqual({ code: 2, stdout: '', stderr: 'quiet-alarm: unknown command "frobnicate"; run "quiet-alarm --help" for the list\n' })
  })

  it('status --json prints exactly one JSON object, and refuses a path with no workspace', async () => {
    const ws = tempWorkspace()
    try {
      const missing = await runInProcess(['status', '--db', ws.db, '--json'])
      expect(missing).toEqual({
        code: 2,
        stdout: '',
        stderr: `quiet-alarm: There is no workspace at ${ws.db}; check --db, or create one with "quiet-alarm officer init --db ${ws.db} --name NAME" (the first privacy officer)\n`
      })
      openStore(ws.db).close()
      const r = await runInProcess(['status', '--db', ws.db, '--json'])
      expect(r.code).toBe(0)
      expect(r.stdout.trimEnd().split('\n')).toHaveLength(1)
      expect(JSON.parse(r.stdout)).toMatchObject({
        databasePath: ws.db,
        schemaVersion: LATEST_SCHEMA_VERSION,
        latestSchemaVersion: LATEST_SCHEMA_VERSION
      })
    } finally {
      ws.cleanup()
    }
  })

  it('a workspace from a newer version is bad input with one clear line', async () => {
    const ws = tempWorkspace()
    try {
      openStore(ws.db).close()
      const Database = (await import('better-sqlite3')).default
      const raw = new Database(ws.db)
      raw.prepare("INSERT INTO schema_migrations (version, name) VALUES (9999, 'future')").run()
      raw.close()
      const r = await runInProcess(['status', '--db', ws.db, '--json'])
      expect(r.code).toBe(2)
      expect(r.stdout).toBe('')
      expect(r.stderr).toMatch(/^quiet-alarm: This workspace was written by a newer version of Quiet Alarm \(schema 9999;[^\n]*\n$/)
    } finally {
      ws.cleanup()
    }
  })
})
