/**
 * Registering privacy officers through the door the app uses (`officer/register` on the headless server): the first
 * officer alone; every later one only with a registered officer's passphrase. The attacks it stops: whoever holds the
 * page (or the token) adds an officer of their own without the officer's passphrase (and then signs budgets with it),
 * or sets a guessable passphrase. Each refusal is one sentence and writes nothing; what is written verifies.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request } from 'node:http'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import type { CallOutcome } from '../../src-main/contract'
import { startHeadless, type HeadlessServer } from '../../src-main/server'
import { tempWorkspace } from './helpers'

let h: HeadlessServer
let ws: ReturnType<typeof tempWorkspace>
const DANA = 'correct horse battery staple'
const LEE = 'purple elephant midnight train'

function call(method: string, req: unknown): Promise<CallOutcome<Record<string, unknown>>> {
  return new Promise((resolve, reject) => {
    const r = request(
      { host: '127.0.0.1', port: h.port, path: `/api/call/${method}`, method: 'POST', headers: { Authorization: `Bearer ${h.token}` } },
      (res) => {
        let text = ''
        res.on('data', (d) => (text += String(d)))
        res.on('end', () => resolve(JSON.parse(text) as CallOutcome<Record<string, unknown>>))
      }
    )
    r.on('error', reject)
    r.end(JSON.stringify({ req }))
  })
}

/** The officers and audit tables as stored (what a refusal must leave as it was). */
function stored(): string {
  const db = new Database(ws.db, { readonly: true, fileMustExist: true })
  try {
    return JSON.stringify([db.prepare('SELECT * FROM officers').all(), db.prepare('SELECT * FROM audit_events').all()])
  } finally {
    db.close()
  }
}

function error(o: CallOutcome<unknown>): string {
  return o.ok ? '(accepted)' : o.error.message
}

beforeAll(async () => {
  ws = tempWorkspace('qa-officer-register-')
  const rendererDir = join(ws.dir, 'renderer')
  mkdirSync(rendererDir)
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>ui</title>')
  h = await startHeadless({ dbPath: ws.db, poolSize: 1, rendererDir, uploadDir: join(ws.dir, 'uploads') })
}, 60_000)

afterAll(async () => {
  await h?.close()
  ws?.cleanup()
})

describe('officer/register', () => {
  it('a passphrase under the rule is refused and nothing is written', async () => {
    const before = stored()
    const r = await call('officer/register', { name: 'Dana', passphrase: 'short one' })
    expect(error(r)).toBe("The new officer's passphrase must have at least 12 characters; nothing was written")
    expect(stored()).toBe(before)
  })

  it('the first officer registers alone; the answer is the key id to keep', async () => {
    const r = await call('officer/register', { name: 'Dana', passphrase: DANA })
    expect(r.ok, error(r)).toBe(true)
    const o = r.ok ? r.value : {}
    expect(o).toMatchObject({ name: 'Dana', addedByName: 'Dana' })
    expect(String(o.fingerprint).replace(/ /g, '')).toBe(o.keyId)
    const list = await call('officer/list', {})
    expect(list.ok && (list.value as unknown as Array<{ name: string }>).map((x) => x.name)).toEqual(['Dana'])
  })

  it('a second officer without a registered officer’s passphrase is refused (nothing written)', async () => {
    const before = stored()
    const none = await call('officer/register', { name: 'Mallory', passphrase: LEE })
    expect(error(none)).toBe('This is an officer act: it needs the passphrase of officer "Dana"; nothing was written')
    const wrong = await call('officer/register', { name: 'Mallory', passphrase: LEE, by: { officer: 'Dana', passphrase: 'not the passphrase' } })
    expect(error(wrong)).toBe('The passphrase of officer "Dana" is wrong; nothing was written')
    const twin = await call('officer/register', { name: 'Dana', passphrase: LEE, by: { passphrase: DANA } })
    expect(error(twin)).toBe('An officer named "Dana" is already registered')
    expect(stored()).toBe(before)
  })

  it('a registered officer adds another; both verify and can act', async () => {
    const r = await call('officer/register', { name: 'Lee', passphrase: LEE, by: { officer: 'Dana', passphrase: DANA } })
    expect(r.ok, error(r)).toBe(true)
    expect(r.ok && r.value).toMatchObject({ name: 'Lee', addedByName: 'Dana' })
    const v = await call('ledger/verify', {})
    expect(v.ok && v.value).toMatchObject({ ok: true, officers: [{ name: 'Dana' }, { name: 'Lee' }] })
    // Lee's key signs an act (a checkpoint) with Lee's passphrase.
    const cp = await call('ledger/checkpoint', { officer: 'Lee', passphrase: LEE })
    expect(cp.ok, error(cp)).toBe(true)
    expect(cp.ok && cp.value).toMatchObject({ officer: 'Lee' })
  })

  it('the request is checked at the door: an unknown field is refused before anything runs', async () => {
    const before = stored()
    const r = await call('officer/register', { name: 'Kim', passphrase: LEE, by: { officer: 'Dana', passphrase: DANA }, role: 'admin' })
    expect(r.ok).toBe(false)
    expect(!r.ok && r.error.code).toBe('bad-input')
    expect(stored()).toBe(before)
  })
})
