import { existsSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { WorkerScript } from './worker-pool'

/**
 * The worker entry for the running build: the bundled `out/main/worker.js` next to the built services, or the
 * TypeScript source through tsx when the services themselves run from source (tests, `tsx src-main/cli.ts`).
 */
export function resolveWorkerScript(env: NodeJS.ProcessEnv = process.env): WorkerScript {
  const here = fileURLToPath(import.meta.url)
  if (here.endsWith('.ts')) {
    const root = resolve(dirname(here), '..', '..', '..')
    return { path: join(root, 'src-worker', 'worker-from-source.cjs'), execArgv: [], env }
  }
  for (const candidate of [join(dirname(here), 'worker.js'), join(dirname(here), '..', 'worker.js')]) {
    if (existsSync(candidate)) return { path: candidate, execArgv: [], env }
  }
  throw new Error(`The worker bundle (worker.js) was not found next to ${here}; run "npm run build"`)
}

/** The project root (for the Electron native module lookup): the folder holding package.json above this file. */
export function projectRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url))
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, 'package.json'))) return dir
    dir = dirname(dir)
  }
  return process.cwd()
}
