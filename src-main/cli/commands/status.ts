import { type CliCommand } from '../command'
import { LATEST_SCHEMA_VERSION, defaultDatabasePath, defaultPoolSize, projectRoot, readSchemaVersion } from '../../services/local'
import { existingWorkspacePath, openWorkspace } from '../workspace'

const DB_OPTION = { db: { type: 'string', description: 'workspace database file', defaultText: defaultDatabasePath() } } as const

export const statusCommand: CliCommand = {
  name: 'status',
  summary: 'Show the workspace database, its schema version and the worker pool size',
  usage: 'status [--db PATH]',
  options: DB_OPTION,
  async run(values, _positionals, ctx) {
    // Reads the schema version without writing: an older workspace is reported, not migrated.
    const path = existingWorkspacePath(values, ctx.cwd)
    const schemaVersion = readSchemaVersion(path, projectRoot())
    // A newer workspace is refused as every command refuses it (one sentence, nothing written).
    if (schemaVersion > LATEST_SCHEMA_VERSION) openWorkspace(values, ctx.cwd, { create: false, readOnly: true }).close()
    const json = { databasePath: path, schemaVersion, latestSchemaVersion: LATEST_SCHEMA_VERSION, poolSize: defaultPoolSize() }
    const state =
      schemaVersion === LATEST_SCHEMA_VERSION
        ? ' (current)'
        : schemaVersion < LATEST_SCHEMA_VERSION
          ? ` (older than this version's ${LATEST_SCHEMA_VERSION}: "quiet-alarm migrate --db ${path}" migrates it)`
          : ''
    const text = [
      `Workspace:  ${json.databasePath}`,
      `Schema:     version ${schemaVersion}${state}`,
      `Workers:    ${json.poolSize} (default: processor cores minus one, at least one)`
    ].join('\n')
    return { json, text }
  }
}

export const migrateCommand: CliCommand = {
  name: 'migrate',
  summary: "Migrate the workspace to this version's schema, first keeping a copy of it as it was beside it",
  usage: 'migrate [--db PATH]',
  options: DB_OPTION,
  async run(values, _positionals, ctx) {
    const store = openWorkspace(values, ctx.cwd, { create: false })
    try {
      const m = store.migrated
      const json = { databasePath: store.path, from: m?.from ?? store.schemaVersion(), to: store.schemaVersion(), copy: m?.copy ?? null }
      const text = m
        ? `Migrated ${store.path} from schema ${m.from} to ${m.to}; the workspace as it was is kept at ${m.copy}`
        : `${store.path} has this version's schema (${store.schemaVersion()}): nothing to migrate`
      return { json, text }
    } finally {
      store.close()
    }
  }
}
