/**
 * A report authenticated from itself: the officer edition carries the officer's signature over its data's SHA-256 and
 * a checkpoint written for it (beside a JSON export as R.signature.json); the Python verifier, given an auditor export
 * made afterwards, accepts it, and refuses a changed report, a changed signature and a signature naming a checkpoint
 * the ledger does not hold. The analyst edition carries none.
 */
import { spawn } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { main } from '../../../src-main/cli'
import { DEMO_PASSPHRASE } from '../../../src-main/cli/commands/ledger-commands'
import { tempWorkspace } from '../helpers'

const VERIFY_PY = join(__dirname, '..', '..', '..', 'resources', 'verifier', 'verify.py')
const ws = tempWorkspace('qa-report-sig-')
const env = { QUIET_ALARM_PASSPHRASE: DEMO_PASSPHRASE }

async function cli(args: string[], withPassphrase = false) {
  let err = ''
  const io = { stdout: { write: () => true }, stderr: { write: (s: string) => ((err += s), true) }, cwd: ws.dir }
  const saved = process.env.QUIET_ALARM_PASSPHRASE
  if (withPassphrase) process.env.QUIET_ALARM_PASSPHRASE = env.QUIET_ALARM_PASSPHRASE
  try {
    return { code: await main(args, io as never), err }
  } finally {
    if (saved === undefined) delete process.env.QUIET_ALARM_PASSPHRASE
    else process.env.QUIET_ALARM_PASSPHRASE = saved
  }
}

function py(
  args: string[]
): Promise<{ status: number | null; result: { verdict: string; report?: { ok: boolean; problems: Array<{ rule: string }> } } }> {
  return new Promise((resolve, reject) => {
    const p = spawn('python3', [VERIFY_PY, ...args, '--json'])
    let out = ''
    let err = ''
    p.stdout.on('data', (d: Buffer) => (out += d.toString()))
    p.stderr.on('data', (d: Buffer) => (err += d.toString()))
    p.on('error', reject)
    p.on('close', (status) => (status === 2 ? reject(new Error(err)) : resolve({ status, result: JSON.parse(out) })))
  })
}

const report = join(ws.dir, 'report.json')
const sigFile = `${report}.signature.json`
const exportFile = join(ws.dir, 'auditor.json')

beforeAll(async () => {
  expect((await cli(['demo', '--db', ws.db])).code).toBe(0)
  const r = await cli(['report', '--db', ws.db, '--format', 'json', '--out', report, '--edition', 'officer', '--reason', 'signed report test'], true)
  expect(r.code, r.err).toBe(0)
  const e = await cli(['ledger', 'export', '--db', ws.db, '--auditor', exportFile], true)
  expect(e.code, e.err).toBe(0)
}, 120_000)
afterAll(() => ws.cleanup())

describe('a signed report', () => {
  it('the officer edition writes its signature beside the JSON; the analyst edition none', async () => {
    const sig = JSON.parse(readFileSync(sigFile, 'utf8')) as { kind: string; checkpoint: { ledgerSeq: number }; signature: string }
    expect(sig.kind).toBe('quiet-alarm/report-signature')
    expect(sig.signature).toMatch(/^[A-Za-z0-9+/]{86}==$/)
    const analyst = join(ws.dir, 'analyst.json')
    expect((await cli(['report', '--db', ws.db, '--format', 'json', '--out', analyst])).code).toBe(0)
    expect(existsSync(`${analyst}.signature.json`)).toBe(false)
  })

  it('the Python verifier accepts it with an auditor export made afterwards', async () => {
    const r = await py([exportFile, '--report', report, '--report-signature', sigFile])
    expect(r.result.report).toEqual(expect.objectContaining({ ok: true, problems: [] }))
    expect(r.status).toBe(0)
  })

  it('ledger verify --report-signature accepts it on the workspace, and refuses a changed report or signature (exit 3)', async () => {
    const ok = await cli(['ledger', 'verify', '--db', ws.db, '--report-signature', sigFile, '--report', report])
    expect(ok.code, ok.err).toBe(0)
    const changedReport = join(ws.dir, 'changed-ts.json')
    writeFileSync(changedReport, readFileSync(report, 'utf8').replace('"edition":"officer"', '"edition":"analyst"'))
    const a = await cli(['ledger', 'verify', '--db', ws.db, '--report-signature', sigFile, '--report', changedReport])
    expect(a.code).toBe(3)
    expect(a.err).toMatch(/FAILED after the last entry \(\d+\): the report file does not hash to the SHA-256 of the report signed by officer/)
    const sig = JSON.parse(readFileSync(sigFile, 'utf8')) as { signature: string }
    const flipped = Buffer.from(sig.signature, 'base64')
    flipped[0] ^= 1
    const badSig = join(ws.dir, 'bad-sig-ts.json')
    writeFileSync(badSig, JSON.stringify({ ...sig, signature: flipped.toString('base64') }))
    const b = await cli(['ledger', 'verify', '--db', ws.db, '--report-signature', badSig])
    expect(b.code).toBe(3)
    expect(b.err).toMatch(/does not carry a valid signature of a verified officer/)
    const notOne = await cli(['ledger', 'verify', '--db', ws.db, '--report-signature', report])
    expect(notOne.code).toBe(2)
  })

  it('and refuses a changed report, a changed signature, and a checkpoint the ledger does not hold', async () => {
    const changedReport = join(ws.dir, 'changed.json')
    writeFileSync(changedReport, readFileSync(report, 'utf8').replace('"edition":"officer"', '"edition":"analyst"'))
    const a = await py([exportFile, '--report', changedReport, '--report-signature', sigFile])
    expect(a.status).toBe(3)
    expect(a.result.report!.problems.map((p) => p.rule)).toContain('P1')
    const sig = JSON.parse(readFileSync(sigFile, 'utf8')) as { signature: string; checkpoint: { id: number } }
    const flipped = Buffer.from(sig.signature, 'base64')
    flipped[0] ^= 1
    const badSig = join(ws.dir, 'bad-sig.json')
    writeFileSync(badSig, JSON.stringify({ ...sig, signature: flipped.toString('base64') }))
    const b = await py([exportFile, '--report', report, '--report-signature', badSig])
    expect(b.result.report!.problems.map((p) => p.rule)).toEqual(['P2'])
    const otherCp = join(ws.dir, 'other-cp.json')
    writeFileSync(otherCp, JSON.stringify({ ...sig, checkpoint: { ...sig.checkpoint, id: 999 } }))
    const c = await py([exportFile, '--report', report, '--report-signature', otherCp])
    expect(c.result.report!.problems.map((p) => p.rule)).toEqual(expect.arrayContaining(['P2', 'P3']))
  })
})
