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
import { tmpdir } from 'node:os'

type Listener = (...args: unknown[]) => unknown

/** The fake `electron`: records what the shell asks for. */
const fake = vi.hoisted(() => {
  const state = {
    isPackaged: true,
    appListeners: new Map<string, Listener[]>(),
    windows: [] as Array<{
      options: Record<string, unknown>
      loadURL: ReturnType<typeof vi.fn>
      loadFile: ReturnType<typeof vi.fn>
      webContents: { mainFrame: { url: string }; send: ReturnType<typeof vi.fn> }
    }>,
    ipcHandlers: new Map<string, Listener>(),
    privileged: [] as unknown[],
    protocolHandlers: new Map<string, (r: Request) => Promise<Response>>(),
    session: {
      check: null as null | Listener,
      request: null as null | Listener,
      device: null as null | Listener
    },
    openDialog: null as null | (() => Promise<{ canceled: boolean; filePaths: string[] }>),
    saveDialog: null as null | (() => Promise<{ canceled: boolean; filePath?: string }>),
    ready: null as null | (() => void),
    exposed: new Map<string, unknown>(),
    invoked: [] as unknown[][]
  }
  return state
})

vi.mock('electron', () => {
  class BrowserWindow {
    static getAllWindows = () => fake.windows
    options: Record<string, unknown>
    loadURL = vi.fn(async () => undefined)
    loadFile = vi.fn(async () => undefined)
    webContents = { mainFrame: { url: '' }, send: vi.fn() }
    constructor(options: Record<string, unknown>) {
      this.options = options
      fake.windows.push(this as never)
    }
    once() {}
    on() {}
    isDestroyed() {
      return false
    }
  }
  const app = {
    get isPackaged() {
      return fake.isPackaged
    },
    enableSandbox: vi.fn(),
    on: (name: string, l: Listener) => {
      fake.appListeners.set(name, [...(fake.appListeners.get(name) ?? []), l])
    },
    whenReady: () => new Promise<void>((r) => (fake.ready = r)),
    getPath: () => tmpdir(),
    quit: vi.fn()
  }
  return {
    app,
    BrowserWindow,
    contextBridge: { exposeInMainWorld: (key: string, api: unknown) => fake.exposed.set(key, api) },
    ipcRenderer: {
      invoke: (...args: unknown[]) => {
        fake.invoked.push(args)
        return Promise.resolve({ ok: true, value: null })
      },
      on: () => undefined,
      removeListener: () => undefined
    },
    dialog: {
      showOpenDialog: () => fake.openDialog!(),
      showSaveDialog: () => fake.saveDialog!()
    },
    ipcMain: { handle: (ch: string, l: Listener) => fake.ipcHandlers.set(ch, l) },
    protocol: {
      registerSchemesAsPrivileged: (s: unknown[]) => fake.privileged.push(...s),
      handle: (scheme: string, h: (r: Request) => Promise<Response>) => fake.protocolHandlers.set(scheme, h)
    },
    session: {
      defaultSession: {
        setPermissionCheckHandler: (h: Listener) => (fake.session.check = h),
        setPermissionRequestHandler: (h: Listener) => (fake.session.request = h),
        setDevicePermissionHandler: (h: Listener) => (fake.session.device = h)
      }
    }
  }
})

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
  FileHandles: (await import('../../../src-main/services/app/file-handles')).FileHandles,
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
