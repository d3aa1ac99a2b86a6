import { notYetImplemented } from '../not-yet'

export const ledgerCommands = [
  notYetImplemented('release', 'Run a saved query as a charged release', 6),
  notYetImplemented('ledger', 'Show or verify the privacy-budget ledger', 6),
  notYetImplemented('budget', 'Set or raise a dataset budget (privacy officer)', 6),
  notYetImplemented('demo', 'Create a demo workspace from the bundled sample and run one release of each kind', 6)
]
