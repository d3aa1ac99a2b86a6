import type { LedgerMethods } from '../../contract/ledger'
import type { HandlerMap, ServiceContext } from '../platform/handler-types'
import { getRelease, listReleases, previewRelease, unlockExPost } from './release-service'
import { setBudget } from '../ledger/budgets'
import { datasetLedger, ledgerSummary, listEntries } from '../ledger/ledger-views'
import { verifyLedger } from '../ledger/verify'
import { checkpoint, listOfficers, registerOfficer } from '../trust/officers'
import { ownRecordsOnly } from '../accounts/roles'
import { releaseAccuracy } from './accuracy'
import { analystTimes } from '../platform/shown-time'

/** Handlers of the ledger area's contract (ledger, budgets, releases, officer acts): each hands its request to its service. */
export function ledgerHandlers(ctx: ServiceContext): HandlerMap<LedgerMethods> {
  const db = () => ctx.store.db
  return {
    'ledger/entries': async (req, caller) =>
      analystTimes(
        listEntries(db(), { datasetId: req.datasetId, limit: req.limit, offset: req.offset, onlyAccount: ownRecordsOnly(caller) }),
        ownRecordsOnly(caller),
        ctx.cadenceMs
      ),
    'ledger/summary': async (req, caller) =>
      ledgerSummary(db(), { datasetId: req.datasetId, cellLimit: req.cellLimit, onlyAccount: ownRecordsOnly(caller) }),
    'ledger/verify': async (req) => verifyLedger(db(), req.expectHead, req.receipt),
    'budgets/set': async (req) => {
      const entry = setBudget(db(), req)
      return { entry, account: datasetLedger(db(), req.datasetId) }
    },
    'releases/preview': async (req) => previewRelease(db(), req),
    'releases/accuracy': async (req) => releaseAccuracy(db(), req, ctx.pool),
    // The caller goes with the request: the release runs on another thread, as this account.
    'releases/run': async (req, caller) => ctx.releases.run(req, caller),
    'releases/list': async (req, caller) =>
      analystTimes(
        listReleases(db(), req.datasetId, { onlyAccount: ownRecordsOnly(caller), view: ctx.releases.view }),
        ownRecordsOnly(caller),
        ctx.cadenceMs
      ),
    'releases/get': async (req, caller) =>
      analystTimes(
        getRelease(db(), req.releaseId, { onlyAccount: ownRecordsOnly(caller), view: ctx.releases.view }),
        ownRecordsOnly(caller),
        ctx.cadenceMs
      ),
    'officer/unlock-ex-post': async (req) => unlockExPost(db(), req),
    'officer/list': async (_req, caller) =>
      analystTimes(
        listOfficers(db()).map((o) => ({ keyId: o.keyId, name: o.name, createdAt: o.createdAt, addedByName: o.addedByName })),
        ownRecordsOnly(caller),
        ctx.cadenceMs
      ),
    'officer/register': async (req) => {
      const o = registerOfficer(db(), req)
      return { keyId: o.keyId, name: o.name, createdAt: o.createdAt, addedByName: o.addedByName, fingerprint: o.fingerprint }
    },
    'ledger/checkpoint': async (req) => {
      const c = checkpoint(db(), { officer: req.officer, passphrase: req.passphrase })
      return { ledgerSeq: c.ledgerSeq, ledgerHash: c.ledgerHash, auditId: c.auditId, officer: c.officer, at: c.at, receipt: c.receipt }
    }
  }
}
