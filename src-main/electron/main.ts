/**
 * The Electron shell: app lifecycle, one window, IPC registration. Thin: everything else is in services.
 * Security defaults: contextIsolation, sandbox, no nodeIntegration, CSP (index.html), navigation and window.open denied,
 * permission requests refused, IPC accepted only from our own page.
 */
import { app, BrowserWindow, dialog, ipcMain, session, type IpcMainInvokeEvent } from 'electron'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { ChooseFileRequest } from '../contract'
import { createServices, type Services } from '../services'
import { IPC_CALL, IPC_EVENT } from './ipc-channels'
import { createElectronPdfPrinter } from './pdf-printer'

let services: Services | null = null
let mainWindow: BrowserWindow | null = null

/** `--db PATH` on the command line, else QUIET_ALARM_DB, else the default workspace. */
function workspaceArg(argv = process.argv): string | undefined {
  const i = argv.indexOf('--db')
  if (i >= 0 && argv[i + 1]) return argv[i + 1]
  const eq = argv.find((a) => a.startsWith('--db='))
  return eq ? eq.slice(5) : process.env.QUIET_ALARM_DB
}

const rendererIndex = join(__dirname, '../renderer/index.html')
const devUrl = process.env.ELECTRON_RENDERER_URL

function isOurPage(url: string): boolean {
  if (devUrl && url.startsWith(devUrl)) return true
  return url.startsWith(pathToFileURL(rendererIndex).href)
}

function trustedSender(e: IpcMainInvokeEvent): boolean {
  const frame = e.senderFrame
  return !!frame && frame === mainWindow?.webContents.mainFrame && isOurPage(frame.url)
}

function createWindow(): void {
  mainWindow = new BrowserWindow({
    width: 1280,
    height: 800,
    minWidth: 960,
    minHeight: 640,
    title: 'Quiet Alarm',
    show: false,
    webPreferences: {
      preload: join(__dirname, '../preload/index.js'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webviewTag: false,
      spellcheck: false
    }
  })
  mainWindow.once('ready-to-show', () => mainWindow?.show())
  mainWindow.on('closed', () => {
    mainWindow = null
  })
  if (devUrl) void mainWindow.loadURL(devUrl)
  else void mainWindow.loadFile(rendererIndex)
}

/** `app/choose-file`: the native open dialog (only the shell can show one); the renderer gets a path, never file access. */
async function chooseFile(req: unknown): Promise<{ ok: true; value: { path: string | null } } | { ok: false; error: { message: string; code: string } }> {
  if (!mainWindow) return { ok: false, error: { message: 'There is no window to show the file dialog in.', code: 'no-window' } }
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
  return { ok: true, value: { path: out.canceled || out.filePaths.length === 0 ? null : out.filePaths[0] } }
}

app.enableSandbox()

app.on('web-contents-created', (_e, contents) => {
  contents.setWindowOpenHandler(() => ({ action: 'deny' }))
  contents.on('will-navigate', (ev, url) => {
    if (!isOurPage(url)) ev.preventDefault()
  })
  contents.on('will-redirect', (ev, url) => {
    if (!isOurPage(url)) ev.preventDefault()
  })
  contents.on('will-attach-webview', (ev) => ev.preventDefault())
})

app.whenReady().then(() => {
  session.defaultSession.setPermissionRequestHandler((_wc, _perm, cb) => cb(false))
  try {
    services = createServices({ mode: 'desktop', dbPath: workspaceArg(), pdfPrinter: createElectronPdfPrinter() })
  } catch (e) {
    // The window still opens and shows the reason (e.g. a workspace from a newer version).
    process.stderr.write(`Quiet Alarm could not open its workspace: ${(e as Error).message}\n`)
  }
  const startError = services ? null : 'The workspace could not be opened; see the terminal for the reason.'
  ipcMain.handle(IPC_CALL, async (e, method: unknown, req: unknown) => {
    if (!trustedSender(e)) return { ok: false, error: { message: 'Refused: not the Quiet Alarm window', code: 'forbidden' } }
    if (method === 'app/choose-file') return chooseFile(req)
    if (!services) return { ok: false, error: { message: startError, code: 'store' } }
    return services.dispatch(method, req)
  })
  services?.events.on((name, payload) => {
    mainWindow?.webContents.send(IPC_EVENT, name, payload)
  })
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
