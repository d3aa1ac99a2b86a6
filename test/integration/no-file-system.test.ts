/**
 * No file system through the API, attempted through the HTTP door of a running headless server:
 * - every contract method (the run-time allow-list) is called with path-like parameters ("path", "outPath", "file", ...)
 *   at the top level and inside every nested object: each call is refused before any handler runs;
 * - every string of a working request to every method is replaced by a path (/etc/passwd, a canary file, ../..,
 *   file://): nothing at that path is read (its content never comes back, its access time does not move) or written;
 * - files are opaque handles: a path given as a fileId is an unknown file; an upload answers with a handle, no path;
 * - the upload cap counts the bytes received: a 300 MB chunked upload without Content-Length is refused and nothing is
 *   kept.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request } from 'node:http'
import { Readable } from 'node:stream'
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { type CallOutcome, type MethodName, type RequestOf, methodNames } from '../../src-main/contract'
import { startHeadless, type HeadlessServer } from '../../src-main/server'
import { tempWorkspace, waitFor } from './helpers'

const CAP = 4 * 1024 * 1024
let h: HeadlessServer
let ws: ReturnType<typeof tempWorkspace>
let secretDir: string
let canary: string
let canaryText: string
let existing: string
let fresh: string
let uploads: string
/** Whether reading a file moves its access time on this file system (relatime does when atime <= mtime). */
let atimeWorks = false

function raw(path: string, opts: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {}) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: h.port, path, method: opts.method ?? 'GET', headers: opts.headers }, (res) => {
      let body = ''
      res.on('data', (d) => (body += String(d)))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on('error', reject)
    req.end(opts.body)
  })
}

const seen: string[] = []
async function call(method: string, req: unknown, keepJobs = false): Promise<CallOutcome<unknown>> {
  const r = await raw(`/api/call/${method}`, { method: 'POST', body: JSON.stringify({ req }), headers: { Authorization: `Bearer ${h.token}` } })
  seen.push(r.body)
  const out = JSON.parse(r.body) as CallOutcome<unknown>
  // Jobs a variant started are stopped at once (the property is about files, not about the job).
  const jobId = out.ok ? (out.value as { jobId?: unknown } | null)?.jobId : undefined
  if (typeof jobId === 'string' && !keepJobs)
    await raw('/api/call/jobs/cancel', { method: 'POST', body: JSON.stringify({ req: { jobId } }), headers: { Authorization: `Bearer ${h.token}` } })
  return out
}

async function upload(name: string, body: string | Buffer) {
  const r = await raw(`/api/upload?name=${encodeURIComponent(name)}`, { method: 'POST', body, headers: { Authorization: `Bearer ${h.token}` } })
  return { status: r.status, body: JSON.parse(r.body) as CallOutcome<{ fileId: string; fileName: string; bytes: number }> }
}

async function allJobsSettled(): Promise<void> {
  await waitFor(
    async () => {
      const r = await call('jobs/list', {})
      return r.ok && (r.value as Array<{ state: string }>).every((j) => j.state !== 'running' && j.state !== 'queued')
    },
    'every job to settle',
    60_000
  )
}

beforeAll(async () => {
  ws = tempWorkspace('qa-nofs-')
  const rendererDir = join(ws.dir, 'renderer')
  mkdirSync(rendererDir)
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>ui</title>')
  secretDir = join(ws.dir, 'secret')
  mkdirSync(secretDir)
  canaryText = `CANARY-${randomBytes(8).toString('hex')}`
  canary = join(secretDir, 'canary.csv')
  writeFileSync(canary, `${canaryText},b\n1,2\n`)
  existing = join(secretDir, 'existing.pdf')
  writeFileSync(existing, 'ORIGINAL')
  fresh = join(secretDir, 'new-report.pdf')
  // Access times: set them well before the modification time, so that any read moves them (relatime).
  const calib = join(secretDir, 'calibration.txt')
  writeFileSync(calib, 'x')
  const old = new Date(Date.now() - 86_400_000)
  utimesSync(calib, old, new Date())
  readFileSync(calib)
  atimeWorks = statSync(calib).atimeMs > old.getTime() + 1000
  utimesSync(canary, old, new Date())
  uploads = join(ws.dir, 'uploads')
  h = await startHeadless({ dbPath: ws.db, poolSize: 1, rendererDir, uploadDir: uploads, maxUploadBytes: CAP })
}, 60_000)

afterAll(async () => {
  await h?.close()
  ws?.cleanup()
})

/**
 * Every place in a request where a parameter could be added: the top level and each nested object, except the maps
 * whose keys are column names from the user's file (`types`, `on`: a column may be called "path"; that is data).
 */
function objectSites(v: unknown, trail: Array<string | number> = []): Array<Array<string | number>> {
  if (Array.isArray(v)) return v.flatMap((x, i) => objectSites(x, [...trail, i]))
  if (v === null || typeof v !== 'object') return []
  const here = trail.length > 0 && ['types', 'on'].includes(String(trail[trail.length - 1])) ? [] : [trail]
  return [...here, ...Object.entries(v).flatMap(([k, x]) => objectSites(x, [...trail, k]))]
}

function stringLeaves(v: unknown, trail: Array<string | number> = []): Array<Array<string | number>> {
  if (typeof v === 'string') return [trail]
  if (Array.isArray(v)) return v.flatMap((x, i) => stringLeaves(x, [...trail, i]))
  if (v === null || typeof v !== 'object') return []
  return Object.entries(v).flatMap(([k, x]) => stringLeaves(x, [...trail, k]))
}

function withAt(v: unknown, trail: Array<string | number>, change: (x: unknown) => unknown): unknown {
  const copy = structuredClone(v)
  if (trail.length === 0) return change(copy)
  let node = copy as Record<string | number, unknown>
  for (const k of trail.slice(0, -1)) node = node[k] as Record<string | number, unknown>
  const last = trail[trail.length - 1]
  node[last] = change(node[last])
  return copy
}

describe('no file system through the HTTP door', () => {
  let datasetId = 0
  let queryId = 0
  let samples: Partial<{ [M in MethodName]: RequestOf<M> }> = {}

  beforeAll(async () => {
    const up = await upload('rooms.csv', 'room,count,capacity\nA,5,4\nB,2,4\n')
    expect(up.body.ok).toBe(true)
    const fileId = up.body.ok ? up.body.value.fileId : ''
    const started = await call('datasets/import', { fileId, name: 'rooms' }, true)
    expect(started.ok, JSON.stringify(started)).toBe(true)
    await allJobsSettled()
    const list = await call('datasets/list', {})
    datasetId = (list.ok ? (list.value as Array<{ id: number }>) : [])[0]?.id ?? 0
    expect(datasetId).toBeGreaterThan(0)
    const q = await call('queries/save', {
      datasetId,
      name: 'over capacity',
      definition: { kind: 'threshold', groupBy: ['room'], count: { kind: 'rows' }, threshold: { kind: 'constant', value: 4 }, groups: [['A'], ['B']] }
    })
    queryId = q.ok ? (q.value as { id: number }).id : 0
    const presets = await call('experiments/presets', {})
    const preset = presets.ok
      ? (presets.value as { presets: Array<{ name: string; spec: { workloads: unknown[] } & Record<string, unknown> }> }).presets[0]
      : undefined
    const spec = preset ? { ...preset.spec, workloads: preset.spec.workloads.slice(0, 1), trials: 1 } : {}
    const report = await call('reports/export', { format: 'json' }, true)
    const reportJob = report.ok ? (report.value as { jobId: string }).jobId : 'none'
    samples = {
      'jobs/get': { jobId: reportJob },
      'jobs/cancel': { jobId: 'job-none' },
      'diagnostics/self-check': { batches: 1, samplesPerBatch: 100 },
      'app/choose-file': { title: 'Choose', filters: [{ name: 'CSV', extensions: ['csv'] }] },
      'app/set-workers': { workers: 1 },
      'datasets/preview-file': { fileId, rows: 5 },
      'datasets/import': { fileId, name: 'rooms again', types: { count: 'integer' }, onBadRow: 'skip' },
      'datasets/get': { datasetId },
      'datasets/rows': { datasetId, offset: 0, limit: 5 },
      'datasets/rename': { datasetId, name: 'rooms' },
      'datasets/declare-public': { datasetId, reason: 'public capacities', officer: 'Officer' },
      'queries/save': {
        datasetId,
        name: 'q2',
        definition: {
          kind: 'threshold',
          filter: [{ column: 'room', op: '=', value: 'A' }],
          groupBy: ['room'],
          count: { kind: 'rows' },
          threshold: { kind: 'constant', value: 4 },
          groups: [['A']]
        }
      },
      'queries/list': { datasetId },
      'queries/get': { queryId },
      'queries/versions': { queryId },
      'experiments/validate': { spec },
      'experiments/start': { spec },
      'experiments/resume': { experimentId: 'exp-none' },
      'experiments/get': { experimentId: 'exp-none' },
      'experiments/export-csv': { experimentId: 'exp-none' },
      'experiments/delete': { experimentId: 'exp-none' },
      'ledger/entries': { datasetId, limit: 5, offset: 0 },
      'ledger/summary': { datasetId },
      'ledger/verify': { expectHead: '0'.repeat(16) },
      'budgets/set': { datasetId, epsilon: '1', reason: 'review', officer: 'Officer' },
      'releases/preview': { queryId, params: { kind: 'threshold', mechanism: 'tslm', beta: 0.1 } as never, actor: 'analyst' },
      'releases/run': { queryId, params: { kind: 'threshold', mechanism: 'tslm', beta: 0.1 } as never, actor: 'analyst' },
      'releases/list': { datasetId },
      'releases/get': { releaseId: 1 },
      'officer/unlock-ex-post': { releaseId: 1, officer: 'Officer', reason: 'audit' },
      'reports/preview': { datasetId, from: '2020-01-01', edition: 'analyst' },
      'reports/export': { format: 'pdf', pageSize: 'A4', table: 'ledger' },
      'reports/download': { jobId: reportJob },
      'reports/save': { jobId: reportJob }
    }
    await allJobsSettled()
  }, 120_000)

  it('refuses a path-like parameter to every contract method, at the top level and in every nested object', async () => {
    const keys = ['path', 'outPath', 'file', 'filePath', 'dir', 'cwd']
    let calls = 0
    for (const method of methodNames) {
      const base = samples[method] ?? {}
      for (const site of objectSites(base)) {
        for (const key of keys) {
          const target = key === 'outPath' ? existing : canary
          const req = withAt(base, site, (o) => ({ ...(o as object), [key]: target }))
          const out = await call(method, req)
          calls++
          expect(out.ok, `${method} with ${[...site, key].join('.')}`).toBe(false)
          if (!out.ok) {
            expect(out.error.code).toBe('bad-input')
            expect(out.error.message).toMatch(/names a file or folder, and the app never takes file paths/)
          }
        }
      }
    }
    expect(calls).toBeGreaterThanOrEqual(methodNames.length * keys.length)
    process.stdout.write(`path-like parameters: ${calls} calls over ${methodNames.length} methods, all refused\n`)
  })

  it('never reads or writes the file a path-like value names, whichever string of a request it is in', async () => {
    const values = ['/etc/passwd', canary, '../../../../../../etc/passwd', `file://${canary}`, existing, fresh]
    let calls = 0
    const before = readdirSync(secretDir).sort()
    for (const method of methodNames) {
      const base = samples[method] ?? {}
      for (const leaf of stringLeaves(base)) {
        for (const v of values) {
          await call(
            method,
            withAt(base, leaf, () => v)
          )
          calls++
        }
      }
      // Requests made only of the method's known file-ish fields, with a path in each.
      for (const field of ['fileId', 'jobId', 'name']) {
        await call(method, { ...base, [field]: canary })
        calls++
      }
    }
    await allJobsSettled()
    const all = seen.join('\n')
    expect(all).not.toContain(canaryText)
    expect(all).not.toMatch(/root:[^:]*:0:0:/)
    expect(readFileSync(existing, 'utf8')).toBe('ORIGINAL')
    expect(existsSync(fresh)).toBe(false)
    expect(readdirSync(secretDir).sort()).toEqual(before)
    if (atimeWorks) expect(statSync(canary).atimeMs, 'the canary file was read').toBeLessThan(statSync(canary).mtimeMs)
    process.stdout.write(
      `path-like values: ${calls} calls, canary never read (${atimeWorks ? 'access time checked' : 'access time not tracked here'})\n`
    )
  })

  it('takes files only by the opaque handle a dialog or an upload gave', async () => {
    for (const fileId of ['/etc/passwd', canary, 'file:///etc/passwd']) {
      for (const method of ['datasets/preview-file', 'datasets/import'] as const) {
        const out = await call(method, { fileId })
        expect(out).toMatchObject({ ok: false, error: { code: 'bad-input' } })
        if (!out.ok) expect(out.error.message).toMatch(/^Unknown file: choose or upload the file again/)
      }
    }
    const up = await upload('../../evil name.csv', 'a,b\n1,2\n')
    expect(up.status).toBe(200)
    expect(up.body).toEqual({ ok: true, value: { fileId: expect.stringMatching(/^[A-Za-z0-9_-]{24}$/), fileName: 'evil name.csv', bytes: 8 } })
    expect(JSON.stringify(up.body)).not.toContain(uploads)
    const pv = await call('datasets/preview-file', { fileId: up.body.ok ? up.body.value.fileId : '' })
    expect(pv).toMatchObject({ ok: true, value: { columns: [{ name: 'a' }, { name: 'b' }] } })
    // A column may be called "path": in the map of column types that is data, not a parameter.
    const cols = await upload('pages.csv', 'path,hits\n/index.html,3\n/etc/passwd,1\n')
    const typed = await call('datasets/import', { fileId: cols.body.ok ? cols.body.value.fileId : '', name: 'pages', types: { path: 'text' } }, true)
    expect(typed.ok, JSON.stringify(typed)).toBe(true)
    await allJobsSettled()
    // Experiments from the app may name the bundled sample workloads, as the presets spell them.
    expect(await call('experiments/validate', samples['experiments/validate'])).toMatchObject({ ok: true })
    // The headless door has no dialog to register a path with.
    expect(await call('app/choose-file', {})).toMatchObject({ ok: false, error: { code: 'use-upload' } })
  })

  it('refuses reports/export with an outPath and leaves the file it names alone', async () => {
    const out = await call('reports/export', { format: 'json', outPath: existing })
    expect(out).toMatchObject({ ok: false, error: { code: 'bad-input' } })
    await allJobsSettled()
    expect(readFileSync(existing, 'utf8')).toBe('ORIGINAL')
  })

  it('refuses a 300 MB chunked upload without Content-Length on the bytes received, and keeps nothing', async () => {
    const total = 300 * 1000 * 1000
    const chunk = Buffer.alloc(64 * 1024, 'a')
    let produced = 0
    const body = new Readable({
      read() {
        if (produced >= total) return void this.push(null)
        const n = Math.min(chunk.length, total - produced)
        produced += n
        this.push(n === chunk.length ? chunk : chunk.subarray(0, n))
      }
    })
    const before = existsSync(uploads) ? readdirSync(uploads).length : 0
    const outcome = await new Promise<{ status: number | null; body: string; error: string | null }>((resolve) => {
      const req = request({
        host: '127.0.0.1',
        port: h.port,
        path: '/api/upload?name=huge.csv',
        method: 'POST',
        headers: { Authorization: `Bearer ${h.token}`, 'Transfer-Encoding': 'chunked' }
      })
      let settled = false
      const done = (r: { status: number | null; body: string; error: string | null }) => {
        if (settled) return
        settled = true
        body.destroy()
        resolve(r)
      }
      req.on('response', (res) => {
        let text = ''
        res.on('data', (d) => (text += String(d)))
        res.on('end', () => done({ status: res.statusCode ?? 0, body: text, error: null }))
        res.on('error', () => done({ status: res.statusCode ?? 0, body: text, error: null }))
      })
      req.on('error', (e: NodeJS.ErrnoException) => done({ status: null, body: '', error: e.code ?? e.message }))
      body.pipe(req)
    })
    expect(outcome.status === 413 || outcome.error === 'ECONNRESET' || outcome.error === 'EPIPE', JSON.stringify(outcome)).toBe(true)
    if (outcome.status === 413)
      expect(JSON.parse(outcome.body)).toMatchObject({ ok: false, error: { code: 'too-large', message: /larger than 4 MiB/ } })
    // The server stopped reading long before the end.
    expect(produced).toBeLessThan(total)
    expect(existsSync(uploads) ? readdirSync(uploads).length : 0).toBe(before)
    // A declared length over the cap is refused before any byte is read; a small upload still works.
    const declared = await raw('/api/upload?name=big.csv', {
      method: 'POST',
      body: Buffer.alloc(CAP + 1, 'a'),
      headers: { Authorization: `Bearer ${h.token}` }
    }).catch((e: NodeJS.ErrnoException) => ({ status: 0, body: e.code ?? '' }))
    expect([413, 0]).toContain(declared.status)
    expect((await upload('small.csv', 'a\n1\n')).body.ok).toBe(true)
    process.stdout.write(`chunked upload: refused after ${(produced / 1e6).toFixed(1)} MB of 300 MB produced (cap 4 MiB)\n`)
  })
})
