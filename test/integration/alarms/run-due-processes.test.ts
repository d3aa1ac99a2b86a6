/**
 * `quiet-alarm alarm run-due` as real processes: two evaluators started at once on one workspace evaluate each period
 * exactly once between them (the failure it stops: a period charged twice, or skipped); a process killed in the middle
 * of a catch-up leaves every period either whole (charge, answer, record) or absent, and the next run finishes the rest.
 * Also the command's contract: --json, and bad input exits 2 with one line and nothing written.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { writeFileSync } from 'node:fs'
import type { Store } from '../../../src-main/services/store/store'
import { openStore } from '../../../src-main/services/store/store'
import { verifyLedger } from '../../../src-main/services/ledger/verify'
import type { tempWorkspace } from '../helpers'
import { closeLedgerWorkspace, openLedgerWorkspace } from '../ledger/fixtures'
import { TEST_OFFICER, officerAct, testPassphrase } from '../officer-fixture'
import { runCli } from '../cli-runner'
import { HOUR, START, plantStream } from './continual-fixture'

const CLI = join(__dirname, '..', '..', '..', 'src-main', 'cli.ts')

let ws: ReturnType<typeof tempWorkspace>
let store: Store

beforeEach(() => {
  ;({ ws, store } = openLedgerWorkspace('qa-alarm-proc-'))
})
afterEach(() => closeLedgerWorkspace(store, ws))

interface Run {
  done: Promise<{ code: number | null; out: string; err: string }>
  kill(): void
}

function startRunDue(now: string): Run {
  const p = spawn(process.execPath, ['--import', 'tsx', CLI, 'alarm', 'run-due', '--db', ws.db, '--now', now, '--json'], {
    cwd: process.cwd(),
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let out = ''
  let err = ''
  p.stdout.on('data', (d: Buffer) => (out += d.toString()))
  p.stderr.on('data', (d: Buffer) => (err += d.toString()))
  const done = new Promise<{ code: number | null; out: string; err: string }>((resolve, reject) => {
    p.on('error', reject)
    p.on('close', (code) => resolve({ code, out, err }))
  })
  return { done, kill: () => p.kill('SIGKILL') }
}

const runDue = (now: string) => startRunDue(now).done

async function createByCli(queryId: number, extra: string[] = []): Promise<number> {
  officerAct(store.db)
  const pass = join(ws.dir, 'pass.txt')
  writeFileSync(pass, `${testPassphrase(TEST_OFFICER)}\n`, { mode: 0o600 })
  const r = await runCli([
    'alarm',
    'create',
    '--db',
    ws.db,
    '--query',
    String(queryId),
    '--time-column',
    'at',
    '--period',
    'hour',
    '--start',
    new Date(START).toISOString(),
    '--beta',
    '0.05',
    '--alpha',
    '10',
    '--reason',
    'watch every hour',
    '--passphrase-file',
    pass,
    '--json',
    ...extra
  ])
  expect(r.err).toBe('')
  expect(r.code).toBe(0)
  return (JSON.parse(r.out) as { alarm: { alarmId: number } }).alarm.alarmId
}

const count = (sql: string, ...args: unknown[]) => (store.db.prepare(sql).get(...args) as { n: number }).n

describe('alarm run-due as processes', () => {
  it('two evaluators at once evaluate each of 40 periods exactly once between them', async () => {
    const s = plantStream(store.db, { hours: 40, rooms: 3, quiet: 1, high: 40, threshold: 20, over: (h, r) => (h + r) % 7 === 0 })
    const id = await createByCli(s.queryId)
    const now = new Date(START + 40 * HOUR).toISOString()
    const [a, b] = await Promise.all([runDue(now), runDue(now)])
    expect(a.code, a.err).toBe(0)
    expect(b.code, b.err).toBe(0)
    const ea = (JSON.parse(a.out) as { evaluated: Array<{ period: number }> }).evaluated.map((e) => e.period)
    const eb = (JSON.parse(b.out) as { evaluated: Array<{ period: number }> }).evaluated.map((e) => e.period)
    // Between them: every period once (neither evaluated a period the other did).
    expect([...ea, ...eb].sort((x, y) => x - y)).toEqual(Array.from({ length: 40 }, (_, i) => i))
    expect(count('SELECT COUNT(*) AS n FROM alarm_periods WHERE alarm_id = ?', id)).toBe(40)
    expect(count(`SELECT COUNT(*) AS n FROM ledger_entries WHERE kind = 'charge' AND json_extract(detail, '$.alarm.id') = ?`, id)).toBe(40)
    expect(count(`SELECT COUNT(DISTINCT json_extract(detail, '$.period')) AS n FROM ledger_entries WHERE kind = 'charge'`)).toBe(40)
    expect(verifyLedger(store.db).ok).toBe(true)
  })

  it('a process killed during a catch-up leaves whole periods only; the next run evaluates the rest once', async () => {
    const s = plantStream(store.db, { hours: 60, rooms: 2, quiet: 1, high: 40, threshold: 20, over: () => false })
    const id = await createByCli(s.queryId)
    const now = new Date(START + 60 * HOUR).toISOString()
    // Kill it as soon as it is running (the store opened): somewhere in the catch-up, or before it.
    const killed = startRunDue(now)
    const watcher = openStore(ws.db)
    try {
      for (let i = 0; i < 2000; i++) {
        const n = (watcher.db.prepare('SELECT COUNT(*) AS n FROM alarm_periods WHERE alarm_id = ?').get(id) as { n: number }).n
        if (n >= 5) break
        await new Promise((r) => setTimeout(r, 5))
      }
    } finally {
      watcher.close()
    }
    killed.kill()
    await killed.done
    const done = count('SELECT COUNT(*) AS n FROM alarm_periods WHERE alarm_id = ?', id)
    // Every recorded period has its charge; no charge without its record.
    expect(count(`SELECT COUNT(*) AS n FROM ledger_entries WHERE kind = 'charge' AND json_extract(detail, '$.alarm.id') = ?`, id)).toBe(done)
    const r = await runDue(now)
    expect(r.code, r.err).toBe(0)
    expect(count('SELECT COUNT(*) AS n FROM alarm_periods WHERE alarm_id = ?', id)).toBe(60)
    expect(count(`SELECT COUNT(*) AS n FROM ledger_entries WHERE kind = 'charge' AND json_extract(detail, '$.alarm.id') = ?`, id)).toBe(60)
    expect(verifyLedger(store.db).ok).toBe(true)
  })

  it('bad input exits 2 with one line and writes nothing', async () => {
    const s = plantStream(store.db, { hours: 2, rooms: 2, quiet: 1, high: 40, threshold: 20, over: () => false })
    const before = count('SELECT COUNT(*) AS n FROM ledger_entries')
    for (const [args, msg] of [
      [['--period', 'fortnight'], /--period must be one of hour, day, week/],
      [['--period', 'hour', '--grace', 'soon'], /--grace must be a duration/],
      [['--period', 'hour', '--start', 'yesterday'], /--start must be an ISO 8601 time/],
      [['--period', 'hour', '--mode', 'row-level', '--time-column', 'room'], /time column "room" holds text values/]
    ] as Array<[string[], RegExp]>) {
      const base = ['alarm', 'create', '--db', ws.db, '--query', String(s.queryId), '--time-column', 'at', '--start', '2026-01-01T00:00:00Z']
      const r = await runCli([...base, '--beta', '0.05', '--alpha', '10', '--reason', 'why not', ...args, '--json'], {
        env: { QUIET_ALARM_PASSPHRASE: testPassphrase(TEST_OFFICER) }
      })
      expect(r.code, r.err).toBe(2)
      expect(r.err.trim().split('\n')).toHaveLength(1)
      expect(r.err).toMatch(msg)
      expect(r.out).toBe('')
    }
    expect(count('SELECT COUNT(*) AS n FROM ledger_entries')).toBe(before)
    expect(count('SELECT COUNT(*) AS n FROM alarms')).toBe(0)
  })
})
