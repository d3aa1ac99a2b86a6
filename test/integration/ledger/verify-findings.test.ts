/**
 * What `ledger verify` and a denial record say, read by an auditor: a break in the audit log is reported after the last
 * entry, never as an entry the ledger does not have; a denial by a notion's own cap records that cap (and says it is
 * one), not the budget per unit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { writeFileSync, readFileSync } from 'node:fs'
import { main } from '../../../src-main/cli'
import { DEMO_PASSPHRASE } from '../../../src-main/cli/commands/ledger-commands'
import { setBudget } from '../../../src-main/services/ledger/budgets'
import { verifyLedger } from '../../../src-main/services/ledger/verify'
import { isUserError } from '../../../src-main/services/platform/errors'
import { runRelease } from '../../../src-main/services/releases/release-service'
import { openStore } from '../../../src-main/services/store/store'
import { tempWorkspace } from '../helpers'

const ws = tempWorkspace('qa-verify-findings-')
let demo: Buffer
beforeAll(async () => {
  const io = { stdout: { write: () => true }, stderr: { write: () => true }, cwd: ws.dir }
  expect(await main(['demo', '--db', ws.db, '--without-stream'], io as never)).toBe(0)
  const s = openStore(ws.db)
  s.db.pragma('wal_checkpoint(TRUNCATE)')
  s.close()
  demo = readFileSync(ws.db)
}, 120_000)
afterAll(() => ws.cleanup())

function copy(name: string): string {
  const p = `${ws.dir}/${name}.sqlite`
  writeFileSync(p, demo)
  return p
}

describe('ledger verify names where a break is', () => {
  it('an audit-log break on a 6-entry ledger: "FAILED after the last entry (6)", never "at entry 7"', () => {
    const s = openStore(copy('audit-break'))
    try {
      s.db.exec('DROP TRIGGER audit_events_no_delete')
      s.db.exec(`DELETE FROM audit_events WHERE id = (SELECT min(id) FROM audit_events WHERE kind = 'release/sealed-costs')`)
      const v = verifyLedger(s.db)
      expect(v.entries).toBe(6)
      expect(v.ok).toBe(false)
      expect(v.message).toMatch(/^Ledger verification FAILED after the last entry \(6\): audit event \d+ does not follow the event before it/)
      expect(v.message).not.toMatch(/entry 7/)
      expect(v.firstBroken).toMatchObject({ seq: 7, afterLastEntry: true })
    } finally {
      s.close()
    }
  })

  it('a broken entry is still named by its seq', () => {
    const s = openStore(copy('entry-break'))
    try {
      s.db.exec('DROP TRIGGER ledger_entries_no_update')
      s.db.exec("UPDATE ledger_entries SET description = 'x' WHERE seq = 5")
      const v = verifyLedger(s.db)
      expect(v.message).toMatch(/^Ledger verification FAILED at entry 5: /)
      expect(v.firstBroken).toEqual({ seq: 5, reason: expect.any(String) })
    } finally {
      s.close()
    }
  })
})

describe('a denial records the budget that denied it', () => {
  it('a notion cap that binds is recorded as that cap (budget "3.5", budgetKind notion-cap), not the budget per unit ("10")', () => {
    const s = openStore(copy('cap-denial'))
    try {
      // occupancy: budget per person 10, spent 5.30; a cap of 3.5 on (eps,k)-sensitive privacy, which has spent 3.
      setBudget(s.db, { datasetId: 1, notion: 'eps-k-sensitive', epsilon: '3.5', reason: 'a tight cap', passphrase: DEMO_PASSPHRASE })
      let denied = false
      try {
        runRelease(s.db, { queryId: 2, params: { kind: 'anomaly-identification', mechanism: 'sp', epsilon: 1 }, actor: 'analyst' })
      } catch (e) {
        if (!isUserError(e)) throw e
        denied = true
        expect(e.message).toMatch(/of the 3\.5 \(eps,k\)-sensitive privacy budget/)
      }
      expect(denied).toBe(true)
      const d = JSON.parse(s.db.prepare(`SELECT detail FROM audit_events WHERE kind = 'release/denied' ORDER BY id DESC`).pluck().get() as string)
      expect(d).toMatchObject({ budget: '3.5', budgetKind: 'notion-cap', requested: '3', remaining: '0.5', notion: 'eps-k-sensitive' })
    } finally {
      s.close()
    }
  })

  it('a budget per unit that binds is recorded as that budget, with budgetKind per-unit', () => {
    const s = openStore(copy('unit-denial'))
    try {
      let denied = false
      try {
        runRelease(s.db, { queryId: 3, params: { kind: 'anomaly-search' }, actor: 'analyst' })
      } catch (e) {
        if (!isUserError(e)) throw e
        denied = true
      }
      expect(denied).toBe(true)
      const d = JSON.parse(s.db.prepare(`SELECT detail FROM audit_events WHERE kind = 'release/denied' ORDER BY id DESC`).pluck().get() as string)
      expect(d).toMatchObject({ budget: '40', budgetKind: 'per-unit', requested: '30', remaining: '10' })
    } finally {
      s.close()
    }
  })
})

describe('no budget reads the same in ledger --json and in the report', () => {
  it('a dataset without a budget: budgetPerUnit 0 and budgetPerUnitExact null in ledger --json, null in the report', async () => {
    const db = copy('no-budget')
    let out = ''
    const io = { stdout: { write: (t: string) => ((out += t), true) }, stderr: { write: () => true }, cwd: ws.dir }
    expect(await main(['ledger', '--db', db, '--json'], io as never)).toBe(0)
    const ledger = JSON.parse(out) as {
      summary: { datasets: Array<{ datasetName: string; budgetPerUnit: number; budgetPerUnitExact: string | null; budgetPerUnitSource: string }> }
    }
    expect(ledger.summary.datasets.find((d) => d.datasetName === 'capacities')).toMatchObject({
      budgetPerUnit: 0,
      budgetPerUnitExact: null,
      budgetPerUnitSource: 'none'
    })
    const file = `${ws.dir}/no-budget-report.json`
    expect(await main(['report', '--db', db, '--format', 'json', '--out', file], io as never)).toBe(0)
    const report = JSON.parse(readFileSync(file, 'utf8')) as { datasets: Array<{ datasetName: string; budgetPerUnitExact: string | null }> }
    expect(report.datasets.find((d) => d.datasetName === 'capacities')?.budgetPerUnitExact).toBeNull()
    expect(ledger.summary.datasets.find((d) => d.datasetName === 'occupancy')?.budgetPerUnitExact).toBe('10')
  })
})
