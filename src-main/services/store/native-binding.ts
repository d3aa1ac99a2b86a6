/**
 * Where better-sqlite3's native module comes from.
 *
 * Node (tests, CLI, headless) uses the module npm built in node_modules/better-sqlite3 for Node's ABI.
 * Electron has another ABI: `resources/scripts/ensure-native.mjs electron` (run by `npm start` / `npm run dev`) builds a
 * copy for Electron once, into `node_modules/.quiet-alarm-native/electron-<abi>/better_sqlite3.node`, only when it is
 * missing. At run time we pick the file matching the running ABI (`process.versions.modules`), so neither runtime ever
 * needs the other's rebuild and switching between them costs nothing.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'

export function electronNativeBindingPath(projectRoot: string, abi = process.versions.modules): string {
  return join(projectRoot, 'node_modules', '.quiet-alarm-native', `electron-${abi}`, 'better_sqlite3.node')
}

/** The nativeBinding option for better-sqlite3, or undefined to use its default (Node's build). */
export function nativeBindingFor(projectRoot: string | undefined): string | undefined {
  if (!process.versions.electron || !projectRoot) return undefined
  const p = electronNativeBindingPath(projectRoot)
  return existsSync(p) ? p : undefined
}
