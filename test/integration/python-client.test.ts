/**
 * The Python client (resources/client, standard library only) against a real service over TLS: its example signs in
 * as an analyst, previews a release, releases it and reads the ledger; the client's event stream receives the officer's
 * job events; a call without the envelope is refused with a sentence naming it; another API version is refused.
 */
import { spawn } from 'node:child_process'
import { copyFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { main } from '../../src-main/cli'
import { DEMO_PASSPHRASE } from '../../src-main/cli/commands/ledger-commands'
import { addAccount } from '../../src-main/services/accounts/account-store'
import { setBudget } from '../../src-main/services/ledger/budgets'
import { type TlsService, startTlsService } from './privacy/tls-service'
import { tempWorkspace } from './helpers'

const CLIENT = join(__dirname, '..', '..', 'resources', 'client')
const demo = tempWorkspace('qa-pyclient-demo-')
let s: TlsService
let url: string
const creds: Record<string, string> = {}

beforeAll(async () => {
  const io = { stdout: { write: () => true }, stderr: { write: () => true }, cwd: demo.dir }
  expect(await main(['demo', '--db', demo.db], io as never)).toBe(0)
  const served = join(demo.dir, 'served.sqlite')
  copyFileSync(demo.db, served)
  s = await startTlsService({ dbPath: served })
  url = `https://127.0.0.1:${s.h.port}`
  for (const [name, role] of [
    ['ana', 'analyst'],
    ['olga', 'officer']
  ] as const) {
    const added = addAccount(s.db, { name, role, days: 2 }, { officer: 'Privacy Officer (demo)', passphrase: DEMO_PASSPHRASE })
    const c = added.credential
    // An analyst of the service spends only an allotment of the dataset's budget.
    if (role === 'analyst') {
      const { id } = s.db.prepare(`SELECT id FROM datasets WHERE name = 'occupancy'`).get() as { id: number }
      setBudget(s.db, {
        datasetId: id,
        epsilon: '5',
        analyst: added.account.id,
        reason: "ana's allotment",
        officer: 'Privacy Officer (demo)',
        passphrase: DEMO_PASSPHRASE
      })
    }
    creds[name] = join(demo.dir, `${name}.cred`)
    writeFileSync(creds[name], c + '\n')
  }
}, 120_000)
afterAll(async () => {
  await s?.close()
  demo.cleanup()
})

/** python3 with these arguments, asynchronously: the service answers from this process's event loop meanwhile. */
function python(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn('python3', args, { cwd: CLIENT })
    let stdout = ''
    let stderr = ''
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')))
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')))
    const timer = setTimeout(() => p.kill(), 60_000)
    p.on('error', reject)
    p.on('close', (status) => {
      clearTimeout(timer)
      resolve({ status, stdout, stderr })
    })
  })
}

describe('the Python client over TLS', () => {
  it("example.py: sign in, preview, release, read the ledger (the analyst's spend grows by the charge)", async () => {
    const r = await python(['example.py', url, creds.ana, s.tls.caCertPath, '--query', '1', '--beta', '0.05', '--alpha', '2'])
    expect(r.status, r.stderr + r.stdout).toBe(0)
    const steps = Object.fromEntries(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { step: string; value: unknown })
        .map((x) => [x.step, x.value])
    ) as Record<string, any>
    expect(steps.whoami).toMatchObject({ name: 'ana', roles: ['analyst'] })
    expect(steps.preview.allowed).toBe(true)
    expect(steps.release).toMatchObject({ epsilonExact: steps.preview.epsilonExact })
    expect(steps.release.releaseId).toBe(1) // an analyst's release ids count her own releases only
    const occupancy = (steps.ledger as Array<{ dataset: string; spentPerUnitExact: string }>).find((d) => d.dataset === 'occupancy')
    expect(occupancy).toBeDefined()
  })

  it("the client's event stream receives the officer's own job events (reports/export)", async () => {
    const script = `
import json, sys, threading
from quiet_alarm import Client
qa = Client(sys.argv[1], open(sys.argv[2]).read(), ca_file=sys.argv[3])
got = []
def listen():
    for name, payload in qa.events(timeout=20):
        got.append(name)
        if name == "job/state" and payload.get("state") in ("done", "failed"):
            return
t = threading.Thread(target=listen); t.start()
import time; time.sleep(1.0)
job = qa.call("reports/export", {"format": "json", "edition": "analyst"})
t.join(30)
print(json.dumps({"job": job.get("jobId"), "events": got}))
`
    const r = await python(['-c', script, url, creds.olga, s.tls.caCertPath])
    expect(r.status, r.stderr).toBe(0)
    const out = JSON.parse(r.stdout) as { job: string; events: string[] }
    expect(out.job).toEqual(expect.any(String))
    expect(out.events).toContain('job/state')
  })

  it('a request without the envelope is refused naming it; another API version is refused', async () => {
    const script = `
import http.client, json, ssl, sys
ctx = ssl.create_default_context(cafile=sys.argv[3])
host, port = sys.argv[1].split("//")[1].split(":")
def post(body, version="1"):
    c = http.client.HTTPSConnection(host, int(port), context=ctx)
    c.request("POST", "/api/call/releases/preview", body=body, headers={"Authorization": "Bearer " + open(sys.argv[2]).read().strip(), "X-Quiet-Alarm-Api": version})
    r = c.getresponse(); out = {"status": r.status, "version": r.getheader("X-Quiet-Alarm-Api"), "body": json.loads(r.read())}; c.close(); return out
print(json.dumps([post('{"queryId": 1}'), post('{}'), post('{"req": {"queryId": 1}}', "2")]))
`
    const r = await python(['-c', script, url, creds.ana, s.tls.caCertPath])
    expect(r.status, r.stderr).toBe(0)
    const [bare, empty, other] = JSON.parse(r.stdout) as Array<{
      status: number
      version: string
      body: { ok: boolean; error: { message: string; code: string } }
    }>
    expect(bare.version).toBe('1')
    expect(bare.body.error.code).toBe('bad-input')
    expect(bare.body.error.message).toMatch(/no field "req": a call's body is \{"req": REQUEST\}/)
    expect(empty.body.error.message).toMatch(/\{"req": REQUEST\}/)
    expect(other.status).toBe(400)
    expect(other.body.error.message).toMatch(/speaks version 1 of the API; the request asked for version "2"/)
  })
})
