import { notYetImplemented } from '../not-yet'

export const reportCommand = notYetImplemented('report', 'Audit report of the ledger, releases and experiments (PDF or CSV)', 9)
