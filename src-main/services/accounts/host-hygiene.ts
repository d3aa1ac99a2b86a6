/**
 * The service's host hygiene: the workspace holds the raw rows, so on the custodian's host only the custodian's account
 * may read it. The file (and its -wal/-shm companions) must be 0600 and its folder 0700, owned by the account that runs
 * the service; `serve` refuses to start otherwise, with the command that fixes it. New workspaces are created so
 * (store.ts).
 */
import { statSync } from 'node:fs'
import { dirname } from 'node:path'
import { UserError } from '../platform/errors'

const octal = (mode: number) => `0${(mode & 0o777).toString(8)}`

/** One sentence saying what is wrong and how to fix it, or null when only the service's own account can reach the workspace. */
export function workspaceExposure(path: string): string | null {
  if (process.platform === 'win32') return null
  const uid = typeof process.getuid === 'function' ? process.getuid() : null
  const folder = dirname(path)
  const problems: string[] = []
  const fixes: string[] = []
  const check = (p: string, kind: 'file' | 'folder', want: number) => {
    let st
    try {
      st = statSync(p)
    } catch {
      return
    }
    if (uid !== null && st.uid !== uid) problems.push(`${kind} ${p} belongs to another user (uid ${st.uid})`)
    if ((st.mode & 0o077) !== 0) {
      problems.push(`${kind} ${p} is ${octal(st.mode)} (other users can ${kind === 'folder' ? 'enter or list it' : 'read it'})`)
      fixes.push(`chmod ${octal(want).slice(1)} '${p.replaceAll("'", "'\\''")}'`)
    }
  }
  check(folder, 'folder', 0o700)
  for (const f of [path, `${path}-wal`, `${path}-shm`]) check(f, 'file', 0o600)
  if (problems.length === 0) return null
  const how = fixes.length > 0 ? `run ${fixes.join(' && ')} as the service's account` : "give the workspace to the service's account (chown)"
  return `Refusing to serve: the workspace must be readable by the service's account only, but the ${problems.join('; the ')}. To fix it, ${how}, then start again.`
}

export function assertPrivateWorkspace(path: string): void {
  const problem = workspaceExposure(path)
  if (problem !== null) throw new UserError(problem, 'store')
}
