/**
 * `ledger export --auditor F`: an officer act that hands an auditor the ledger without the workspace. The export holds
 * no dataset rows, no wrapped private keys and no sealed costs (searched for in its bytes); it is signed by the officer
 * with a checkpoint covering every record in it; and the Python verifier (sharing no code with the product) accepts
 * it, recomputing the spend per dataset and every charge from its mechanism record, and refuses it once changed.
 */
import { spawnSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEMO_PASSPHRASE } from '../../../src-main/cli/commands/ledger-commands'
import type { AuditorExport } from '../../../src-main/contract/ledger-records'
import { unlockExPost } from '../../../src-main/services/releases/release-service'
import { openStore } from '../../../src-main/services/store/store'
import { verifyLedger } from '../../../src-main/services/ledger/verify'
import { tempWorkspace } from '../helpers'
import { runCli } from '../cli-runner'

const VERIFY_PY = join(__dirname, '..', '..', '..', 'resources', 'verifier', 'verify.py')

const cli = (args: string[], cwd: string, env: Record<string, string> = {}) => runCli(args, { cwd, env })

function py(file: string) {
  const r = spawnSync('python3', [VERIFY_PY, file, '--json'], { encoding: 'utf8' })
  if (r.status === 2) throw new Error(r.stderr)
  return {
    status: r.status,
    result: JSON.parse(r.stdout) as {
      ok: boolean
      verdict: string
      export?: { ok: boolean; problems: Array<{ rule: string }>; chargesNotRecomputed: number[] }
    }
  }
}

const ws = tempWorkspace('qa-auditor-')
const file = join(ws.dir, 'auditor.json')
const ROW_TOKENS = ['rowsecret-7919-alpha', 'rowsecret-104729-beta', 'rowsecret-1299709-gamma']
let bytes: string
let doc: AuditorExport
/** Secrets of the workspace that must never reach the export. */
const secrets: string[] = []

beforeAll(async () => {
  expect((await cli(['demo', '--db', ws.db], ws.dir)).code).toBe(0)
  // A dataset whose rows hold tokens found nowhere else.
  const csv = join(ws.dir, 'secret.csv')
  writeFileSync(csv, 'who,score\n' + ROW_TOKENS.map((t, i) => `${t},${(i + 1) * 1000003}`).join('\n') + '\n')
  const imp = await cli(['import', '--db', ws.db, '--file', csv, '--name', 'secret-rows', '--row-level'], ws.dir)
  expect(imp.code, imp.err).toBe(0)
  const s = openStore(ws.db)
  try {
    for (const o of s.db.prepare('SELECT wrapped FROM officers').all() as Array<{ wrapped: string }>) {
      const w = JSON.parse(o.wrapped) as { aead: { iv: string; tag: string; data: string } }
      secrets.push(w.aead.data, w.aead.tag, w.aead.iv)
    }
    for (const r of s.db.prepare('SELECT sealed FROM release_ex_post').all() as Array<{ sealed: string }>) {
      const sealed = JSON.parse(r.sealed) as { iv?: string; tag?: string; data?: string; recipients?: Array<{ epk: string; key: string }> }
      for (const x of [sealed.data, sealed.tag, sealed.iv, ...(sealed.recipients ?? []).flatMap((q) => [q.epk, q.key])]) if (x) secrets.push(x)
    }
    // What an unlock shows the officer (the sealed plaintext): its exact figures.
    const ex = unlockExPost(s.db, { releaseId: 1, reason: 'what the export must not hold', passphrase: DEMO_PASSPHRASE })
    secrets.push(`"spentMax":${ex.spentMax}`, `"spentMax": ${ex.spentMax}`)
  } finally {
    s.close()
  }
  const r = await cli(['ledger', 'export', '--db', ws.db, '--auditor', file, '--json'], ws.dir, { QUIET_ALARM_PASSPHRASE: DEMO_PASSPHRASE })
  expect(r.code, r.err).toBe(0)
  bytes = readFileSync(file, 'utf8')
  doc = JSON.parse(bytes) as AuditorExport
}, 120_000)
afterAll(() => ws.cleanup())

describe('ledger export --auditor', () => {
  it('holds no dataset rows, no wrapped keys, no sealed costs or what an unlock shows', () => {
    expect(secrets.length).toBeGreaterThan(6)
    for (const t of [...ROW_TOKENS, ...secrets]) expect(bytes, t).not.toContain(t)
    expect(bytes).not.toContain('"wrapped":')
    expect(bytes).not.toContain('"sealed":')
  })

  it('carries the ledger, audit events, public keys, checkpoints, spend per dataset and one mechanism record per charge', () => {
    const s = openStore(ws.db)
    try {
      const count = (sql: string) => (s.db.prepare(sql).get() as { n: number }).n
      expect(doc.records.entries).toHaveLength(count('SELECT count(*) AS n FROM ledger_entries'))
      expect(doc.records.auditEvents).toHaveLength(count('SELECT count(*) AS n FROM audit_events'))
      expect(doc.records.checkpoints).toHaveLength(count('SELECT count(*) AS n FROM ledger_checkpoints'))
      expect(doc.records.officers.map((o) => o.signPublic)).toEqual(
        (s.db.prepare('SELECT sign_public FROM officers').pluck().all() as string[]).sort()
      )
      expect(verifyLedger(s.db).ok).toBe(true)
    } finally {
      s.close()
    }
    expect(doc.mechanisms.map((m) => m.kind).sort()).toEqual([
      'alarm-period',
      'alarm-period',
      'anomaly-identification',
      'anomaly-search',
      'threshold'
    ])
    const threshold = doc.mechanisms.find((m) => m.kind === 'threshold')!
    expect(threshold).toMatchObject({ mechanism: 'tslm', notion: 'predicate-wise-dp', sensitivity: 1 })
    expect(threshold.predicates).toBeGreaterThan(0)
    expect(doc.spend.find((d) => d.datasetName === 'occupancy')).toMatchObject({
      unit: 'person_id',
      budgetPerUnitNano: 10e9,
      budgetPerUnitSource: 'per-unit'
    })
    // The export is an officer act: signed event, checkpoint covering every record.
    expect(doc.records.auditEvents.at(-1)).toMatchObject({ kind: 'officer/auditor-export', signer: doc.signature.keyId })
    expect(doc.checkpoint).toMatchObject({ ledgerSeq: doc.records.entries.at(-1)!.seq, auditId: doc.records.auditEvents.at(-1)!.id })
  })

  it('the Python verifier accepts it: signature, checkpoint, spend, and every charge recomputed from its mechanism', () => {
    const r = py(file)
    // The demo's watched stream charges alarm instances, whose formula the spec does not give yet: named, not recomputed.
    const alarmCharges = (JSON.parse(readFileSync(file, 'utf8')) as { mechanisms: Array<{ seq: number; kind: string }> }).mechanisms
      .filter((m) => m.kind === 'alarm-period')
      .map((m) => m.seq)
    expect(alarmCharges.length).toBeGreaterThan(0)
    expect(r.result.export).toEqual(expect.objectContaining({ ok: true, problems: [], chargesNotRecomputed: alarmCharges }))
    expect(r.result.verdict).toBe('ok')
    expect(r.status).toBe(0)
  })

  it('the Python verifier refuses it once changed: a halved charge in a mechanism record, a spend lowered, a record edited', () => {
    const changed = (name: string, f: (d: AuditorExport) => void) => {
      const d = JSON.parse(bytes) as AuditorExport
      f(d)
      const p = join(ws.dir, `${name}.json`)
      writeFileSync(p, JSON.stringify(d))
      return py(p)
    }
    const halved = changed('halved', (d) => {
      d.mechanisms[0].amountNano = Math.floor(d.mechanisms[0].amountNano / 2)
    })
    expect(halved.status).toBe(3)
    expect(halved.result.export!.problems.map((p) => p.rule)).toContain('X1')
    const lowered = changed('lowered', (d) => {
      d.spend[0].spentPerUnitNano = 0
    })
    expect(lowered.result.export!.problems.map((p) => p.rule)).toEqual(expect.arrayContaining(['X1', 'X3']))
    const edited = changed('edited', (d) => {
      d.records.entries[3].description = 'nothing happened'
    })
    expect(edited.result.verdict).toBe('failed')
    // A charge whose mechanism does not cost what was charged, with the export re-signed by nobody: refused on both counts.
    const cheap = changed('cheap', (d) => {
      const m = d.mechanisms.find((x) => x.kind === 'anomaly-search')!
      m.params = { ...m.params, maxQueries: 1 }
    })
    expect(cheap.result.export!.problems.map((p) => p.rule)).toEqual(expect.arrayContaining(['X1', 'X4']))
    // A charge below what its mechanism costs (entry and record agreeing): the recomputation refuses it.
    const under = changed('under', (d) => {
      const m = d.mechanisms.find((x) => x.kind === 'threshold')!
      m.amountNano -= 1000
      d.records.entries.find((e) => e.seq === m.seq)!.amountNano = m.amountNano
    })
    expect(under.result.export!.problems.map((p) => p.rule)).toContain('M1')
  })

  it('is refused without the officer passphrase, and --auditor goes with export only (exit 2, nothing written)', async () => {
    const other = join(ws.dir, 'other.json')
    const r = await cli(['ledger', 'export', '--db', ws.db, '--auditor', other], ws.dir)
    expect(r.code).toBe(2)
    expect(r.err).toMatch(/passphrase/)
    const wrong = await cli(['ledger', 'verify', '--db', ws.db, '--auditor', other], ws.dir)
    expect(wrong.code).toBe(2)
    expect(() => readFileSync(other)).toThrow()
  })
})
