/**
 * What linking a table of a database server (PostgreSQL, ClickHouse) is whatever the engine: the request, the person
 * column's check, and the officer act that writes it: the catalog rows with no count (the linker may not hold the rows:
 * the password may be the server's), the engine's signed source row, a signed audit event and a checkpoint, in one
 * transaction. Each engine's module (link-postgres.ts, link-clickhouse.ts) reads its own catalog and signs its own facts.
 */
import type Database from 'better-sqlite3'
import type { CountedDatasetInfo } from '../../contract/datasets'
import { recordAudit } from '../chain/ledger-chain'
import { getDataset } from '../catalog/catalog'
import { type LinkUnitRequest, type LinkedColumn, insertLinkedDataset, linkedPerPerson } from '../catalog/linked-catalog'
import { UserError } from '../platform/errors'
import { refuseUnlessVerifies, writeCheckpoint } from '../trust/checkpoints'
import type { OfficerCredentials, OfficerKey } from '../trust/officers'

/** A connection to a server: its URL (never with a password) and the variable its password is read from (null: the engine's). */
export interface WarehouseConnectionRequest {
  url: string
  passwordEnv?: string | null
}

export interface LinkWarehouseRequest extends WarehouseConnectionRequest, LinkUnitRequest, OfficerCredentials {
  /** The table as the engine names it: PostgreSQL schema.table (a table or view), ClickHouse database.table. */
  table: string
}

/** The person column must be one of the table's declared columns (`shown`: the table as the sentence names it). */
export function checkPersonColumn(columns: ReadonlyArray<{ name: string }>, personColumn: string | null, shown: string): void {
  if (personColumn !== null && !columns.some((c) => c.name === personColumn)) {
    throw new UserError(
      `The person column "${personColumn.slice(0, 80)}" is not a column of ${shown}; name one of its columns, or link row-level`,
      'bad-input'
    )
  }
}

export interface WarehouseLinkEntry {
  name: string
  /** The table as the catalog shows it. */
  sourceFile: string
  /** Its declared columns with their catalog types. */
  columns: LinkedColumn[]
  /** Writes the engine's signed source row for the new dataset id and uid (the link signs both). */
  writeSource: (datasetId: number, datasetUid: string) => void
  /** The audit event's kind and detail (public facts of the link). */
  audit: { kind: string; detail: Record<string, unknown> }
}

/** The officer act of linking (see the file comment); returns the new dataset. */
export function insertWarehouseLink(db: Database.Database, key: OfficerKey, req: LinkWarehouseRequest, e: WarehouseLinkEntry): CountedDatasetInfo {
  const id = insertLinkedDataset(db, {
    name: e.name,
    sourceFile: e.sourceFile,
    sourceBytes: 0,
    // Not counted, not estimated: the linker may not hold the rows (the password may be the server's).
    rowCount: 0,
    columns: e.columns,
    personColumn: req.personColumn,
    perPerson: linkedPerPerson(e.columns, req.personColumn, req.perPersonColumns ?? []),
    writeSource: (dsId, datasetUid) => {
      refuseUnlessVerifies(db)
      e.writeSource(dsId, datasetUid)
      recordAudit(db, e.audit.kind, key.name.slice(0, 100), `dataset:${dsId}`, { ...e.audit.detail, datasetUid }, key)
      writeCheckpoint(db, key)
    }
  })
  return getDataset(db, id).info
}
