import type { LedgerMethods } from '../../contract/ledger'
import type { HandlerMap, ServiceContext } from '../handler-types'

/** Handlers of the ledger area (issue 6). */
export function ledgerHandlers(_ctx: ServiceContext): HandlerMap<LedgerMethods> {
  return {}
}
