import type { LedgerMethods } from '../../contract/ledger'
import type { HandlerMap, ServiceContext } from '../platform/handler-types'
import { NEUTRAL_FAILURE, getRelease, listReleases, previewRelease, unlockExPost } from './release-service'
import { ReleaseFailedError } from '../platform/errors'
import { setBudget } from '../ledger/budgets'
import { datasetLedger, ledgerSummary, listEntries } from '../ledger/ledger-views'
import { verifyLedger } from '../ledger/verify'
import { checkpoint, listOfficers, registerOfficer } from '../trust/officers'
import { ownRecordsOnly } from '../accounts/roles'
import { releaseAccuracy } from './accuracy'
import { analystTimes } from '../platform/shown-time'
import { analystEntry, analystIds, analystRelease, analystSummary } from '../ledger/analyst-ids'

/** Handlers of the ledger area's contract (ledger, budgets, releases, officer acts): each hands its request to its service. */
export function ledgerHandlers(ctx: ServiceContext): HandlerMap<LedgerMethods> {
  const db = () => ctx.store.db
  return {
    // An analyst reads ids of their own (analyst-ids.ts): nothing in them counts another analyst's releases.
    'ledger/entries': async (req, caller) => {
      const only = ownRecordsOnly(caller)
      const out = listEntries(db(), { datasetId: req.datasetId, limit: req.limit, offset: req.offset, onlyAccount: only })
      const ids = only === null ? null : analystIds(db(), only)
      return analystTimes(ids === null ? out : { ...out, entries: out.entries.map((e) => analystEntry(e, ids)) }, only, ctx.cadenceMs)
    },
    'ledger/summary': async (req, caller) => {
      const only = ownRecordsOnly(caller)
      const out = ledgerSummary(db(), { datasetId: req.datasetId, cellLimit: req.cellLimit, onlyAccount: only })
      if (only === null) return out
      return analystSummary(out, analystIds(db(), only), listEntries(db(), { limit: 1, onlyAccount: only }).total)
    },
    'ledger/verify': async (req) => verifyLedger(db(), req.expectHead, req.receipt),
    'budgets/set': async (req) => {
      const entry = setBudget(db(), req)
      return { entry, account: datasetLedger(db(), req.datasetId) }
    },
    'releases/preview': async (req) => previewRelease(db(), req),
    'releases/accuracy': async (req) => releaseAccuracy(db(), req, ctx.pool),
    // The caller goes with the request: the release runs on another thread, as this account.
    'releases/run': async (req, caller) => {
      const only = ownRecordsOnly(caller)
      try {
        const record = await ctx.releases.run(req, caller)
        return only === null ? record : analystRelease(record, analystIds(db(), only))
      } catch (e) {
        // A charged release that failed is named by the analyst's own number for it, as everywhere they read.
        if (only !== null && e instanceof ReleaseFailedError)
          throw new ReleaseFailedError(analystIds(db(), only).release(e.releaseId), NEUTRAL_FAILURE)
        throw e
      }
    },
    'releases/list': async (req, caller) => {
      const only = ownRecordsOnly(caller)
      const list = listReleases(db(), req.datasetId, { onlyAccount: only, view: ctx.releases.view })
      const ids = only === null ? null : analystIds(db(), only)
      return analystTimes(ids === null ? list : list.map((r) => analystRelease(r, ids)), only, ctx.cadenceMs)
    },
    'releases/get': async (req, caller) => {
      const only = ownRecordsOnly(caller)
      if (only === null) return getRelease(db(), req.releaseId, { view: ctx.releases.view })
      const ids = analystIds(db(), only)
      const record = getRelease(db(), ids.storedRelease(req.releaseId), { onlyAccount: only, view: ctx.releases.view })
      return analystTimes(analystRelease(record, ids), only, ctx.cadenceMs)
    },
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
