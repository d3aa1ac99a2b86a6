/**
 * The desktop app is the workbench (ARCHITECTURE.md "Deployments"): the analyst holds the data, so nothing is held to
 * hide a release's run from them. Services events reach the window at once and in the order they were emitted, also
 * while a release is running (before: every event waited for the release's padded answer time, so a sweep's progress
 * froze on every release). Electron cannot be launched here: this loads the real src-main/electron/main.ts against a
 * fake `electron` (as test/unit/electron-shell.test.ts does) and fake services whose release never ends.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { fake } from '../../support/fake-electron'

vi.mock('electron', async () => (await import('../../support/fake-electron')).fakeElectronModule())

/** Fake services: `releases/run` stays running for as long as the test lasts. */
const services = vi.hoisted(() => ({
  listener: null as null | ((name: string, payload: unknown) => void),
  dispatched: [] as string[]
}))
vi.mock('../../../src-main/services', async () => ({
  FileHandles: (await import('../../../src-main/services/platform/file-handles')).FileHandles,
  writeAtomically: (await import('../../../src-main/services/reports/build-report')).writeAtomically,
  checkRequest: (await import('../../../src-main/services/app/request-check')).checkRequest,
  createServices: () => ({
    context: { files: null, store: { path: '/fake/workspace.sqlite' } },
    dispatch: (method: string) => {
      services.dispatched.push(method)
      return method === 'releases/run' ? new Promise(() => undefined) : Promise.resolve({ ok: true, value: method })
    },
    events: {
      on: (l: (name: string, payload: unknown) => void) => {
        services.listener = l
        return () => undefined
      }
    },
    close: async () => undefined
  })
}))
vi.mock('../../../src-main/electron/pdf-printer', () => ({ createElectronPdfPrinter: () => ({ name: 'fake', print: async () => new Uint8Array() }) }))

const tick = () => new Promise((r) => setImmediate(r))

beforeEach(() => {
  vi.resetModules()
  fake.windows.length = 0
  fake.appListeners.clear()
  fake.ipcHandlers.clear()
})

describe('desktop shell (the workbench) while a release runs', () => {
  it('sends services events at once and in order, and answers other calls', async () => {
    fake.isPackaged = true
    await import('../../../src-main/electron/main')
    fake.ready!()
    await tick()
    const send = fake.windows[0].webContents.send
    const frame = { url: 'app://quiet-alarm/index.html' }
    fake.windows[0].webContents.mainFrame = frame
    const ipc = (method: string, req: unknown) => fake.ipcHandlers.get('quiet-alarm:call')!({ senderFrame: frame }, method, req) as Promise<unknown>
    let released = false
    void ipc('releases/run', { queryId: 1, params: { kind: 'threshold', mechanism: 'tslm', beta: 0.05, alpha: 1 } }).then(() => (released = true))
    await tick()
    expect(services.dispatched).toEqual(['releases/run'])
    services.listener!('job/progress', { n: 1 })
    services.listener!('job/progress', { n: 2 })
    // Sent synchronously with the emit: no hold, no reordering.
    expect(send.mock.calls.map((c) => (c[2] as { n: number }).n)).toEqual([1, 2])
    expect(await ipc('datasets/list', {})).toEqual({ ok: true, value: 'datasets/list' })
    services.listener!('job/progress', { n: 3 })
    expect(send.mock.calls.map((c) => (c[2] as { n: number }).n)).toEqual([1, 2, 3])
    expect(released).toBe(false)
  })
})
