/**
 * Opaque file handles: no contract method takes a server-side path. A file enters the services in one of two
 * ways, both outside the contract's reach:
 * - desktop: the user picks it in the native open dialog, shown by the Electron main process;
 * - headless: the browser uploads it (`POST /api/upload`) into the server's private upload folder.
 * Either way the main process / the server registers the path here and hands the renderer a random id. The renderer can
 * name only files that were registered, so a renderer XSS or a token holder cannot reach any other file.
 * The CLI (the local user) keeps paths and calls the path-taking service functions directly.
 */
import { randomBytes } from 'node:crypto'
import { rmSync, statSync } from 'node:fs'
import { basename } from 'node:path'
import type { FileHandle } from '../../contract/app'
import { UserError } from './errors'
import { callingAccount } from './caller'

interface Entry {
  path: string
  fileName: string
  bytes: number
  /** The services own the file (an upload): it is deleted when released or at close. */
  owned: boolean
  /** The service account that uploaded it (null: the workbench's user or the desktop dialog); no other account resolves it. */
  owner: number | null
}

/** At most this many handles are kept; the oldest is forgotten (and its upload deleted) first. */
const MAX_HANDLES = 200

export class FileHandles {
  private readonly entries = new Map<string, Entry>()

  /** Registers a file chosen in a dialog or uploaded; returns the handle the renderer gets. */
  register(path: string, options: { fileName?: string; owned?: boolean; owner?: number | null } = {}): FileHandle {
    let bytes: number
    try {
      const st = statSync(path)
      if (!st.isFile()) throw new UserError(`${basename(path)} is not a file; choose a file`, 'bad-input')
      bytes = st.size
    } catch (e) {
      if (e instanceof UserError) throw e
      throw new UserError(`The chosen file cannot be read (${(e as NodeJS.ErrnoException).code ?? 'unreadable'}); choose it again`, 'bad-input')
    }
    const fileId = randomBytes(18).toString('base64url')
    const fileName = (options.fileName ?? basename(path)).split(/[\\/]/).pop()?.slice(0, 200) || 'file'
    this.entries.set(fileId, { path, fileName, bytes, owned: options.owned ?? false, owner: options.owner ?? null })
    while (this.entries.size > MAX_HANDLES) this.release(this.entries.keys().next().value as string)
    return { fileId, fileName, bytes }
  }

  /**
   * The file behind a handle; anything else (a path, a made-up id) is refused with one sentence. `owned`: an upload
   * (the services' copy, deleted when released), not a file the user chose where it lies.
   */
  resolve(fileId: unknown): { path: string; fileName: string; bytes: number; owned: boolean } {
    const found = typeof fileId === 'string' ? this.entries.get(fileId) : undefined
    const caller = callingAccount()
    // Another account's upload answers as if it did not exist.
    const e = found && (found.owner === null || caller?.id === found.owner) ? found : undefined
    if (!e) {
      throw new UserError(
        typeof fileId === 'string' && fileId !== ''
          ? 'Unknown file: choose or upload the file again (the app refers to files by the handle it gave, never by a path)'
          : 'Choose or upload a file first (fileId is missing)',
        'bad-input'
      )
    }
    return { path: e.path, fileName: e.fileName, bytes: e.bytes, owned: e.owned }
  }

  release(fileId: string): void {
    const e = this.entries.get(fileId)
    if (!e) return
    this.entries.delete(fileId)
    if (e.owned) rmSync(e.path, { force: true })
  }

  /** Forgets every handle and deletes the uploads (services close). */
  closeAll(): void {
    for (const id of [...this.entries.keys()]) this.release(id)
  }
}
