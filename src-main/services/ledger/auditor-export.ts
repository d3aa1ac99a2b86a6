/**
 * `ledger export --auditor F`: what an auditor needs to check the ledger and recompute every charge without the
 * workspace: the records (ledger-records.ts), the spend and budgets per dataset, and each charge's mechanism record,
 * signed by an officer with a checkpoint written for the export. Never a dataset's rows, wrapped private keys or sealed
 * costs: the records hold their hashes only. An officer act: refused while the ledger does not verify, recorded as a
 * signed audit event, checkpointed; the records are read in the same transaction, so the checkpoint covers all of them.
 */
import { createHash } from 'node:crypto'
import type Database from 'better-sqlite3'
import type { AuditorExport, DatasetSpend, LedgerEntryRecord, MechanismRecord } from '../../contract/ledger-records'
import { canonicalJson } from '../chain/canonical'
import { recordAudit } from '../chain/ledger-chain'
import { NOTIONS } from '../chain/notions'
import { nowIso } from '../platform/clock'
import { refuseUnlessVerifies, writeCheckpoint } from '../trust/checkpoints'
import { notionCapNano, perUnitBudget } from '../trust/budgets-in-force'
import { inspectWorkspace } from '../trust/kernel'
import { type OfficerCredentials, unlockOfficer } from '../trust/officers'
import { datasetUnit } from '../trust/privacy-unit'
import { unitSpend } from './accounts'
import { readLedgerRecords } from './ledger-records'

type Db = Database.Database

export const auditorExportSigningText = (dataSha256: string, keyId: string) => `quiet-alarm/auditor-export/v1\n${dataSha256}\n${keyId}`

function parseObject(text: string): Record<string, unknown> {
  try {
    const v = JSON.parse(text) as unknown
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {}
  } catch {
    return {}
  }
}

const numberOr = (x: unknown): number | null => (typeof x === 'number' && Number.isFinite(x) ? x : null)

/** A charge's mechanism record, from its hashed detail (and the public number of predicates its answer asked). */
export function mechanismRecord(e: LedgerEntryRecord, predicates: number | null): MechanismRecord {
  const d = parseObject(e.detail)
  const params = typeof d.params === 'object' && d.params !== null ? (d.params as Record<string, unknown>) : {}
  const kind = typeof d.kind === 'string' ? d.kind : 'unknown'
  const cells = (() => {
    try {
      const c = JSON.parse(e.cells) as unknown
      return Array.isArray(c) ? c.filter((x): x is string => typeof x === 'string') : []
    } catch {
      return []
    }
  })()
  return {
    seq: e.seq,
    releaseId: e.releaseId,
    kind,
    mechanism: typeof d.mechanism === 'string' ? d.mechanism : typeof params.mechanism === 'string' ? params.mechanism : 'unknown',
    notion: e.notion,
    amountNano: e.amountNano,
    cells,
    sensitivity: numberOr(params.sensitivity) ?? (kind === 'anomaly-identification' || kind === 'anomaly-search' ? 1 : null),
    predicates: kind === 'anomaly-identification' ? numberOr(params.records) : predicates,
    params,
    chargeExplained: typeof d.chargeExplained === 'string' ? d.chargeExplained : null
  }
}

/** The predicates a threshold release asked (public: its group list), from its stored answer; null when unknown. */
function predicatesAsked(db: Db, releaseId: number | null): number | null {
  if (releaseId === null) return null
  const row = db.prepare('SELECT answer FROM releases WHERE id = ?').get(releaseId) as { answer: string | null } | undefined
  if (!row?.answer) return null
  return numberOr(parseObject(row.answer).predicates)
}

function spendOf(db: Db, ids: Array<{ id: number; name: string }>): DatasetSpend[] {
  const f = inspectWorkspace(db, { fresh: true })
  return ids.map(({ id, name }) => {
    const s = unitSpend(db, id, f)
    const b = perUnitBudget(db, id, f)
    const caps: Record<string, number> = {}
    for (const n of NOTIONS) {
      const c = notionCapNano(db, id, n, f)
      if (c !== null) caps[n] = c
    }
    const unit = datasetUnit(db, id)
    return {
      datasetId: id,
      datasetName: name,
      unit: unit.kind === 'row' ? 'row' : unit.column,
      spentPerUnitNano: s.spentNano,
      byNotion: s.byNotion,
      budgetPerUnitNano: b.nano,
      budgetPerUnitSource: b.source,
      capsNano: caps
    }
  })
}

export function auditorExport(db: Db, cred: OfficerCredentials): AuditorExport {
  const key = unlockOfficer(db, cred)
  return db
    .transaction(() => {
      refuseUnlessVerifies(db)
      recordAudit(db, 'officer/auditor-export', key.name, null, { purpose: 'auditor export' }, key)
      const cp = writeCheckpoint(db, key)
      const records = readLedgerRecords(db)
      const datasets = records.datasets.map((d) => ({ id: d.id, name: d.name }))
      for (const e of records.entries) if (!datasets.some((d) => d.id === e.datasetId)) datasets.push({ id: e.datasetId, name: e.datasetName })
      const body: Omit<AuditorExport, 'signature'> = {
        v: 1,
        kind: 'quiet-alarm/auditor-export',
        exportedAt: nowIso(),
        records,
        spend: spendOf(db, datasets),
        mechanisms: records.entries.filter((e) => e.kind === 'charge').map((e) => mechanismRecord(e, predicatesAsked(db, e.releaseId))),
        checkpoint: {
          id: cp.id,
          at: cp.at,
          ledgerSeq: cp.ledgerSeq,
          ledgerHash: cp.ledgerHash,
          auditId: cp.auditId,
          auditHash: cp.auditHash,
          signer: key.keyId
        }
      }
      const dataSha256 = createHash('sha256').update(canonicalJson(body), 'utf8').digest('hex')
      return {
        ...body,
        signature: { keyId: key.keyId, officer: key.name, dataSha256, signature: key.sign(auditorExportSigningText(dataSha256, key.keyId)) }
      }
    })
    .immediate()
}
