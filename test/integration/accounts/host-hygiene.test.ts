/**
 * The service's host hygiene as an attack: another user of the host reads the workspace file (0644 under a 0755 folder
 * was the default). A new workspace is created 0600 in a 0700 folder; a service does not start on a workspace, a WAL
 * or a folder other users can read, and says how to fix it; the workbench still opens such a file (it is the user's own).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { chmodSync, mkdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { createServices } from '../../../src-main/services'
import { openStore } from '../../../src-main/services/store/store'
import { workspaceExposure } from '../../../src-main/services/accounts/host-hygiene'
import { tempWorkspace } from '../helpers'

let ws: ReturnType<typeof tempWorkspace>
beforeEach(() => {
  ws = tempWorkspace()
})
afterEach(() => ws.cleanup())

const mode = (p: string) => statSync(p).mode & 0o777

describe('workspace permissions', () => {
  it('creates a new workspace 0600 in a new 0700 folder, whatever the umask', () => {
    const old = process.umask(0o022)
    try {
      const path = join(ws.dir, 'fresh', 'deeper', 'w.sqlite')
      openStore(path).close()
      expect(mode(path)).toBe(0o600)
      expect(mode(join(ws.dir, 'fresh', 'deeper'))).toBe(0o700)
      expect(mode(join(ws.dir, 'fresh'))).toBe(0o700)
      expect(workspaceExposure(path)).toBeNull()
    } finally {
      process.umask(old)
    }
  })

  it('refuses to serve a workspace other users can read, with the chmod that fixes it; then serves it once fixed', async () => {
    const folder = join(ws.dir, 'srv')
    mkdirSync(folder, { mode: 0o700 })
    const path = join(folder, 'w.sqlite')
    openStore(path).close()
    chmodSync(path, 0o644)
    expect(() => createServices({ mode: 'headless', deployment: 'service', dbPath: path, poolSize: 1 })).toThrow(
      new RegExp(
        `^Refusing to serve: .*file ${path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is 0644 .* chmod 600 '${path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}'`
      )
    )
    // The folder too.
    chmodSync(path, 0o600)
    chmodSync(folder, 0o755)
    expect(() => createServices({ mode: 'headless', deployment: 'service', dbPath: path, poolSize: 1 })).toThrow(/folder .* is 0755 .*chmod 700/)
    chmodSync(folder, 0o700)
    const s = createServices({ mode: 'headless', deployment: 'service', dbPath: path, poolSize: 1 })
    await s.close()
    // The workbench opens the user's own file as it is.
    chmodSync(path, 0o644)
    const w = createServices({ mode: 'headless', dbPath: path, poolSize: 1 })
    await w.close()
  })

  it('refuses a readable -wal beside a private workspace', () => {
    const folder = join(ws.dir, 'srv2')
    mkdirSync(folder, { mode: 0o700 })
    const path = join(folder, 'w.sqlite')
    const store = openStore(path)
    store.db.exec('CREATE TABLE t (x)')
    chmodSync(`${path}-wal`, 0o640)
    expect(workspaceExposure(path)).toMatch(/file .*-wal is 0640/)
    store.close()
  })
})
