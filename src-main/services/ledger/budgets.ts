/**
 * Budgets: set or changed by the privacy officer, with a reason; each change is a ledger entry and an audit event.
 * A budget without a notion is the dataset's budget per unit (ledger/admission.ts); a budget with a notion is an
 * extra cap on that notion's account.
 */
import type Database from 'better-sqlite3'
import type { LedgerEntry, PrivacyNotion } from '../../contract/ledger'
import { UserError } from '../platform/errors'
import { appendEntry, recordAudit } from '../chain/ledger-chain'
import { datasetName } from '../catalog/catalog'
import { datasetUidFact } from '../catalog/fresh-dataset-id'
import { unitSpend } from './accounts'
import { toLedgerEntry } from './ledger-views'
import { NOTION_LABEL, isNotion } from '../chain/notions'
import { decimalToNano, nanoToDecimal, nanoToDisplay } from '../chain/nano-epsilon'
import { datasetUnit } from '../trust/privacy-unit'
import { declarationProblem, unitDeclaration } from '../trust/unit-declaration'
import { unitWord } from '../catalog/unit-record'
import { unlockOfficer } from '../trust/officers'
import { refuseUnlessVerifies, writeCheckpoint } from '../trust/checkpoints'
import { inspectWorkspace } from '../trust/kernel'
import { accountRow } from '../accounts/account-store'
import { allotmentProblem } from './allotments'

export interface SetBudgetInput {
  datasetId: number
  epsilon: number | string
  notion?: PrivacyNotion
  reason: string
  /** The officer's registered name or key id (may be left out when only one officer is registered). */
  officer?: string
  /** The officer's passphrase: a budget is an officer act, signed with the officer's key. Never stored. */
  passphrase?: string
  /**
   * Freeze: no further releases. The budget is set to exactly what is already spent (the epsilon given, if any, is not
   * used), with the reason. The only way to set a budget below the spend: a lower figure cannot undo a spend and is refused.
   */
  freeze?: boolean
  /**
   * An analyst account (service deployment): the budget is that analyst's own on the dataset, held against the charges
   * their account makes, within the dataset's budgets (ledger/admission.ts). Recorded in the hashed, signed entry.
   */
  analyst?: number
}

export function setBudget(db: Database.Database, input: SetBudgetInput): LedgerEntry {
  if (!Number.isInteger(input.datasetId)) throw new UserError('datasetId must be a whole number')
  const name = datasetName(db, input.datasetId)
  if (name === null) throw new UserError(`There is no dataset with id ${input.datasetId}; list them with "quiet-alarm datasets"`, 'not-found')
  if (input.notion !== undefined && !isNotion(input.notion)) {
    throw new UserError(`notion must be one of eps-dp, predicate-wise-dp, eps-k-sensitive, anomaly-restricted-dp (got "${String(input.notion)}")`)
  }
  const reason = typeof input.reason === 'string' ? input.reason.trim() : ''
  if (reason.length < 3) throw new UserError('A budget change needs a reason (a few words saying why); it is recorded in the ledger')
  if (reason.length > 500) throw new UserError('The reason is too long (at most 500 characters)')
  if (input.freeze !== undefined && typeof input.freeze !== 'boolean') throw new UserError('freeze must be true or false')
  const freeze = input.freeze === true
  const analyst = input.analyst === undefined ? null : analystAccount(db, input.analyst)
  let asked: number | null = null
  if (!freeze) {
    try {
      asked = decimalToNano(input.epsilon, 'down')
    } catch {
      throw new UserError(`The budget must be a non-negative decimal number of epsilon, e.g. 2.5 (got "${String(input.epsilon)}")`)
    }
  }
  // Without a notion: the budget per unit (what one person, or row, may lose summed over notions). With one: that
  // notion's own cap, on top of the budget per unit.
  const scope =
    (input.notion ? NOTION_LABEL[input.notion] : 'per unit, summed over notions') + (analyst === null ? '' : `, analyst "${analyst.name}"`)
  // Last: the officer's key (the passphrase is checked before anything is written; the act is signed).
  const key = unlockOfficer(db, { officer: input.officer, passphrase: input.passphrase })
  const officer = key.name
  // The officer signs the unit below: a declaration the rows contradict (forged in the tables) is not signed.
  const problem = declarationProblem(db, input.datasetId, name)
  if (problem !== null) throw new UserError(problem)
  const run = db.transaction(() => {
    refuseUnlessVerifies(db)
    // What is already spent, read in the same write transaction as the entry: per unit summed over notions (the budget
    // per unit), or the notion's own account (its cap); an analyst's budget, by the charges their account made.
    const spentNow = unitSpend(db, input.datasetId, inspectWorkspace(db), analyst?.id ?? null)
    const spent = input.notion ? spentNow.byNotion[input.notion] : spentNow.spentNano
    if (asked !== null && asked < spent) {
      const what = input.notion ? `under ${NOTION_LABEL[input.notion]}` : `per ${unitWord(datasetUnit(db, input.datasetId))}`
      const who = analyst === null ? '' : `analyst "${analyst.name}" `
      throw new UserError(
        `A budget of epsilon ${nanoToDisplay(asked, 'down')} is below what ${who}"${name}" has already spent ${what} (epsilon ${nanoToDisplay(spent)}), and a ` +
          'spend cannot be undone: set at least that much, or freeze the dataset (no further releases) with a reason.'
      )
    }
    const nano = asked ?? spent
    // An analyst's budget is an allotment of the dataset's: the allotments of each scope sum to at most it (allotments.ts).
    const oversubscribed = allotmentProblem(inspectWorkspace(db), {
      datasetId: input.datasetId,
      datasetName: name,
      notion: input.notion ?? null,
      nano,
      analyst,
      freeze,
      per: `per ${unitWord(datasetUnit(db, input.datasetId))}`
    })
    if (oversubscribed !== null) throw new UserError(oversubscribed)
    const row = appendEntry(db, {
      kind: 'budget',
      datasetId: input.datasetId,
      datasetName: name,
      notion: input.notion ?? null,
      amountNano: nano,
      cells: [],
      releaseId: null,
      actor: officer,
      description: freeze ? `Frozen, no further releases: ${reason}` : reason,
      // The officer signs the dataset's privacy unit with the budget: releases are charged with the signed one, and
      // denied if the workspace's tables are changed afterwards (privacy-unit.ts `unitProblem`).
      detail: {
        scope,
        ...datasetUidFact(db, input.datasetId),
        unit: unitDeclaration(db, input.datasetId),
        ...(freeze ? { freeze: true } : {}),
        ...(analyst === null ? {} : { analyst: { id: analyst.id, name: analyst.name } })
      },
      signer: key
    })
    recordAudit(db, 'budget/set', officer, `dataset:${input.datasetId}`, {
      seq: row.seq,
      notion: input.notion ?? 'all',
      epsilon: nanoToDecimal(nano),
      ...(freeze ? { freeze: true } : {}),
      ...(analyst === null ? {} : { analyst: analyst.id }),
      reason
    })
    writeCheckpoint(db, key)
    return row
  })
  return toLedgerEntry(run.immediate())
}

/** The analyst account a budget names: it must exist, be an analyst, and not be revoked. */
function analystAccount(db: Database.Database, id: number): { id: number; name: string } {
  if (!Number.isInteger(id) || id < 1) throw new UserError('analyst must be the id of an analyst account (a whole number)')
  const row = accountRow(db, id)
  if (row === null) throw new UserError(`There is no account with id ${id}; list them with "quiet-alarm account list"`, 'not-found')
  if (row.role !== 'analyst') throw new UserError(`Account ${id} ("${row.name}") is a ${row.role} account; a budget may name an analyst account only`)
  if (row.revoked_at !== null) throw new UserError(`Account ${id} ("${row.name}") was revoked; a budget may name an account in force only`)
  return { id: row.id, name: row.name }
}
