/**
 * A stand-in for the `electron` module (Electron itself cannot be launched on our machines: ELECTRON_SKIP_BINARY_DOWNLOAD).
 * Tests load the real src-main/electron/main.ts against it and read what the shell asked Electron to do from `fake`:
 *
 *   vi.mock('electron', async () => (await import('../support/fake-electron')).fakeElectronModule())
 *   import { fake } from '../support/fake-electron'
 */
import { vi } from 'vitest'
import { tmpdir } from 'node:os'

export type Listener = (...args: unknown[]) => unknown

/** The fake `electron`: records what the shell asks for. */
function newState() {
  return {
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
}

/** One state for every copy of this module: a test that resets its modules re-imports main.ts, and the factory's fresh
 * import of this file must record into the same object the test reads. */
const shared = globalThis as typeof globalThis & { __qaFakeElectron?: ReturnType<typeof newState> }
export const fake = (shared.__qaFakeElectron ??= newState())

export function fakeElectronModule() {
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
}
