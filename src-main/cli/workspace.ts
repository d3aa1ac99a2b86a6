/**
 * How CLI commands open the workspace named by --db (default: $QUIET_ALARM_DB or the user data directory).
 * Only the commands that start a workspace (officer init, serve, import, link, demo) may create one; every other command
 * refuses a path where there is none, so a typo in --db never yields a fresh, empty "verified" ledger.
 */
import { existsSync, statSync } from 'node:fs'
import { resolve } from 'node:path'
import { type Store, defaultDatabasePath, openStore, projectRoot } from '../services/local'
import { type CliValues, UsageError, optString } from './command'

export function workspacePath(values: CliValues, cwd: string): string {
  const raw = optString(values, 'db')
  return raw === undefined || raw === '' ? defaultDatabasePath() : resolve(cwd, raw)
}

/** The path --db names, refused when no workspace is there. */
export function existingWorkspacePath(values: CliValues, cwd: string): string {
  const path = workspacePath(values, cwd)
  if (!(existsSync(path) && statSync(path).isFile())) {
    throw new UsageError(
      `There is no workspace at ${path}; check --db, or create one with "quiet-alarm officer init --db ${path} --name NAME" (the first privacy officer)`
    )
  }
  return path
}

/**
 * `readOnly`: a command that only reads (ledger, ledger verify, report) never migrates: a workspace of an older schema
 * is refused with one sentence naming `quiet-alarm migrate`, and nothing is written.
 */
export function openWorkspace(values: CliValues, cwd: string, options: { create: boolean; readOnly?: boolean }): Store {
  const path = options.create ? workspacePath(values, cwd) : existingWorkspacePath(values, cwd)
  return openStore(path, { projectRoot: projectRoot(), migrate: !options.readOnly })
}
