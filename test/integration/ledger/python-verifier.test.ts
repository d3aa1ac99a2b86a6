/**
 * The second verifier (resources/verifier/verify.py, Python, written from docs/spec/v1 and sharing no code) must agree
 * with `ledger verify` on every checked-in vector and on vectors made now from workspaces this test builds (new keys,
 * new times): the same verdict, the same first broken position, the same spend per dataset. A disagreement fails.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Bases, TAMPERS, VECTOR_DIR, buildBases, makeVector } from '../../support/ledger-vectors'
import type { LedgerVector, VectorVerdict } from '../../support/vector-workspace'

const VERIFY_PY = join(__dirname, '..', '..', '..', 'resources', 'verifier', 'verify.py')

interface PyResult {
  ok: boolean
  verdict: 'ok' | 'failed' | 'refused'
  firstBrokenSeq: number | null
  spend: LedgerVector['spend']
  problems: Array<{ seq: number; rule: string; reason: string }>
}

/** Runs the Python verifier on a file; its exit code must match its verdict. */
export function pythonVerify(file: string, extra: string[] = []): PyResult {
  const r = spawnSync('python3', [VERIFY_PY, file, '--json', ...extra], { encoding: 'utf8' })
  if (r.status === 2 || r.error) throw new Error(`verify.py could not read ${file}: ${r.stderr}${r.error?.message ?? ''}`)
  const out = JSON.parse(r.stdout) as PyResult
  expect(r.status).toBe({ ok: 0, failed: 3, refused: 4 }[out.verdict])
  return out
}

const asVerdict = (r: PyResult): VectorVerdict => ({ ok: r.verdict === 'refused' ? 'refused' : r.ok, firstBrokenSeq: r.firstBrokenSeq })

describe('the Python verifier', () => {
  it('runs: python3 with cryptography is installed (test/check.sh installs python3-cryptography)', () => {
    expect(execFileSync('python3', ['-c', 'import cryptography; print("ok")'], { encoding: 'utf8' }).trim()).toBe('ok')
  })

  describe('agrees with ledger verify on every checked-in vector', () => {
    const files = readdirSync(VECTOR_DIR)
      .filter((f) => f.endsWith('.json'))
      .sort()
    for (const f of files) {
      it(f, () => {
        const v = JSON.parse(readFileSync(join(VECTOR_DIR, f), 'utf8')) as LedgerVector
        const py = pythonVerify(join(VECTOR_DIR, f))
        expect(asVerdict(py)).toEqual(v.expected)
        expect(py.spend).toEqual(v.spend)
      })
    }
  })

  describe('agrees with ledger verify on workspaces made now', () => {
    let dir: string
    let bases: Bases
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'qa-pyverify-'))
      bases = await buildBases(dir)
    }, 240_000)
    afterAll(() => rmSync(dir, { recursive: true, force: true }))

    for (const t of TAMPERS) {
      it(t.name, () => {
        // makeVector checks ledger verify's verdict against the tamper's and against the rebuilt workspace's.
        const v = makeVector(t, bases, dir)
        const file = join(dir, `${t.name}.json`)
        writeFileSync(file, JSON.stringify(v))
        const py = pythonVerify(file)
        expect(asVerdict(py), JSON.stringify(py.problems.slice(0, 3))).toEqual(v.expected)
        expect(py.spend).toEqual(v.spend)
      })
    }
  })
})
