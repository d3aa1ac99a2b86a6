/**
 * The desktop app's connection (src-main/electron/connection.ts) through its code path, without launching Electron
 * (its binary cannot run here: ARCHITECTURE.md "Constraints"): the window's one call function on a workspace file of
 * the user's own, then another chosen in the open dialog, then a real TLS service on loopback as an account. The
 * native dialogs are the only part replaced (by functions answering what a user would pick); the services, the
 * service and the client are the real ones.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { CallOutcome, ConnectionInfo, EventName, JobInfo } from '../../src-main/contract'
import { createServices } from '../../src-main/services'
import { startHeadless, type HeadlessServer } from '../../src-main/door/headless'
import { DesktopConnection, type DesktopDialogs } from '../../src-main/electron/connection'
import { addAccount } from '../../src-main/services/accounts/account-store'
import { officerAct } from './officer-fixture'
import { tempWorkspace, waitFor } from './helpers'
import { type TestPki, makeTestPki } from '../support/tls'

let ws: ReturnType<typeof tempWorkspace>
let pki: TestPki
let service: HeadlessServer
let analystCredential: string
let custodianCredential: string

beforeAll(async () => {
  ws = tempWorkspace('qa-desktop-')
  pki = makeTestPki()
  service = await startHeadless({
    dbPath: join(ws.dir, 'service.sqlite'),
    poolSize: 1,
    deployment: 'service',
    cadenceMs: 50,
    listen: { host: '127.0.0.1', port: 0 },
    tls: { cert: pki.cert, key: pki.key }
  })
  const db = service.services.context.store.db
  analystCredential = addAccount(db, { name: 'ana', role: 'analyst', days: 2 }, officerAct(db)).credential
  custodianCredential = addAccount(db, { name: 'carl', role: 'custodian', days: 2 }, officerAct(db)).credential
}, 60_000)
afterAll(async () => {
  await service?.close()
  ws?.cleanup()
  pki?.cleanup()
})

/** What the user picks in the native dialogs, in order (null: cancel). */
function dialogs(picks: { workspace?: Array<string | null>; file?: Array<string | null> }): DesktopDialogs {
  return {
    chooseWorkspace: async () => picks.workspace?.shift() ?? null,
    chooseFile: async () => picks.file?.shift() ?? null,
    chooseSavePath: async () => null
  }
}

const value = <T>(o: CallOutcome<unknown>): T => {
  if (!o.ok) throw new Error(`${o.error.code}: ${o.error.message}`)
  return o.value as T
}

describe('the desktop connection', () => {
  it('opens a workspace file, switches to another chosen in the dialog, then to a service as an account; a refusal changes nothing', async () => {
    const first = join(ws.dir, 'first.sqlite')
    const second = join(ws.dir, 'second.sqlite')
    const events: Array<{ name: EventName; payload: unknown }> = []
    const picks = { workspace: [null, second] as Array<string | null>, file: [] as Array<string | null> }
    const c = new DesktopConnection({
      openServices: (dbPath) => createServices({ mode: 'desktop', dbPath, poolSize: 1 }),
      dialogs: dialogs(picks),
      deliver: (name, payload) => events.push({ name, payload })
    })
    try {
      // Nothing open yet: every call says so in one sentence; the connection methods still answer.
      expect(await c.call('datasets/list', {})).toMatchObject({ ok: false, error: { code: 'store' } })
      expect(value<ConnectionInfo>(await c.call('app/connection', {}))).toMatchObject({ kind: 'none' })

      expect(c.openWorkspace(first)).toMatchObject({ ok: true, value: { kind: 'workspace', workspace: { fileName: 'first.sqlite', path: first } } })
      expect(value(await c.call('app/status', {}))).toMatchObject({ deployment: 'workbench', databasePath: first })
      expect(value(await c.call('accounts/whoami', {}))).toMatchObject({ kind: 'workbench' })
      // The request check runs on the desktop's own methods too: a path is refused before any dialog opens.
      expect(await c.call('app/open-workspace', { path: second })).toMatchObject({ ok: false, error: { code: 'bad-input' } })

      // The user cancels the dialog: nothing changes. Then picks the second file.
      expect(value(await c.call('app/open-workspace', {}))).toMatchObject({ changed: false, connection: { workspace: { path: first } } })
      expect(value(await c.call('app/open-workspace', {}))).toMatchObject({ changed: true, connection: { workspace: { path: second } } })
      expect(existsSync(second)).toBe(true)
      expect(value(await c.call('app/status', {}))).toMatchObject({ databasePath: second })
      // Events of the open workspace reach the window.
      const job = value<{ jobId: string }>(await c.call('diagnostics/self-check', { batches: 2, samplesPerBatch: 1000 }))
      expect(job.jobId).toBeTruthy()
      await waitFor(
        () => events.some((e) => e.name === 'job/state' && (e.payload as JobInfo).jobId === job.jobId && (e.payload as JobInfo).state === 'done'),
        "the self-check's end to reach the window",
        60_000
      )

      // A wrong credential, a plain-HTTP address, an untrusted certificate: one sentence each, the workspace stays.
      const refusals = await Promise.all([
        c.call('app/connect-service', { url: service.url, credential: analystCredential.slice(0, -2) + 'xx', ca: pki.ca.toString() }),
        c.call('app/connect-service', { url: service.url.replace('https:', 'http:'), credential: analystCredential }),
        c.call('app/connect-service', { url: service.url, credential: analystCredential })
      ])
      expect(refusals.map((r) => (r.ok ? 'ok' : r.error.code))).toEqual(['unauthorized', 'bad-input', 'offline'])
      for (const r of refusals) expect(r.ok ? '' : r.error.message.split('\n')).toHaveLength(1)
      expect(value<ConnectionInfo>(await c.call('app/connection', {}))).toMatchObject({ kind: 'workspace', workspace: { path: second } })

      // The service, as the analyst: calls go there, as the account; no server-side path comes back.
      const info = value<ConnectionInfo>(
        await c.call('app/connect-service', { url: service.url, credential: `${analystCredential}\n`, ca: pki.ca.toString() })
      )
      expect(info).toMatchObject({ kind: 'service', service: { account: 'ana', roles: ['analyst'] }, workspace: null })
      expect(info.service?.origin).toBe(new URL(service.url).origin)
      expect(value(await c.call('accounts/whoami', {}))).toMatchObject({ kind: 'account', name: 'ana', roles: ['analyst'] })
      const status = value<Record<string, unknown>>(await c.call('app/status', {}))
      expect(status).toMatchObject({ deployment: 'service' })
      expect(status).not.toHaveProperty('databasePath')
      // The service's role table applies: an analyst may not import.
      expect(await c.call('datasets/delete', { datasetId: 1 })).toMatchObject({ ok: false, error: { code: 'forbidden' } })
    } finally {
      await c.close()
    }
  }, 180_000)

  it("uploads the file chosen in the dialog when connected to a service as the custodian (the service's handle comes back)", async () => {
    const csv = join(ws.dir, 'rooms.csv')
    writeFileSync(csv, 'person,room\nP1,R1\nP2,R2\n')
    const c = new DesktopConnection({
      openServices: (dbPath) => createServices({ mode: 'desktop', dbPath, poolSize: 1 }),
      dialogs: dialogs({ file: [csv] }),
      deliver: () => undefined
    })
    try {
      value(await c.connectService({ url: service.url, credential: custodianCredential, ca: pki.ca.toString() }))
      const chosen = value<{ file: { fileId: string; fileName: string; bytes: number } }>(await c.call('app/choose-file', { title: 'Import' }))
      expect(chosen.file).toMatchObject({ fileName: 'rooms.csv', bytes: 24 })
      const preview = value<{ columns: Array<{ name: string }> }>(await c.call('datasets/preview-file', { fileId: chosen.file.fileId }))
      expect(preview.columns.map((col) => col.name)).toEqual(['person', 'room'])
    } finally {
      await c.close()
    }
  }, 120_000)
})
