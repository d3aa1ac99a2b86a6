/**
 * The Electron shell: app lifecycle, one window, IPC registration. Thin: everything else is in services.
 * Security (settings in shell-options.ts, unit-tested with a stand-in for `electron`): contextIsolation, sandbox, no
 * Node in the page; the page comes from the `app://quiet-alarm/` protocol with a strict CSP header (never file://);
 * the dev server URL only in a development build and matched by exact origin; navigation and window.open denied;
 * every permission check and request denied; IPC accepted only from our own page.
 * What the window works on (a workspace file, or a service as an account) and the calls that need a native dialog
 * (open a workspace, choose a file, save a report) are connection.ts's; the paths the dialogs give stay in the main
 * process: no contract method takes a path.
 */
import { app, BrowserWindow, dialog, ipcMain, protocol, session, type IpcMainInvokeEvent } from 'electron'
import { join } from 'node:path'
import type { CallOutcome } from '../contract'
import { createServices } from '../services'
import { DesktopConnection, type DesktopDialogs } from './connection'
import { IPC_CALL, IPC_EVENT } from './ipc-channels'
import { createElectronPdfPrinter } from './pdf-printer'
import { APP_SCHEME, APP_SCHEME_PRIVILEGES, appProtocolHandler, denyAllPermissions, isOurPage, rendererSource, windowOptions } from './shell-options'

let connection: DesktopConnection | null = null
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

/** The native dialogs (the connection asks for paths through them; the renderer never sees one). */
const dialogs: DesktopDialogs = {
  async chooseWorkspace(create) {
    if (!mainWindow) return null
    if (create) {
      const out = await dialog.showSaveDialog(mainWindow, {
        title: 'Create a workspace',
        defaultPath: join(app.getPath('documents'), 'quiet-alarm.sqlite'),
        filters: [{ name: 'Quiet Alarm workspace', extensions: ['sqlite'] }]
      })
      return out.canceled || !out.filePath ? null : out.filePath
    }
    const out = await dialog.showOpenDialog(mainWindow, {
      title: 'Open a workspace',
      properties: ['openFile'],
      filters: [
        { name: 'Quiet Alarm workspace', extensions: ['sqlite', 'db'] },
        { name: 'All files', extensions: ['*'] }
      ]
    })
    return out.canceled || out.filePaths.length === 0 ? null : out.filePaths[0]
  },
  async chooseFile(r) {
    if (!mainWindow) return null
    const out = await dialog.showOpenDialog(mainWindow, {
      title: r.title ?? 'Choose a file',
      properties: ['openFile'],
      filters: [...(r.filters ?? []), { name: 'All files', extensions: ['*'] }]
    })
    return out.canceled || out.filePaths.length === 0 ? null : out.filePaths[0]
  },
  async chooseSavePath(fileName) {
    if (!mainWindow) return null
    const out = await dialog.showSaveDialog(mainWindow, { title: 'Save the report', defaultPath: join(app.getPath('downloads'), fileName) })
    return out.canceled || !out.filePath ? null : out.filePath
  }
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
  // The workbench's workspace (or none, with the reason: the window still opens and offers to open another or connect to
  // a service); events go to the window at once, in the order the services (or the service's stream) sent them.
  const c = new DesktopConnection({
    openServices: (dbPath) => createServices({ mode: 'desktop', dbPath, pdfPrinter: createElectronPdfPrinter(), watch: true }),
    dialogs,
    deliver: (name, payload) => mainWindow?.webContents.send(IPC_EVENT, name, payload)
  })
  connection = c
  const opened = c.openWorkspace(workspaceArg())
  if (!opened.ok) process.stderr.write(`Quiet Alarm could not open its workspace: ${opened.error.message}\n`)
  ipcMain.handle(IPC_CALL, async (e, method: unknown, req: unknown): Promise<CallOutcome<unknown>> => {
    if (!trustedSender(e)) return { ok: false, error: { message: 'Refused: not the Quiet Alarm window', code: 'forbidden' } }
    return c.call(method, req)
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
  if (!connection) return
  e.preventDefault()
  const c = connection
  connection = null
  void c.close().finally(() => app.quit())
})
