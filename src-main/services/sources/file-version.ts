/**
 * A file version: what the file system says about the file a path leads to that a writer cannot put back. A change of
 * the bytes changes the ctime (and writing times back with utimes changes it too), a replacement by rename changes the
 * inode, so two equal versions are the same bytes unless the clock or the file system itself is tampered with.
 */
import { type BigIntStats, statSync } from 'node:fs'

export interface FileVersion {
  dev: string
  ino: string
  size: string
  mtimeNs: string
  ctimeNs: string
}

export function versionOf(st: BigIntStats): FileVersion {
  return { dev: String(st.dev), ino: String(st.ino), size: String(st.size), mtimeNs: String(st.mtimeNs), ctimeNs: String(st.ctimeNs) }
}

/** The version of the file `path` leads to now (symbolic links followed, as DuckDB opens it); null when it cannot be stat'ed. */
export function fileVersionNow(path: string): FileVersion | null {
  try {
    return versionOf(statSync(path, { bigint: true }))
  } catch {
    return null
  }
}

export function sameVersion(a: FileVersion | null | undefined, b: FileVersion | null | undefined): boolean {
  return !!a && !!b && a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs
}
