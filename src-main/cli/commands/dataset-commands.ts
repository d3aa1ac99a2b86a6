import { notYetImplemented } from '../not-yet'

export const datasetCommands = [
  notYetImplemented('import', 'Import a CSV/TSV file into the workspace database', 6),
  notYetImplemented('datasets', 'List, rename or delete datasets', 6)
]
