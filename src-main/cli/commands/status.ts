import { type CliCommand } from '../command'
import { LATEST_SCHEMA_VERSION, defaultDatabasePath, defaultPoolSize } from '../../services/local'
import { openWorkspace } from '../workspace'

export const statusCommand: CliCommand = {
  name: 'status',
  summary: 'Show the workspace database, its schema version and the worker pool size',
  usage: 'status [--db PATH]',
  options: { db: { type: 'string', description: 'workspace database file', defaultText: defaultDatabasePath() } },
  async run(values, _positionals, ctx) {
    const store = openWorkspace(values, ctx.cwd, { create: false })
    try {
      const json = {
        databasePath: store.path,
        schemaVersion: store.schemaVersion(),
        latestSchemaVersion: LATEST_SCHEMA_VERSION,
        poolSize: defaultPoolSize()
      }
      const text = [
        `Workspace:  ${json.databasePath}`,
        `Schema:     version ${json.schemaVersion}${json.schemaVersion === LATEST_SCHEMA_VERSION ? ' (current)' : ''}`,
        `Workers:    ${json.poolSize} (default: processor cores minus one, at least one)`
      ].join('\n')
      return { json, text }
    } finally {
      store.close()
    }
  }
}
