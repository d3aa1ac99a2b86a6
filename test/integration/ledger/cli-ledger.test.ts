import { afterEach, describe, expect, it } from 'vitest'
import { runCli } from '../cli-runner'
import { openStore } from '../../../src-main/services/store/store'
import { verifyLedger } from '../../../src-main/services/ledger/verify'
import { tempWorkspace } from '../helpers'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { DEMO_PASSPHRASE } from '../../../src-main/cli/commands/ledger-commands'

let cleanup: (() => void) | undefined
afterEach(() => cleanup?.())

const cli = (args: string[], cwd: string) => runCli(args, { cwd })

describe('CLI: demo, budget, ledger, release', () => {
  it('demo builds a workspace from the bundled sample, releases, and prints a verified ledger', async () => {
    const ws = tempWorkspace('qa-demo-')
    cleanup = ws.cleanup
    const r = await cli(['demo', '--db', ws.db], ws.dir)
    expect(r.code, r.err).toBe(0)
    expect(r.out).toMatch(/SYNTHETIC building-occupancy log/)
    expect(r.out).toMatch(/Imported: occupancy \(41175 rows/)
    expect(r.out).toMatch(/RELEASE \d+ +\[released: real data, secure noise, charged to the ledger\]/)
    expect(r.out).toMatch(/Anomaly search "Who is on site far too long\?"/)
    expect(r.out).toMatch(/Ledger verified: \d+ entries, hash chain intact/)
    // Refuses to overwrite without --force; replaces with it.
    const again = await cli(['demo', '--db', ws.db], ws.dir)
    expect(again.code).toBe(2)
    expect(again.err).toMatch(/already exists; pass --force/)
    const forced = await cli(['demo', '--db', ws.db, '--force', '--json'], ws.dir)
    expect(forced.code, forced.err).toBe(0)
    const json = JSON.parse(forced.out) as { verify: { ok: boolean }; releases: unknown[] }
    expect(json.verify.ok).toBe(true)
    expect(json.releases.length).toBeGreaterThanOrEqual(2)

    // budget: a reason is required; a raise is recorded.
    const noReason = await cli(['budget', '--db', ws.db, '--dataset', 'occupancy', '--epsilon', '9'], ws.dir)
    expect(noReason.code).toBe(2)
    expect(noReason.err).toMatch(/--reason is required/)
    const bad = await cli(['budget', '--db', ws.db, '--dataset', 'occupancy', '--epsilon', 'lots', '--reason', 'why not'], ws.dir)
    expect(bad.code).toBe(2)
    // A budget is an officer act: the demo officer's passphrase (printed by the demo) from a file.
    const pf = join(ws.dir, 'officer-passphrase.txt')
    writeFileSync(pf, `${DEMO_PASSPHRASE}\n`)
    const raised = await cli(
      [
        'budget',
        '--db',
        ws.db,
        '--dataset',
        'occupancy',
        '--epsilon',
        '9',
        '--notion',
        'eps-dp',
        '--reason',
        'second quarter',
        '--passphrase-file',
        pf
      ],
      ws.dir
    )
    expect(raised.code, raised.err).toBe(0)
    expect(raised.out).toMatch(
      /Budget of "occupancy" for eps-dp set to 9 \(ledger entry #\d+, signed by officer Privacy Officer \(demo\): "second quarter"\)/
    )
    // Every epsilon it prints by the one rounding rule: 6 significant digits, never the ledger's 9 decimals.
    const spentLine = /Spent per person \(summed over notions\): ([\d.e-]+) of 10/.exec(raised.out)
    expect(spentLine, raised.out).not.toBeNull()
    expect((raised.out.match(/\d+\.\d+/g) ?? []).filter((n) => n.replace(/^[0.]+/, '').replace('.', '').length > 6)).toEqual([])
    const checkpointed = await cli(['ledger', 'checkpoint', '--db', ws.db, '--passphrase-file', pf], ws.dir)
    expect(checkpointed.code, checkpointed.err).toBe(0)
    expect(checkpointed.out).toMatch(/^Checkpoint signed by officer "Privacy Officer \(demo\)": ledger entry \d+/)

    const ledger = await cli(['ledger', '--db', ws.db, '--dataset', 'occupancy'], ws.dir)
    expect(ledger.code, ledger.err).toBe(0)
    // eps-DP has its own budget 9 now; what it may still spend is bounded by the budget per person too.
    expect(ledger.out).toMatch(/eps-DP +0 +9 +\d/)
    expect(ledger.out).toMatch(/Dataset "occupancy" \(id 1\), unit: person-level \(person column "person_id"\)/)
    expect(ledger.out).toMatch(/Spent per person, summed over notions: [\d.]+; budget 10, remaining/)
    const j = JSON.parse((await cli(['ledger', '--db', ws.db, '--json'], ws.dir)).out) as { summary: { datasets: Array<Record<string, unknown>> } }
    const occ = j.summary.datasets.find((d) => d.datasetName === 'occupancy')!
    expect(occ).toMatchObject({ unit: 'person_id', budgetPerUnit: 10 })
    expect(occ.spentPerUnit).toBeCloseTo(
      (occ.accounts as Array<{ spent: number }>).reduce((a, b) => a + b.spent, 0),
      9
    )
    expect(j.summary.datasets.find((d) => d.datasetName === 'capacities')).toMatchObject({ unit: 'row' })
    const s = openStore(ws.db)
    expect(verifyLedger(s.db).ok).toBe(true)
    s.close()
  })
})
