/**
 * Crash safety of imports: a child process importing a file is killed with SIGKILL at random points (seeded), 25
 * times, into one workspace. After each kill: integrity_check is ok, the catalog and the tables agree, every dataset
 * in the catalog is complete, and opening the workspace (openStore) drops the orphan staging tables.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import Database from 'better-sqlite3'
import { spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { listStagingTables } from '../../../src-main/services/store/staging'
import { openStore } from '../../../src-main/services/store/store'
import { seededRng } from '../../../src-worker/engine/random'
import { tempWorkspace } from '../helpers'

const RUNS = 25
const ROWS = 40_000
const child = join(__dirname, 'crash-import-child.ts')

let ws: ReturnType<typeof tempWorkspace>
let csv: string
beforeAll(() => {
  ws = tempWorkspace('qa-crash-import-')
  csv = join(ws.dir, 'rows.csv')
  const lines = ['id,room,at,v']
  for (let i = 0; i < ROWS; i++) lines.push(`${i},room ${i % 17},2015-01-${String(1 + (i % 28)).padStart(2, '0')} 10:00:00,${i * 0.25}`)
  writeFileSync(csv, lines.join('\n') + '\n')
})
afterAll(() => ws.cleanup())

/** Runs the child; kills it after `delayMs` from "ready", or once `afterRows` rows are committed. */
function runAndKill(name: string, plan: { delayMs?: number; afterRows?: number }): Promise<{ killed: boolean }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', child, ws.db, csv, name], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'pipe'] })
    let buf = ''
    let killed = false
    const kill = () => {
      if (!killed && p.exitCode === null) {
        killed = true
        p.kill('SIGKILL')
      }
    }
    p.stdout.on('data', (d: Buffer) => {
      buf += d.toString()
      let i: number
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i)
        buf = buf.slice(i + 1)
        if (line === 'ready' && plan.delayMs !== undefined) setTimeout(kill, plan.delayMs)
        const m = /^batch (\d+)$/.exec(line)
        if (m && plan.afterRows !== undefined && Number(m[1]) >= plan.afterRows) kill()
      }
    })
    let err = ''
    p.stderr.on('data', (d: Buffer) => (err += d.toString()))
    p.on('error', reject)
    p.on('exit', (code, signal) => {
      if (signal === 'SIGKILL') resolve({ killed: true })
      else if (code === 0) resolve({ killed: false })
      else reject(new Error(`child failed (${code}): ${err.slice(0, 500)}`))
    })
  })
}

describe('import crash safety', () => {
  it(`SIGKILL at ${RUNS} random points leaves either a complete dataset or nothing`, { timeout: 600_000 }, async () => {
    const rng = seededRng('crash-import')
    let killedMidway = 0
    let completed = 0
    let orphansSeen = 0
    for (let run = 0; run < RUNS; run++) {
      const name = `run ${run}`
      // Half the runs: a random delay (covers startup, parsing, batches and the final commit); half: a random batch.
      const plan = run % 2 === 0 ? { delayMs: Math.floor(rng.next() * 1200) } : { afterRows: 5000 * (1 + Math.floor(rng.next() * 8)) }
      const r = await runAndKill(name, plan)

      // What the kill left, seen without the store (which drops orphans as it opens).
      const rawDb = new Database(ws.db)
      orphansSeen += listStagingTables(rawDb).length
      rawDb.close()
      const store = openStore(ws.db)
      try {
        const db = store.db
        expect(db.pragma('integrity_check', { simple: true })).toBe('ok')
        expect(listStagingTables(db)).toEqual([])
        const datasets = db.prepare('SELECT id, name, table_name, row_count FROM datasets ORDER BY id').all() as Array<{
          id: number
          name: string
          table_name: string
          row_count: number
        }>
        const tables = (
          db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'ds\\_%' ESCAPE '\\'").all() as Array<{ name: string }>
        )
          .map((t) => t.name)
          .sort()
        expect(datasets.map((d) => d.table_name).sort()).toEqual(tables)
        for (const d of datasets) {
          expect(d.table_name).toBe(`ds_${d.id}`)
          expect(d.row_count).toBe(ROWS)
          expect(db.prepare(`SELECT count(*) n, max(c1) mx FROM "${d.table_name}"`).get() as { n: number; mx: number }).toEqual({
            n: ROWS,
            mx: ROWS - 1
          })
          expect((db.prepare('SELECT count(*) n FROM dataset_columns WHERE dataset_id = ?').get(d.id) as { n: number }).n).toBe(4)
        }
        const mine = datasets.find((d) => d.name === name)
        if (r.killed && !mine) killedMidway++
        if (mine) completed++
        if (!r.killed) expect(mine).toBeDefined()
      } finally {
        store.close()
      }
    }
    // The kills really interrupted imports (otherwise this would test nothing).
    expect(killedMidway).toBeGreaterThanOrEqual(10)
    expect(orphansSeen).toBeGreaterThanOrEqual(5)
    console.log(`import crash test: ${killedMidway} imports killed midway, ${completed} complete, ${orphansSeen} orphan staging tables dropped`)
  })
})
