/**
 * Attack (H10 review of b98c057, the padded answer time held at the doors): the HTTP server holds its event frames until
 * a running release's padded answer time (server.ts `writeHeld`), but the desktop shell forwarded every services event
 * to the renderer at once. A release's data read (its aggregate over the private rows, on the services' thread) is
 * data-dependent work; an analyst who keeps a public sweep running gets a progress event every few hundred ms, and the
 * first one after a release starts arrives when the read ends: its duration to the millisecond, in the renderer.
 * Now the shell holds events as the server does (`afterPaddedAnswers`). Electron cannot be launched here: this loads
 * the real src-main/electron/main.ts against a fake `electron` (as test/unit/electron-shell.test.ts does) and fake
 * services whose release is still within its padded time.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { fake } from '../../support/fake-electron'

vi.mock('electron', async () => (await import('../../support/fake-electron')).fakeElectronModule())

/** Fake services: a release is running (its padded answer time not reached) until `releaseDone` is called. */
const services = vi.hoisted(() => {
  let resolveHeld: () => void = () => undefined
  let held: Promise<void> = Promise.resolve()
  return {
    listener: null as null | ((name: string, payload: unknown) => void),
    hold() {
      held = new Promise<void>((r) => (resolveHeld = r))
    },
    releaseDone: () => resolveHeld(),
    afterPaddedAnswers: () => held
  }
})
vi.mock('../../../src-main/services', async () => ({
  FileHandles: (await import('../../../src-main/services/platform/file-handles')).FileHandles,
  writeAtomically: (await import('../../../src-main/services/reports/build-report')).writeAtomically,
  checkRequest: (await import('../../../src-main/services/app/request-check')).checkRequest,
  afterPaddedAnswers: () => services.afterPaddedAnswers(),
  createServices: () => ({
    context: { files: null },
    dispatch: async () => ({ ok: true, value: null }),
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

describe('desktop shell: services events during a release', () => {
  it("are not sent to the renderer before the release's padded answer time, then in order", async () => {
    fake.isPackaged = true
    await import('../../../src-main/electron/main')
    fake.ready!()
    await tick()
    const send = fake.windows[0].webContents.send
    expect(services.listener).not.toBeNull()
    services.listener!('jobs/progress', { n: 1 })
    await tick()
    expect(send).toHaveBeenCalledTimes(1) // nothing running: at once
    services.hold() // a release's read has ended, its padded answer time is still ahead
    services.listener!('jobs/progress', { n: 2 })
    services.listener!('jobs/progress', { n: 3 })
    for (let i = 0; i < 5; i++) await tick()
    expect(send).toHaveBeenCalledTimes(1)
    services.releaseDone()
    for (let i = 0; i < 5; i++) await tick()
    expect(send).toHaveBeenCalledTimes(3)
    expect(send.mock.calls.map((c) => (c[2] as { n: number }).n)).toEqual([1, 2, 3])
  })
})
