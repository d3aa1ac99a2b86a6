import type { LedgerMethods } from '../../contract/ledger'
import type { HandlerMap, ServiceContext } from '../platform/handler-types'
import { UserError } from '../platform/errors'
import { getRelease, listReleases, previewRelease, runReleaseTimed, unlockExPost } from './release-service'
import { setBudget } from '../ledger/budgets'
import { datasetLedger, ledgerSummary, listEntries } from '../ledger/ledger-views'
import { verifyLedger } from '../ledger/verify'
import { checkpoint, listOfficers, registerOfficer } from '../trust/officers'
import { ownRecordsOnly } from '../accounts/roles'

function optInt(x: unknown, name: string): number | undefined {
  if (x === undefined || x === null) return undefined
  if (typeof x !== 'number' || !Number.isInteger(x)) throw new UserError(`${name} must be a whole number`)
  return x
}

/** Handlers of the ledger area (issue 6): ledger, budgets, releases (releases live in services/releases/). */
export function ledgerHandlers(ctx: ServiceContext): HandlerMap<LedgerMethods> {
  const db = () => ctx.store.db
  return {
    'ledger/entries': async (req, caller) =>
      listEntries(db(), {
        datasetId: optInt(req.datasetId, 'datasetId'),
        limit: optInt(req.limit, 'limit'),
        offset: optInt(req.offset, 'offset'),
        onlyAccount: ownRecordsOnly(caller)
      }),
    'ledger/summary': async (req) =>
      ledgerSummary(db(), { datasetId: optInt(req.datasetId, 'datasetId'), cellLimit: optInt(req.cellLimit, 'cellLimit') }),
    'ledger/verify': async (req) => verifyLedger(db(), typeof req.expectHead === 'string' ? req.expectHead : undefined),
    'budgets/set': async (req) => {
      const entry = setBudget(db(), req)
      return { entry, account: datasetLedger(db(), req.datasetId) }
    },
    'releases/preview': async (req) => previewRelease(db(), req),
    'releases/run': async (req) => runReleaseTimed(db(), req, ctx.pool),
    'releases/list': async (req, caller) => listReleases(db(), optInt(req.datasetId, 'datasetId'), ownRecordsOnly(caller)),
    'releases/get': async (req, caller) => getRelease(db(), req.releaseId, ownRecordsOnly(caller)),
    'officer/unlock-ex-post': async (req) => unlockExPost(db(), req),
    'officer/list': async () => listOfficers(db()).map((o) => ({ keyId: o.keyId, name: o.name, createdAt: o.createdAt, addedByName: o.addedByName })),
    'officer/register': async (req) => {
      const o = registerOfficer(db(), req)
      return { keyId: o.keyId, name: o.name, createdAt: o.createdAt, addedByName: o.addedByName, fingerprint: o.fingerprint }
    },
    'ledger/checkpoint': async (req) => {
      const c = checkpoint(db(), { officer: req.officer, passphrase: req.passphrase })
      return { ledgerSeq: c.ledgerSeq, ledgerHash: c.ledgerHash, auditId: c.auditId, officer: c.officer, at: c.at }
    }
  }
}
