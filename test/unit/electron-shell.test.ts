/**
 * The Electron shell's window, session and protocol settings, with a stand-in for the `electron` module:
 * Electron itself cannot be launched on our machines (ELECTRON_SKIP_BINARY_DOWNLOAD), so these tests load the real
 * src-main/electron/main.ts against a fake `electron` and fake services and check what it asked Electron to do.
 * Attempts: a page from file://, the dev URL in a production build, `http://localhost:5173.evil.com` as "our" page,
 * a permission request, a path through IPC, a foreign frame calling IPC.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { type Listener, fake } from '../support/fake-electron'
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  APP_INDEX_URL,
  DESKTOP_CSP,
  appFileFor,
  appProtocolHandler,
  denyAllPermissions,
  isOurPage,
  rendererSource,
  windowOptions
} from '../../src-main/electron/shell-options'
import { FileHandles } from '../../src-main/services/platform/file-handles'

vi.mock('electron', async () => (await import('../support/fake-electron')).fakeElectronModule())

/**
 * Fake services: the shell's own calls are what is under test. Their dispatch checks the request as the real one does
 * (the real checkRequest) before a stand-in handler, which records what reached the services' handlers.
 */
const services = vi.hoisted(() => {
  const handler = vi.fn(async (method: unknown, _req: unknown): Promise<unknown> => ({ ok: true, value: { method } }))
  const dispatch = async (method: unknown, req: unknown): Promise<unknown> => {
    const { checkRequest } = await import('../../src-main/services/app/request-check')
    const checked = checkRequest(method, req)
    return checked.ok ? handler(method, checked.req) : { ok: false, error: checked.error }
  }
  return { handler, dispatch, files: null as unknown }
})
vi.mock('../../src-main/services', async () => ({
  // What the shell takes from the services' public surface besides createServices: the real ones.
  FileHandles: (await import('../../src-main/services/platform/file-handles')).FileHandles,
  writeAtomically: (await import('../../src-main/services/reports/build-report')).writeAtomically,
  checkRequest: (await import('../../src-main/services/app/request-check')).checkRequest,
  credentialFromFileText: (await import('../../src-main/services/accounts/credentials')).credentialFromFileText,
  createServices: () => ({
    context: {
      store: { path: '/fake/workspace.sqlite' },
      get files() {
        return services.files
      },
      set files(f: unknown) {
        services.files = f
      }
    },
    dispatch: services.dispatch,
    events: { on: () => () => undefined },
    close: async () => undefined
  })
}))
vi.mock('../../src-main/electron/pdf-printer', () => ({ createElectronPdfPrinter: () => ({ name: 'fake', print: async () => new Uint8Array() }) }))

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'qa-shell-'))
  vi.resetModules()
  fake.windows.length = 0
  fake.appListeners.clear()
  fake.ipcHandlers.clear()
  fake.privileged.length = 0
  fake.protocolHandlers.clear()
  fake.session.check = fake.session.request = fake.session.device = null
  services.handler.mockClear()
  services.files = new FileHandles()
})
afterEach(() => {
  delete process.env.ELECTRON_RENDERER_URL
  rmSync(dir, { recursive: true, force: true })
})

/** Loads main.ts as Electron would run it, and lets `app.whenReady()` resolve. */
async function startShell(o: { packaged: boolean; devUrl?: string }) {
  fake.isPackaged = o.packaged
  if (o.devUrl !== undefined) process.env.ELECTRON_RENDERER_URL = o.devUrl
  await import('../../src-main/electron/main')
  fake.ready!()
  await new Promise((r) => setImmediate(r))
  const win = fake.windows[0]
  const contents = { handlers: new Map<string, Listener>(), openHandler: null as null | Listener }
  for (const l of fake.appListeners.get('web-contents-created') ?? []) {
    l(
      {},
      {
        setWindowOpenHandler: (h: Listener) => (contents.openHandler = h),
        on: (name: string, h: Listener) => contents.handlers.set(name, h)
      }
    )
  }
  const navigate = (url: string) => {
    const ev = { preventDefault: vi.fn() }
    contents.handlers.get('will-navigate')!(ev, url)
    return ev.preventDefault.mock.calls.length === 0
  }
  const ipc = (method: string, req: unknown, frameUrl = win.webContents.mainFrame.url, frame: unknown = win.webContents.mainFrame) => {
    win.webContents.mainFrame.url = frameUrl
    return fake.ipcHandlers.get('quiet-alarm:call')!({ senderFrame: frame }, method, req) as Promise<{
      ok: boolean
      value?: unknown
      error?: { code: string; message: string }
    }>
  }
  return { win, contents, navigate, ipc }
}

describe('the shell, loaded against a stand-in for electron', () => {
  it('serves the page from app:// (never file://) in a sandboxed, isolated window without Node', async () => {
    const { win } = await startShell({ packaged: true })
    expect(fake.privileged).toEqual([
      { scheme: 'app', privileges: expect.objectContaining({ standard: true, secure: true, supportFetchAPI: false }) }
    ])
    expect([...fake.protocolHandlers.keys()]).toEqual(['app'])
    expect(win.loadURL).toHaveBeenCalledWith(APP_INDEX_URL)
    expect(win.loadFile).not.toHaveBeenCalled()
    const prefs = win.options.webPreferences as Record<string, unknown>
    expect(prefs).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false
    })
    expect(String(prefs.preload)).toMatch(/preload[\\/]index\.js$/)
  })

  it('denies every permission check and request (camera, notifications, clipboard, devices)', async () => {
    await startShell({ packaged: true })
    for (const p of ['media', 'notifications', 'clipboard-read', 'geolocation', 'hid', 'fileSystem', 'openExternal']) {
      expect(fake.session.check!(null, p, APP_INDEX_URL, {}), p).toBe(false)
      const cb = vi.fn()
      fake.session.request!(null, p, cb, {})
      expect(cb, p).toHaveBeenCalledWith(false)
    }
    expect(fake.session.device!({ origin: 'app://quiet-alarm' })).toBe(false)
  })

  it('ignores ELECTRON_RENDERER_URL in a production build and refuses navigation away from app://', async () => {
    const { win, navigate, contents } = await startShell({ packaged: true, devUrl: 'http://localhost:5173' })
    expect(win.loadURL).toHaveBeenCalledWith(APP_INDEX_URL)
    expect(navigate('app://quiet-alarm/index.html#/ledger')).toBe(true)
    expect(navigate('http://localhost:5173/')).toBe(false)
    expect(navigate('file:///etc/passwd')).toBe(false)
    expect(navigate('app://evil/index.html')).toBe(false)
    expect(contents.openHandler!({ url: 'https://example.com' })).toEqual({ action: 'deny' })
  })

  it('honours the dev URL in a development build by exact origin: localhost:5173.evil.com is not ours', async () => {
    // Vitest runs this file as a development build (import.meta.env.DEV); the app is not packaged.
    const { win, navigate, ipc } = await startShell({ packaged: false, devUrl: 'http://localhost:5173' })
    expect(win.loadURL).toHaveBeenCalledWith('http://localhost:5173/')
    expect(navigate('http://localhost:5173/#/reports')).toBe(true)
    expect(navigate('http://localhost:5173.evil.com/')).toBe(false)
    expect(navigate('http://localhost:51730/')).toBe(false)
    expect(navigate('https://localhost:5173/')).toBe(false)
    expect((await ipc('app/status', {}, 'http://localhost:5173.evil.com/')).error?.code).toBe('forbidden')
    expect((await ipc('app/status', {}, 'http://localhost:5173/')).ok).toBe(true)
  })

  it('answers IPC only from its own window, and path parameters never reach a handler', async () => {
    const { ipc } = await startShell({ packaged: true })
    expect(await ipc('datasets/list', {}, APP_INDEX_URL)).toEqual({ ok: true, value: { method: 'datasets/list' } })
    expect((await ipc('datasets/list', {}, APP_INDEX_URL, { url: APP_INDEX_URL })).error?.code).toBe('forbidden')
    services.handler.mockClear()
    for (const [method, req] of [
      ['datasets/preview-file', { path: '/etc/shadow' }],
      ['reports/export', { format: 'pdf', outPath: '/home/user/.bashrc' }],
      ['datasets/import', { fileId: 'x', options: { file: '/etc/passwd' } }]
    ] as const) {
      const out = await ipc(method, req, APP_INDEX_URL)
      expect(out.error?.code, method).toBe('bad-input')
      expect(out.error?.message).toMatch(/never takes file paths/)
    }
    expect(services.handler).not.toHaveBeenCalled()
  })

  it('checks every request against its schema before any handler sees it', async () => {
    const { ipc } = await startShell({ packaged: true })
    services.handler.mockClear()
    for (const [method, req, sentence] of [
      ['datasets/rename', { datasetId: 1, name: 42 }, 'name must be text'],
      ['datasets/delete', { datasetId: 1, force: true }, 'The request has an unknown field "force"; remove it or check the spelling'],
      [
        'releases/run',
        { queryId: 1, params: { kind: 'threshold', mechanism: 'tslm', beta: 0.5, alpha: 1 } },
        'params.beta must be a number of at least 1e-12 and less than 0.5'
      ],
      ['datasets/rename', { datasetId: 1, name: 'x'.repeat(10_000) }, 'name must have at most 200 characters'],
      ['reports/save', { jobId: 7 }, 'jobId must be text'],
      ['app/choose-file', { title: 'Choose', multiple: true }, 'The request has an unknown field "multiple"; remove it or check the spelling']
    ] as const) {
      expect(await ipc(method, req, APP_INDEX_URL), method).toEqual({ ok: false, error: { message: sentence, code: 'bad-input' } })
    }
    expect(services.handler).not.toHaveBeenCalled()
    // A request that fits goes on as parsed; an absent one is read as {}.
    expect(await ipc('datasets/rename', { datasetId: 1, name: 'rooms' }, APP_INDEX_URL)).toEqual({ ok: true, value: { method: 'datasets/rename' } })
    expect(services.handler).toHaveBeenLastCalledWith('datasets/rename', { datasetId: 1, name: 'rooms' })
    await ipc('datasets/list', undefined, APP_INDEX_URL)
    expect(services.handler).toHaveBeenLastCalledWith('datasets/list', {})
  })

  it('chooses files in the native dialog and gives the page an opaque handle, never the path', async () => {
    const { ipc } = await startShell({ packaged: true })
    const file = join(dir, 'occupancy.csv')
    writeFileSync(file, 'a,b\n1,2\n')
    fake.openDialog = async () => ({ canceled: false, filePaths: [file] })
    const out = await ipc('app/choose-file', { title: 'Choose' }, APP_INDEX_URL)
    expect(out).toEqual({ ok: true, value: { file: { fileId: expect.stringMatching(/^[A-Za-z0-9_-]{24}$/), fileName: 'occupancy.csv', bytes: 8 } } })
    expect(JSON.stringify(out)).not.toContain(dir)
    const { fileId } = (out.value as { file: { fileId: string } }).file
    expect((services.files as FileHandles).resolve(fileId).path).toBe(file)
    fake.openDialog = async () => ({ canceled: true, filePaths: [] })
    expect(await ipc('app/choose-file', {}, APP_INDEX_URL)).toEqual({ ok: true, value: { file: null } })
  })

  it('saves a finished report through the native save dialog', async () => {
    const { ipc } = await startShell({ packaged: true })
    services.handler.mockImplementation(async (method: unknown) =>
      method === 'reports/download'
        ? { ok: true, value: { fileName: 'r.pdf', mimeType: 'application/pdf', bytes: 4, base64: Buffer.from('%PDF').toString('base64') } }
        : { ok: false, error: { message: 'no', code: 'x' } }
    )
    const target = join(dir, 'chosen.pdf')
    fake.saveDialog = async () => ({ canceled: false, filePath: target })
    expect(await ipc('reports/save', { jobId: 'j1' }, APP_INDEX_URL)).toEqual({ ok: true, value: { saved: true, fileName: 'r.pdf' } })
    expect(readFileSync(target, 'utf8')).toBe('%PDF')
    fake.saveDialog = async () => ({ canceled: true })
    expect(await ipc('reports/save', { jobId: 'j1' }, APP_INDEX_URL)).toEqual({ ok: true, value: { saved: false, fileName: 'r.pdf' } })
  })
})

describe('the preload', () => {
  it('exposes only call and onEvent, for contract methods, and refuses path parameters before IPC', async () => {
    fake.exposed.clear()
    fake.invoked.length = 0
    await import('../../src-main/electron/preload')
    expect([...fake.exposed.keys()]).toEqual(['quietAlarm'])
    const bridge = fake.exposed.get('quietAlarm') as {
      call(m: string, r: unknown): Promise<{ ok: boolean; error?: { code: string } }>
      onEvent: unknown
    }
    expect(Object.keys(bridge).sort()).toEqual(['call', 'onEvent'])
    expect((await bridge.call('fs/read', { path: '/etc/passwd' })).error?.code).toBe('unknown-method')
    expect((await bridge.call('datasets/preview-file', { path: '/etc/shadow' })).error?.code).toBe('bad-input')
    expect((await bridge.call('reports/export', { format: 'pdf', outPath: '/tmp/x.pdf' })).error?.code).toBe('bad-input')
    expect(fake.invoked).toEqual([])
    await bridge.call('datasets/preview-file', { fileId: 'abc' })
    expect(fake.invoked).toEqual([['quiet-alarm:call', 'datasets/preview-file', { fileId: 'abc' }]])
  })
})

describe('shell settings', () => {
  it('the dev URL counts only in a development build, only on loopback http, by exact origin', () => {
    expect(rendererSource({ devBuild: false, devUrl: 'http://localhost:5173' }).url).toBe(APP_INDEX_URL)
    expect(rendererSource({ devBuild: true, devUrl: 'http://localhost:5173' })).toEqual({
      kind: 'dev',
      url: 'http://localhost:5173/',
      origin: 'http://localhost:5173'
    })
    for (const bad of [
      'http://localhost:5173.evil.com',
      'http://localhost.evil.com:5173',
      'https://example.com',
      'file:///tmp/index.html',
      'http://user:pw@localhost:5173',
      'not a url'
    ]) {
      expect(rendererSource({ devBuild: true, devUrl: bad }).kind, bad).toBe('app')
    }
    const dev = rendererSource({ devBuild: true, devUrl: 'http://127.0.0.1:5173' })
    expect(isOurPage('http://127.0.0.1:5173/x', dev)).toBe(true)
    expect(isOurPage('http://127.0.0.1:5173.evil.com/', dev)).toBe(false)
    expect(isOurPage('http://127.0.0.1:51733/', dev)).toBe(false)
  })

  it('the app:// protocol serves the renderer folder only, always with the strict CSP header', async () => {
    const renderer = join(dir, 'renderer')
    mkdirSync(join(renderer, 'assets'), { recursive: true })
    writeFileSync(join(renderer, 'index.html'), '<!doctype html><title>ui</title>')
    writeFileSync(join(renderer, 'assets', 'a.js'), 'console.log(1)')
    writeFileSync(join(dir, 'secret.txt'), 'secret')
    const handle = appProtocolHandler(renderer)
    const index = await handle(new Request('app://quiet-alarm/'))
    expect(index.status).toBe(200)
    expect(await index.text()).toContain('<title>ui</title>')
    expect(index.headers.get('content-security-policy')).toBe(DESKTOP_CSP)
    expect(index.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect((await handle(new Request('app://quiet-alarm/assets/a.js'))).headers.get('content-type')).toMatch(/javascript/)
    for (const url of [
      'app://quiet-alarm/../secret.txt',
      'app://quiet-alarm/%2e%2e/secret.txt',
      'app://quiet-alarm/assets/..%2f..%2fsecret.txt',
      'app://other/index.html',
      'app://quiet-alarm/missing.js'
    ]) {
      const r = await handle(new Request(url))
      expect(r.status, url).toBe(404)
      expect(r.headers.get('content-security-policy')).toBe(DESKTOP_CSP)
    }
    // Encoded dot segments stay inside the renderer folder (there they name nothing).
    expect(appFileFor('app://quiet-alarm/assets/..%2f..%2fsecret.txt', renderer)).toBe(join(renderer, 'secret.txt'))
    expect(appFileFor('app://other/index.html', renderer)).toBeNull()
    expect(DESKTOP_CSP).toMatch(/default-src 'self'; script-src 'self';/)
    expect(DESKTOP_CSP).toMatch(/connect-src 'none'/)
    expect(DESKTOP_CSP).toMatch(/object-src 'none'/)
    expect(DESKTOP_CSP).toMatch(/frame-ancestors 'none'/)
    expect(DESKTOP_CSP).not.toMatch(/unsafe-eval|\*/)
  })

  it('window options and the permission handlers stand alone', () => {
    expect(windowOptions('/x/preload.js').webPreferences).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      preload: '/x/preload.js'
    })
    const s = { setPermissionCheckHandler: vi.fn(), setPermissionRequestHandler: vi.fn(), setDevicePermissionHandler: vi.fn() }
    denyAllPermissions(s as never)
    expect(s.setPermissionCheckHandler.mock.calls[0][0]()).toBe(false)
  })
})
