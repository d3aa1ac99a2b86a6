/**
 * The Electron shell: app lifecycle, one window, IPC registration. Thin: everything else is in services.
 * Security (settings in shell-options.ts, unit-tested with a stand-in for `electron`): contextIsolation, sandbox, no
 * Node in the page; the page comes from the `app://quiet-alarm/` protocol with a strict CSP header (never file://);
 * the dev server URL only in a development build and matched by exact origin; navigation and window.open denied;
 * every permission check and request denied; IPC accepted only from our own page.
 * Files: the native open dialog registers the chosen file under an opaque handle and reports are saved through the
 * native save dialog, both here in the main process: no contract method takes a path (issue 15).
 */
import { app, BrowserWindow, dialog, ipcMain, protocol, session, type IpcMainInvokeEvent } from 'electron'
import { join } from 'node:path'
import type { CallOutcome, ChooseFileRequest, FileHandle } from '../contract'
import { FileHandles, createServices, writeAtomically, type Services } from '../services'
import { callDoor, forwardEvents } from '../door/calls'
import { IPC_CALL, IPC_EVENT } from './ipc-channels'
import { createElectronPdfPrinter } from './pdf-printer'
import { APP_SCHEME, APP_SCHEME_PRIVILEGES, appProtocolHandler, denyAllPermissions, isOurPage, rendererSource, windowOptions } from './shell-options'

let services: Services | null = null
let mainWindow: BrowserWindow | null = null

/** `--db PATH` on the command line, else QUIET_ALARM_DB, else the default workspace. */
function workspaceArg(argv = process.argv): string | undefined {
  const i = argv.indexOf('--db')
  if (i >= 0 && argv[i + 1]) return argv[i + 1]
  const eq = argv.find((a) => a.startsWith('--db='))
  return eq ? eq.slice(5) : process.env.QUIET_ALARM_DB
}

/** A development build (`electron-vite dev`); `npm start` and packaged apps are production builds. */
const DEV_BUILD = (import.meta as ImportMeta & { env?: { DEV?: boolean } }).env?.DEV === true && !app.isPackaged
const rendererDir = join(__dirname, '../renderer')
const source = rendererSource({ devBuild: DEV_BUILD, devUrl: process.env.ELECTRON_RENDERER_URL })

function trustedSender(e: IpcMainInvokeEvent): boolean {
  const frame = e.senderFrame
  return !!frame && frame === mainWindow?.webContents.mainFrame && isOurPage(frame.url, source)
}

function createWindow(): void {
  mainWindow = new BrowserWindow(windowOptions(join(__dirname, '../preload/index.js')))
  mainWindow.once('ready-to-show', () => mainWindow?.show())
  mainWindow.on('closed', () => {
    mainWindow = null
  })
  void mainWindow.loadURL(source.url)
}

type Outcome<T> = CallOutcome<T>

/** `app/choose-file`: the native open dialog; the renderer gets an opaque handle, never the path. */
async function chooseFile(req: unknown): Promise<Outcome<{ file: FileHandle | null }>> {
  if (!mainWindow) return { ok: false, error: { message: 'There is no window to show the file dialog in.', code: 'no-window' } }
  if (!services) return { ok: false, error: { message: 'The workspace is not open.', code: 'store' } }
  const r = (req ?? {}) as ChooseFileRequest
  const filters = Array.isArray(r.filters)
    ? r.filters
        .filter((f) => f && typeof f.name === 'string' && Array.isArray(f.extensions))
        .map((f) => ({ name: f.name.slice(0, 80), extensions: f.extensions.filter((x) => typeof x === 'string').map((x) => x.slice(0, 16)) }))
    : []
  const out = await dialog.showOpenDialog(mainWindow, {
    title: typeof r.title === 'string' ? r.title.slice(0, 120) : 'Choose a file',
    properties: ['openFile'],
    filters: [...filters, { name: 'All files', extensions: ['*'] }]
  })
  if (out.canceled || out.filePaths.length === 0) return { ok: true, value: { file: null } }
  try {
    const files = (services.context.files ??= new FileHandles())
    return { ok: true, value: { file: files.register(out.filePaths[0]) } }
  } catch (e) {
    return { ok: false, error: { message: (e as Error).message, code: 'bad-input' } }
  }
}

/** `reports/save`: the native save dialog; the file a finished export produced is written where the user chose. */
async function saveReport(req: unknown): Promise<Outcome<{ saved: boolean; fileName: string }>> {
  if (!mainWindow) return { ok: false, error: { message: 'There is no window to show the save dialog in.', code: 'no-window' } }
  if (!services) return { ok: false, error: { message: 'The workspace is not open.', code: 'store' } }
  const jobId = (req as { jobId?: unknown } | null)?.jobId
  const dl = await services.dispatch('reports/download', { jobId })
  if (!dl.ok) return dl
  const file = dl.value as { fileName: string; base64: string }
  const out = await dialog.showSaveDialog(mainWindow, { title: 'Save the report', defaultPath: join(app.getPath('downloads'), file.fileName) })
  if (out.canceled || !out.filePath) return { ok: true, value: { saved: false, fileName: file.fileName } }
  try {
    writeAtomically(out.filePath, Buffer.from(file.base64, 'base64'))
  } catch (e) {
    return { ok: false, error: { message: (e as Error).message, code: 'bad-output' } }
  }
  return { ok: true, value: { saved: true, fileName: file.fileName } }
}

// Before ready: the scheme the page is served from.
protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: APP_SCHEME_PRIVILEGES }])
app.enableSandbox()

app.on('web-contents-created', (_e, contents) => {
  contents.setWindowOpenHandler(() => ({ action: 'deny' }))
  contents.on('will-navigate', (ev, url) => {
    if (!isOurPage(url, source)) ev.preventDefault()
  })
  contents.on('will-redirect', (ev, url) => {
    if (!isOurPage(url, source)) ev.preventDefault()
  })
  contents.on('will-attach-webview', (ev) => ev.preventDefault())
})

void app.whenReady().then(() => {
  denyAllPermissions(session.defaultSession)
  protocol.handle(APP_SCHEME, appProtocolHandler(rendererDir))
  try {
    services = createServices({ mode: 'desktop', dbPath: workspaceArg(), pdfPrinter: createElectronPdfPrinter() })
  } catch (e) {
    // The window still opens and shows the reason (e.g. a workspace from a newer version).
    process.stderr.write(`Quiet Alarm could not open its workspace: ${(e as Error).message}\n`)
  }
  const call = callDoor({
    services: () => services,
    unavailable: 'The workspace could not be opened; see the terminal for the reason.',
    local: { 'app/choose-file': chooseFile, 'reports/save': saveReport }
  })
  ipcMain.handle(IPC_CALL, async (e, method: unknown, req: unknown): Promise<CallOutcome<unknown>> => {
    if (!trustedSender(e)) return { ok: false, error: { message: 'Refused: not the Quiet Alarm window', code: 'forbidden' } }
    return call(method, req)
  })
  // The desktop is the workbench: events go to the window at once, in the order the services emitted them.
  if (services) forwardEvents(services, (name, payload) => mainWindow?.webContents.send(IPC_EVENT, name, payload))
  createWindow()
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) createWindow()
  })
})

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit()
})

app.on('will-quit', (e) => {
  if (!services) return
  e.preventDefault()
  const s = services
  services = null
  void s.close().finally(() => app.quit())
})
