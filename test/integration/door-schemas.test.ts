/**
 * Schemas at the doors, through the HTTP door of a running headless server: a malformed request (wrong
 * type, missing field, unknown key, out-of-range number, huge string, not an object) to a method gets ONE plain sentence
 * naming the field, code "bad-input", and changes nothing stored: every table of the workspace is the same before and
 * after. Requests that would succeed but for one unknown key (a rename, a save) show that the refusal comes before any
 * handler runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request } from 'node:http'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import type { CallOutcome } from '../../src-main/contract'
import { isErrorCode } from '../../src-main/contract/error-codes'
import { startHeadless, type HeadlessServer } from '../../src-main/server'
import { tempWorkspace, waitFor } from './helpers'

let h: HeadlessServer
let ws: ReturnType<typeof tempWorkspace>

function post(path: string, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: h.port, path, method: 'POST', headers: { Authorization: `Bearer ${h.token}` } }, (res) => {
      let text = ''
      res.on('data', (d) => (text += String(d)))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

async function call(method: string, req: unknown): Promise<CallOutcome<unknown>> {
  const r = await post(`/api/call/${method}`, JSON.stringify({ req }))
  expect(r.status).toBe(200)
  return JSON.parse(r.body) as CallOutcome<unknown>
}

/** Every row of every table of the workspace, read beside the running server. */
function snapshot(): string {
  const db = new Database(ws.db, { readonly: true, fileMustExist: true })
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{ name: string }>
    return JSON.stringify(
      tables.map(({ name }) => [
        name,
        db
          .prepare(`SELECT * FROM "${name.replace(/"/g, '""')}"`)
          .raw()
          .all()
      ])
    )
  } finally {
    db.close()
  }
}

let datasetId = 0
let queryId = 0
const threshold = { kind: 'threshold', groupBy: ['room'], count: { kind: 'rows' }, threshold: { kind: 'constant', value: 4 }, groups: [['A'], ['B']] }

beforeAll(async () => {
  ws = tempWorkspace('qa-door-schemas-')
  const rendererDir = join(ws.dir, 'renderer')
  mkdirSync(rendererDir)
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>ui</title>')
  h = await startHeadless({ dbPath: ws.db, poolSize: 1, rendererDir, uploadDir: join(ws.dir, 'uploads') })
  const up = JSON.parse((await post('/api/upload?name=rooms.csv', 'room,count\nA,5\nB,2\n')).body) as CallOutcome<{ fileId: string }>
  expect(up.ok).toBe(true)
  const started = await call('datasets/import', { fileId: up.ok ? up.value.fileId : '', name: 'rooms' })
  expect(started.ok, JSON.stringify(started)).toBe(true)
  await waitFor(async () => {
    const list = await call('datasets/list', {})
    datasetId = list.ok ? ((list.value as Array<{ id: number }>)[0]?.id ?? 0) : 0
    return datasetId > 0
  }, 'the import')
  const saved = await call('queries/save', { datasetId, name: 'over capacity', definition: threshold })
  expect(saved.ok, JSON.stringify(saved)).toBe(true)
  queryId = saved.ok ? (saved.value as { id: number }).id : 0
}, 60_000)

afterAll(async () => {
  await h?.close()
  ws?.cleanup()
})

describe('schemas at the HTTP door', () => {
  it('refuses malformed requests with one sentence naming the field, and stores nothing', async () => {
    const huge = 'x'.repeat(1_000_000)
    const cases: Array<[string, unknown, string]> = [
      // wrong type
      ['datasets/rename', { datasetId, name: 42 }, 'name must be text'],
      ['datasets/delete', { datasetId: String(datasetId) }, 'datasetId must be a whole number of at least 1'],
      [
        'releases/run',
        { queryId, params: { kind: 'anomaly-identification', mechanism: 'sp', epsilon: '1' } },
        'params.epsilon must be a number of at least 1e-9 and at most 1,000,000'
      ],
      ['budgets/set', { datasetId, epsilon: true, reason: 'r' }, 'epsilon must be a number of at least 0, or decimal text such as "2.5"'],
      ['datasets/rename', [datasetId, 'new name'], 'The request must be an object'],
      ['datasets/rename', 'rename it', 'The request must be an object'],
      // missing field (an absent request is read as {})
      ['datasets/rename', { datasetId }, 'name is required'],
      ['datasets/delete', null, 'datasetId is required (a whole number of at least 1)'],
      ['queries/save', { datasetId, name: 'q', definition: { ...threshold, groupBy: undefined } }, 'definition.groupBy is required'],
      ['releases/preview', { queryId, params: {} }, 'params.kind is required (one of "threshold", "anomaly-identification" or "anomaly-search")'],
      // unknown key, at the top and nested
      ['datasets/delete', { datasetId, force: true }, 'The request has an unknown field "force"; remove it or check the spelling'],
      [
        'queries/save',
        { datasetId, name: 'q', definition: { ...threshold, filter: [{ column: 'room', op: '=', value: 'A', regex: '.*' }] } },
        'definition.filter[0] has an unknown field "regex"; remove it or check the spelling'
      ],
      [
        'releases/run',
        { queryId, params: { kind: 'anomaly-search', epsilon: 1 } },
        'params has an unknown field "epsilon"; remove it or check the spelling'
      ],
      // out of range
      [
        'releases/run',
        { queryId, params: { kind: 'threshold', mechanism: 'tslm', beta: 0.5, alpha: 1 } },
        'params.beta must be a number of at least 1e-12 and less than 0.5'
      ],
      [
        'releases/run',
        { queryId, params: { kind: 'threshold', mechanism: 'tslm', beta: 0.1, alpha: 1, steps: 51 } },
        'params.steps must be a whole number from 2 to 50'
      ],
      [
        'releases/run',
        { queryId, params: { kind: 'threshold', mechanism: 'magic', beta: 0.1, alpha: 1 } },
        'params.mechanism must be one of "tslm", "ppwlm" or "dppwlm"'
      ],
      ['app/set-workers', { workers: 0 }, 'workers must be a whole number of at least 1'],
      ['budgets/set', { datasetId, epsilon: -1, reason: 'r' }, 'epsilon must be a number of at least 0'],
      [
        'queries/save',
        { datasetId, name: 'q', definition: { ...threshold, count: { kind: 'persons', personColumn: 'room', cap: 0 } } },
        'definition.count.cap must be a whole number from 1 to 1,000,000'
      ],
      // huge strings
      ['datasets/rename', { datasetId, name: huge }, 'name must have at most 200 characters'],
      [
        'queries/save',
        { datasetId, name: 'q', definition: { ...threshold, groups: [[huge]] } },
        'definition.groups[0][0] must have at most 1,000 characters'
      ],
      ['ledger/checkpoint', { officer: 'o', passphrase: huge }, 'passphrase must have at most 1,024 characters'],
      // requests that would succeed but for one unknown key: refused before the handler (which would rename, save, delete)
      ['datasets/rename', { datasetId, name: 'renamed', note: 'x' }, 'The request has an unknown field "note"; remove it or check the spelling'],
      [
        'queries/save',
        { datasetId, name: 'saved', definition: threshold, tags: ['a'] },
        'The request has an unknown field "tags"; remove it or check the spelling'
      ],
      ['queries/delete', { queryId, why: 'x' }, 'The request has an unknown field "why"; remove it or check the spelling']
    ]
    for (const [method, req, sentence] of cases) {
      const before = snapshot()
      const out = await call(method, req)
      const what = `${method} ${JSON.stringify(req).slice(0, 100)}`
      expect(out, what).toEqual({ ok: false, error: { message: sentence, code: 'bad-input' } })
      // One plain sentence: no line breaks, no JSON, not zod's own words.
      expect(sentence).toMatch(/^[^\n{}[\]]+(\[\d+\][^\n{}[\]]*)*$/)
      expect(sentence).not.toMatch(/Invalid input|expected .* received|Too (big|small)/)
      expect(snapshot(), `${what} changed the workspace`).toBe(before)
    }
    // The same requests without the fault are accepted (so the refusals above are about the fault).
    expect((await call('datasets/rename', { datasetId, name: 'renamed' })).ok).toBe(true)
    expect((await call('queries/save', { datasetId, name: 'saved', definition: threshold })).ok).toBe(true)
    expect((await call('releases/preview', { queryId, params: { kind: 'threshold', mechanism: 'tslm', beta: 0.1, alpha: 1, steps: 50 } })).ok).toBe(
      true
    )
  })

  it('answers every refusal with a code of the contract', async () => {
    const outcomes = [
      await call('no/such-method', {}),
      await call('datasets/get', { datasetId: 999_999 }),
      await call('datasets/get', { datasetId: -1 }),
      await call('queries/save', { datasetId, name: 'bad', definition: { ...threshold, groupBy: ['nope'] } })
    ]
    expect(outcomes.map((o) => (o.ok ? 'ok' : o.error.code))).toEqual(['unknown-method', 'not-found', 'bad-input', 'bad-query'])
    for (const o of outcomes) expect(!o.ok && isErrorCode(o.error.code)).toBe(true)
  })

  it('holds definitions saved past the doors (the CLI) to the same schema, after the checks that know the dataset', async () => {
    const before = snapshot()
    const save = (definition: unknown) => h.services.call('queries/save', { datasetId, name: 'cli', definition: definition as never })
    await expect(save({ ...threshold, treshold: 5 })).rejects.toMatchObject({
      code: 'bad-query',
      message: 'The query definition has an unknown field "treshold"; remove it or check the spelling'
    })
    await expect(save({ ...threshold, groups: [['A'.repeat(5000)]] })).rejects.toMatchObject({
      code: 'bad-query',
      message: 'groups[0][0] must have at most 1,000 characters'
    })
    // The dataset-aware check speaks first, with its own sentence.
    await expect(save({ ...threshold, groupBy: ['nope'], treshold: 5 })).rejects.toMatchObject({
      code: 'bad-query',
      message: expect.stringMatching(/^Dataset "[a-z]+" has no column "nope" \(used as the group-by column 1\)$/)
    })
    expect(snapshot()).toBe(before)
  })
})
