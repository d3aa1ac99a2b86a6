/**
 * Files the app ships in `resources/` (the papers' workloads, the NAB series, the sample), found beside the app's own
 * code, never relative to the folder it was started from. A spec names one as `bundled:<path under resources>`; every
 * other path is the user's, relative to the working folder.
 */
import { existsSync } from 'node:fs'
import { dirname, isAbsolute, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { UserError } from './errors'

export const BUNDLED_PREFIX = 'bundled:'

let cached: string | null = null

/** The app's `resources/` folder: the nearest one above this module beside a package.json (source, build or install). */
export function resourcesDir(): string {
  if (cached) return cached
  const here = dirname(fileURLToPath(import.meta.url))
  for (let dir = here, i = 0; i < 8; i++, dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'resources'))) return (cached = join(dir, 'resources'))
  }
  throw new UserError(`The app's bundled files (resources/) were not found above ${here}; reinstall the app.`)
}

export function isBundled(path: string): boolean {
  return path.startsWith(BUNDLED_PREFIX)
}

/** A spec's path as a file: `bundled:x` under resources/ (and nowhere else), anything else relative to `cwd`. */
export function resolveDataPath(path: string, cwd: string): string {
  if (!isBundled(path)) return resolve(cwd, path)
  const inner = path.slice(BUNDLED_PREFIX.length).replace(/^\/+/, '')
  const root = resourcesDir()
  const abs = resolve(root, inner)
  const rel = relative(root, abs)
  if (inner === '' || rel.startsWith('..') || isAbsolute(rel)) {
    throw new UserError(`"${path.slice(0, 120)}" is not a bundled file: a bundled path names a file under the app's resources folder.`)
  }
  return abs
}
