import { type CliCommand } from '../command'

// Replaced below by the store-aware status once the store lands (foundation).
export const statusCommand: CliCommand = {
  name: 'status',
  summary: 'Show the workspace database, its schema version and the worker pool size',
  usage: 'status [--db PATH]',
  options: { db: { type: 'string', description: 'workspace database file' } },
  async run() {
    return { json: {}, text: '' }
  }
}
