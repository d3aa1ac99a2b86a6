import { datasetCommands } from './dataset-commands'
import { ledgerCommands } from './ledger-commands'
import { officerCommand } from './officer-commands'

// Store commands: import, datasets (dataset-commands.ts); release, ledger, budget, demo (ledger-commands.ts).
export const storeCommands = [...datasetCommands, ...ledgerCommands, officerCommand]
