import { describe, expect, it } from 'vitest'
import { spawn } from 'node:child_process'
import Database from 'better-sqlite3'
import { openStore } from '../../../src-main/services/store/store'
import { setBudget } from '../../../src-main/services/ledger/budgets'
import { verifyLedger } from '../../../src-main/services/ledger/verify'
import { listReleases } from '../../../src-main/services/releases/release-service'
import { seededRng } from '../../../src-worker/engine/random'
import { tempWorkspace } from '../helpers'
import { craftDataset, saveQuery } from './fixtures'
import { officerAct } from '../officer-fixture'

const KILLS = 30

function runChildUntilKilled(db: string, aiq: number, search: number, threshold: number, delayMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'test/integration/ledger/crash-child.ts', db, String(aiq), String(search), String(threshold)],
      {
        cwd: process.cwd(),
        stdio: ['ignore', 'pipe', 'pipe']
      }
    )
    let err = ''
    let timer: NodeJS.Timeout | undefined
    child.stderr.on('data', (d) => (err += String(d)))
    child.stdout.on('data', (d) => {
      if (String(d).includes('ready') && timer === undefined) timer = setTimeout(() => child.kill('SIGKILL'), delayMs)
    })
    child.on('exit', (code, signal) => {
      if (signal === 'SIGKILL') resolve()
      else reject(new Error(`child exited by itself (code ${code}): ${err.slice(0, 500)}`))
    })
  })
}

describe('crash safety of releases', () => {
  it(
    `survives ${KILLS} SIGKILLs at random points: integrity ok, no answer without its charge, the chain verifies`,
    { timeout: 400_000 },
    async () => {
      const ws = tempWorkspace('qa-crash-')
      try {
        const store = openStore(ws.db)
        const rows: Array<[string, number]> = []
        for (let i = 0; i < 300; i++) rows.push([`s${i % 7}`, i % 24])
        const ds = craftDataset(
          store.db,
          'log',
          [
            { name: 'site', type: 'text' },
            { name: 'hour', type: 'integer' }
          ],
          rows
        )
        const aiq = saveQuery(store.db, ds, 'q', {
          kind: 'anomaly-identification',
          columns: ['site', 'hour'],
          binWidths: [null, 1],
          metric: 'l1',
          radius: 1,
          maxNeighbours: 3,
          k: 1,
          records: [
            ['s1', 1],
            ['s2', 5]
          ]
        })
        const scores: Array<[string, number]> = []
        for (let i = 0; i < 200; i++) scores.push([`p${i}`, 10 + (i % 40)])
        scores.push(['odd', 500])
        const sds = craftDataset(
          store.db,
          'scores',
          [
            { name: 'who', type: 'text' },
            { name: 'score', type: 'real' }
          ],
          scores
        )
        const search = saveQuery(store.db, sds, 's', {
          kind: 'anomaly-search',
          scoreColumn: 'score',
          idColumn: 'who',
          individuals: scores.map((s) => s[0]),
          tLow: 50,
          tHigh: 400,
          // 20 questions; at least 7 can decide among 201 down to 2 (a budget that cannot is refused before the charge).
          epsilonPerQuery: 1,
          budget: 20,
          oracle: 'direct',
          top: 2
        })
        const threshold = saveQuery(store.db, ds, 't', {
          kind: 'threshold',
          groupBy: ['site'],
          count: { kind: 'rows' },
          threshold: { kind: 'constant', value: 40 },
          groups: [['s1'], ['s2']]
        })
        for (const d of [ds, sds]) setBudget(store.db, { datasetId: d, epsilon: '1000000', reason: 'crash test', ...officerAct(store.db, 'test') })
        store.close()

        const rng = seededRng('crash-kill-points')
        let interrupted = 0
        let answered = 0
        for (let k = 0; k < KILLS; k++) {
          await runChildUntilKilled(ws.db, aiq, search, threshold, 5 + Math.floor(rng.next() * 400))
          const raw = new Database(ws.db)
          expect(raw.pragma('integrity_check', { simple: true })).toBe('ok')
          // No answer without its charge: every release (answered or not) has its ledger entry with the same amount.
          const orphans = raw
            .prepare(
              `SELECT count(*) n FROM releases r LEFT JOIN ledger_entries e ON e.release_id = r.id WHERE e.seq IS NULL OR e.amount_nano <> r.charge_nano`
            )
            .get() as { n: number }
          expect(orphans.n).toBe(0)
          const answersWithoutCharge = raw
            .prepare(
              `SELECT count(*) n FROM releases r WHERE r.answer IS NOT NULL AND NOT EXISTS (SELECT 1 FROM ledger_entries e WHERE e.release_id = r.id)`
            )
            .get() as { n: number }
          expect(answersWithoutCharge.n).toBe(0)
          const v = verifyLedger(raw)
          expect(v.firstBroken).toBeNull()
          raw.close()
        }
        const after = openStore(ws.db)
        for (const r of listReleases(after.db)) {
          if (r.status === 'interrupted') {
            interrupted++
            expect(r.statusText).toBe('charged, no answer: interrupted')
            expect(r.answer).toBeNull()
          } else if (r.status === 'answered') answered++
        }
        after.close()
        expect(answered).toBeGreaterThan(0)
        // Kills land between charge and answer often enough to see the interrupted state (not asserted: timing-dependent).
        console.log(`crash test: ${KILLS} kills, ${answered} answered, ${interrupted} interrupted releases`)
      } finally {
        ws.cleanup()
      }
    }
  )
})
