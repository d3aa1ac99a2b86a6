/**
 * The Electron shell's security settings, as plain data and functions (unit-tested with a stand-in for `electron`,
 * test/unit/electron-shell.test.ts; Electron itself cannot be launched on our machines):
 * - the page is served from a custom `app://quiet-alarm/` protocol (never file://) with a strict CSP header on every
 *   response, and only files of the built renderer folder;
 * - the dev server URL (ELECTRON_RENDERER_URL) is honoured only in a development build, only for a loopback http URL,
 *   and pages are matched by exact origin (so `http://localhost:5173.evil.com` is not ours);
 * - every permission check and request is denied.
 */
import type { Session } from 'electron'
import { readStaticFile, rendererFileFor } from '../door/static-files'

export const APP_SCHEME = 'app'
export const APP_HOST = 'quiet-alarm'
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`
export const APP_INDEX_URL = `${APP_ORIGIN}/index.html`

/**
 * The desktop page's Content-Security-Policy, sent as a header with every `app://` response: scripts and styles of the
 * bundle only, no network at all (the renderer talks to the services over IPC), no plugins, no forms, no framing.
 */
export const DESKTOP_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self'; " +
  "connect-src 'none'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

/** Privileges of the `app` scheme (registered before the app is ready). No fetch/CORS/service-worker privileges. */
export const APP_SCHEME_PRIVILEGES = {
  standard: true,
  secure: true,
  supportFetchAPI: false,
  corsEnabled: false,
  allowServiceWorkers: false,
  stream: false
}

/** The main window's options: the renderer is a sandboxed page without Node, isolated from the preload. */
export function windowOptions(preloadPath: string) {
  return {
    width: 1280,
    height: 800,
    minWidth: 960,
    minHeight: 640,
    title: 'Quiet Alarm',
    show: false,
    webPreferences: {
      preload: preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      spellcheck: false
    }
  } as const
}

export interface RendererSource {
  kind: 'app' | 'dev'
  /** What the window loads. */
  url: string
  /** The only origin whose pages are ours (navigation, IPC). */
  origin: string
}

/**
 * Where the page comes from. The dev server URL counts only in a development build (never in the packaged app or a
 * production build run with the variable set), and only as a loopback http origin with nothing after it.
 */
export function rendererSource(options: { devBuild: boolean; devUrl?: string }): RendererSource {
  const app: RendererSource = { kind: 'app', url: APP_INDEX_URL, origin: APP_ORIGIN }
  if (!options.devBuild || !options.devUrl) return app
  let u: URL
  try {
    u = new URL(options.devUrl)
  } catch {
    return app
  }
  const loopback = u.hostname === 'localhost' || u.hostname === '127.0.0.1' || u.hostname === '[::1]'
  if (u.protocol !== 'http:' || !loopback || u.username !== '' || u.password !== '') return app
  return { kind: 'dev', url: `${u.origin}/`, origin: u.origin }
}

/** Exact origin equality (a prefix or a longer host name is not ours; an unparsable URL is not ours). */
export function isOurPage(url: string, source: RendererSource): boolean {
  try {
    const u = new URL(url)
    if (source.kind === 'app') return u.protocol === `${APP_SCHEME}:` && u.host === APP_HOST
    return u.origin === source.origin
  } catch {
    return false
  }
}

/** The file of the renderer folder an `app://quiet-alarm/...` URL names, or null (another host, outside the folder). */
export function appFileFor(url: string, rendererDir: string): string | null {
  let u: URL
  try {
    u = new URL(url)
  } catch {
    return null
  }
  if (u.protocol !== `${APP_SCHEME}:` || u.host !== APP_HOST) return null
  const file = rendererFileFor(u.pathname, rendererDir)
  return file === 'undecodable' || file === 'outside' ? null : file
}

/** The `app://` protocol handler: the renderer's files with the CSP header, 404 for anything else. */
export function appProtocolHandler(rendererDir: string): (request: Request) => Promise<Response> {
  return async (request) => {
    const headers = {
      'Content-Security-Policy': DESKTOP_CSP,
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'no-store'
    }
    const file = request.method === 'GET' ? appFileFor(request.url, rendererDir) : null
    const found = file ? await readStaticFile(file) : null
    if (!found) return new Response('Not found', { status: 404, headers })
    return new Response(new Uint8Array(found.body), { status: 200, headers: { ...headers, 'Content-Type': found.contentType } })
  }
}

/** The part of Electron's Session the shell configures. */
export type PermissionSession = Pick<Session, 'setPermissionCheckHandler' | 'setPermissionRequestHandler' | 'setDevicePermissionHandler'>

/** Quiet Alarm needs no permission (camera, notifications, clipboard, HID...): every check and request is denied. */
export function denyAllPermissions(session: PermissionSession): void {
  session.setPermissionCheckHandler(() => false)
  session.setPermissionRequestHandler((_wc, _permission, callback) => callback(false))
  session.setDevicePermissionHandler(() => false)
}
