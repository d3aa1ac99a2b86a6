/**
 * docs/custodian.md's "From nothing" block, run exactly as written (extracted from the Markdown) in an empty folder,
 * with `quiet-alarm` on the PATH running this checkout's CLI: it must end with two analysts signed in over TLS, each
 * seeing their own share of the budget only. So the documented set-up cannot go stale. Beside it, the two ways a
 * workspace starts on a new path (`officer init`, `serve`), and `status`, which creates nothing.
 *
 * Fails when `officer init` or `serve` refuse a new path (the block stops at step 1 or 5), or when the doc's block is
 * edited into something that does not run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawn, spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { tempWorkspace } from './helpers'

const ROOT = resolve(__dirname, '../..')
const DOC = join(ROOT, 'docs/custodian.md')
const TSX = join(ROOT, 'node_modules/tsx/dist/loader.mjs')

/** The fenced sh block that follows the `custodian-steps` marker, as the page shows it. */
export function custodianSteps(markdown: string): string {
  const at = markdown.indexOf('<!-- custodian-steps')
  if (at < 0) throw new Error('docs/custodian.md has no custodian-steps marker')
  const m = /```sh\n([\s\S]*?)\n```/.exec(markdown.slice(at))
  if (!m) throw new Error('no sh block after the custodian-steps marker')
  return `${m[1]}\n`
}

let ws: ReturnType<typeof tempWorkspace>
let bin: string
const mode = (p: string) => statSync(p).mode & 0o777

beforeAll(() => {
  ws = tempWorkspace('qa-custodian-')
  bin = join(ws.dir, 'bin')
  mkdirSync(bin)
  // `quiet-alarm` as installed, here this checkout's CLI run from source (paths stay relative to the caller's folder).
  writeFileSync(join(bin, 'quiet-alarm'), `#!/bin/sh\nexec "${process.execPath}" --import "${TSX}" "${join(ROOT, 'src-main/cli.ts')}" "$@"\n`)
  chmodSync(join(bin, 'quiet-alarm'), 0o755)
})
afterAll(() => ws?.cleanup())

const env = () => ({ ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}`, QUIET_ALARM_PASSPHRASE: '' })

describe('the custodian set-up, from nothing, as documented', () => {
  it('status on a new path creates nothing and says how to create a workspace', () => {
    const db = join(ws.dir, 'none', 'ws.sqlite')
    const r = spawnSync(join(bin, 'quiet-alarm'), ['status', '--db', db], { encoding: 'utf8', env: env() })
    expect(r.status).toBe(2)
    expect(r.stderr.trim().split('\n')).toEqual([
      `quiet-alarm: There is no workspace at ${db}; check --db, or create one with "quiet-alarm officer init --db ${db} --name NAME" (the first privacy officer)`
    ])
    expect(existsSync(db)).toBe(false)
  })

  it('serve on a new path creates the workspace (0600 in a 0700 folder) and serves it', async () => {
    const db = join(ws.dir, 'fresh', 'ws.sqlite')
    const child = spawn(join(bin, 'quiet-alarm'), ['serve', '--db', db, '--listen', '127.0.0.1:0', '--workers', '1'], { env: env() })
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)))
    try {
      const first = await new Promise<string>((ok, fail) => {
        let out = ''
        let err = ''
        child.stderr.on('data', (d: Buffer) => (err += String(d)))
        child.stdout.on('data', (d: Buffer) => {
          out += String(d)
          if (out.includes('\n')) ok(out.slice(0, out.indexOf('\n')))
        })
        void exited.then((code) => fail(new Error(`serve exited (${code}): ${err}`)))
      })
      expect(first).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/)
      expect(mode(db)).toBe(0o600)
      expect(mode(join(ws.dir, 'fresh'))).toBe(0o700)
    } finally {
      child.kill('SIGTERM')
      await exited
    }
  })

  it("docs/custodian.md's block takes an empty folder to two analysts signed in over TLS", async () => {
    const block = custodianSteps(readFileSync(DOC, 'utf8'))
    const host = join(ws.dir, 'host')
    mkdirSync(host)
    writeFileSync(join(ws.dir, 'steps.sh'), block)
    const run = spawn('bash', ['-eu', '-o', 'pipefail', join(ws.dir, 'steps.sh')], { cwd: host, env: { ...env(), QA_LISTEN: '127.0.0.1:0' } })
    let out = ''
    let err = ''
    run.stdout.on('data', (d: Buffer) => (out += String(d)))
    run.stderr.on('data', (d: Buffer) => (err += String(d)))
    const code = await new Promise<number | null>((r) => run.once('exit', (c) => r(c)))
    const dir = join(host, 'quiet-alarm')
    const pidFile = join(dir, 'serve.pid')
    try {
      expect({ code, err }).toEqual({ code: 0, err: '' })
      expect(mode(join(dir, 'workspace'))).toBe(0o700)
      expect(mode(join(dir, 'workspace', 'ws.sqlite'))).toBe(0o600)
      expect(readFileSync(join(dir, 'serve.out'), 'utf8')).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/\n/)
      // Each analyst signed in and read the ledger: the dataset's budget and their own share, not the other's.
      const views = out.split('Privacy-budget ledger:').slice(-2)
      expect(views).toHaveLength(2)
      expect(views[0]).toContain("ana's share")
      expect(views[0]).not.toContain("bo's share")
      expect(views[1]).toContain("bo's share")
      expect(views[1]).not.toContain("ana's share")
      for (const v of views) expect(v).toContain('the 2026 review')
    } finally {
      if (existsSync(pidFile)) {
        const pid = Number(readFileSync(pidFile, 'utf8').trim())
        try {
          process.kill(pid, 'SIGTERM')
        } catch {
          // already gone
        }
      }
    }
  })
})
