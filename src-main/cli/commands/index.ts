import type { CliCommand } from '../command'
import { migrateCommand, statusCommand } from './status'
import { minentCommand } from './minent'
import { thresholdCommand } from './threshold'
import { noiseCommand } from './noise'
import { aiqCommand } from './aiq'
import { searchCommand } from './search'
import { storeCommands } from './store-commands'
import { accountCommand } from './account-commands'
import { sweepCommand } from './sweep'
import { reportCommand } from './report'
import { linkCommand } from './link'
import { serveCommand } from './serve'
import { alarmCommand } from './alarm-commands'
import { backupCommand, restoreCommand } from './backup-commands'
import { webhookCommand } from './webhook-commands'

/** Every CLI command, in the order `--help` lists them. */
export const commands: CliCommand[] = [
  statusCommand,
  migrateCommand,
  minentCommand,
  thresholdCommand,
  noiseCommand,
  aiqCommand,
  searchCommand,
  ...storeCommands,
  backupCommand,
  restoreCommand,
  alarmCommand,
  accountCommand,
  serveCommand,
  linkCommand,
  sweepCommand,
  reportCommand,
  webhookCommand
]
