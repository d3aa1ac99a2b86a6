/**
 * The head record: the newest ledger and audit heads a service has seen, kept in a small file outside the workspace
 * (default `<workspace>.head.json`; `serve --head-record F` puts it elsewhere, such as beside the service's log).
 *
 * The workspace alone cannot show that it was put back to an older copy: an older copy verifies. The record can. A
 * workspace *holds* a record when the ledger entry and the audit event the record names are still in it with the same
 * hashes; a copy that does not (older, or another history) is refused by `restore` unless an officer signs the rollback,
 * and `serve` does not start on it.
 *
 * Invariants: the record only moves forward (`noteHead` writes a head past the recorded one, never back; only a restore
 * puts it back, after the officer's act); it is written whole (a temporary file renamed over it), 0600; it holds hashes
 * and counts only, never a value of the data.
 */
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import type Database from 'better-sqlite3'
import { z } from 'zod'
import { UserError } from '../platform/errors'
import { headOf } from '../chain/ledger-chain'
import { auditHead } from '../chain/audit-chain'

export interface Heads {
  ledgerSeq: number
  ledgerHash: string
  auditId: number
  auditHash: string
}

const HeadRecordSchema = z.strictObject({
  v: z.literal(1),
  kind: z.literal('quiet-alarm/head-record'),
  ledgerSeq: z.number().int().nonnegative(),
  ledgerHash: z.string().regex(/^[0-9a-f]{64}$/),
  auditId: z.number().int().nonnegative(),
  auditHash: z.string().regex(/^[0-9a-f]{64}$/),
  /** When this head was first seen (ISO). */
  at: z.string()
})
export type HeadRecord = z.infer<typeof HeadRecordSchema>

export const defaultHeadRecordPath = (dbPath: string) => `${dbPath}.head.json`

export function headsOf(db: Database.Database): Heads {
  const l = headOf(db)
  const a = auditHead(db)
  return { ledgerSeq: l.seq, ledgerHash: l.hash, auditId: a.id, auditHash: a.hash }
}

/** The record at `path`, or null when there is none; one sentence when the file is not a head record. */
export function readHeadRecord(path: string): HeadRecord | null {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw new UserError(`Cannot read the head record ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, 'store')
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    parsed = null
  }
  const r = HeadRecordSchema.safeParse(parsed)
  if (!r.success) throw new UserError(`The file ${path} is not a Quiet Alarm head record; move it away or give the right one`, 'bad-file')
  return r.data
}

function writeWhole(path: string, text: string): void {
  // Writers of one process (the services' thread, the release runner) each have a file of their own.
  const tmp = `${path}.${process.pid}-${randomBytes(6).toString('hex')}.tmp`
  const fd = openSync(tmp, 'w', 0o600)
  try {
    writeSync(fd, text)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  try {
    renameSync(tmp, path)
  } catch (e) {
    rmSync(tmp, { force: true })
    throw e
  }
}

/** Writes `heads` as the record, whatever is recorded (a restore, after its checks; a new record). */
export function writeHeadRecord(path: string, heads: Heads, at = new Date().toISOString()): HeadRecord {
  const record: HeadRecord = { v: 1, kind: 'quiet-alarm/head-record', ...heads, at }
  writeWhole(path, `${JSON.stringify(record, null, 2)}\n`)
  return record
}

/**
 * Moves the record forward to the workspace's heads when they are past it (each chain's head at least as far, one
 * further). Never moves it back: a workspace behind its record leaves the record as it is (see `recordProblem`).
 */
export function noteHead(db: Database.Database, path: string): void {
  noteHeads(headsOf(db), path)
}

/** `noteHead` with heads read already (a backup's copy). */
export function noteHeads(heads: Heads, path: string): void {
  let rec: HeadRecord | null
  try {
    rec = readHeadRecord(path)
  } catch {
    // Not a record of ours: it is left for the custodian to look at (serve and restore name it).
    return
  }
  if (rec && heads.ledgerSeq <= rec.ledgerSeq && heads.auditId <= rec.auditId) return
  if (rec && (heads.ledgerSeq < rec.ledgerSeq || heads.auditId < rec.auditId)) return
  try {
    writeHeadRecord(path, heads)
  } catch (e) {
    // Never fails what it follows (a charge that committed): the next note writes it.
    process.stderr.write(`head record not written: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}\n`)
  }
}

/**
 * Whether the workspace holds the record's heads: null when it does, else one sentence saying what it lacks (the
 * record's ledger entry, or its audit event, is missing or has another hash).
 */
export function recordProblem(db: Database.Database, rec: HeadRecord, what: string): string | null {
  const heads = headsOf(db)
  const entry =
    rec.ledgerSeq === 0
      ? { hash: rec.ledgerHash }
      : (db.prepare('SELECT hash FROM ledger_entries WHERE seq = ?').get(rec.ledgerSeq) as { hash: string } | undefined)
  const event =
    rec.auditId === 0
      ? { hash: rec.auditHash }
      : (db.prepare('SELECT hash FROM audit_events WHERE id = ?').get(rec.auditId) as { hash: string | null } | undefined)
  if (!entry || heads.ledgerSeq < rec.ledgerSeq)
    return `${what} holds the ledger up to entry ${heads.ledgerSeq}, older than the head recorded at ${rec.at} (entry ${rec.ledgerSeq}): charges made since would be handed back`
  if (entry.hash !== rec.ledgerHash) return `${what} holds another ledger than the one recorded at ${rec.at} (entry ${rec.ledgerSeq} differs)`
  if (!event || heads.auditId < rec.auditId)
    return `${what} holds the audit log up to event ${heads.auditId}, older than the head recorded at ${rec.at} (event ${rec.auditId}): denials and officer acts since would be lost`
  if (event.hash !== rec.auditHash) return `${what} holds another audit log than the one recorded at ${rec.at} (event ${rec.auditId} differs)`
  return null
}

/** While a service holds the workspace: its process id, in this file beside it (a restore refuses while it lives). */
export const servicePidPath = (dbPath: string) => `${dbPath}.serve.pid`

/** The pid of a live service holding the workspace, or null. */
export function liveService(dbPath: string): number | null {
  let pid: number
  try {
    pid = Number(readFileSync(servicePidPath(dbPath), 'utf8').trim())
  } catch {
    return null
  }
  if (!Number.isInteger(pid) || pid <= 0) return null
  try {
    process.kill(pid, 0)
    return pid
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM' ? pid : null
  }
}

export interface HeadKeeper {
  /** Moves the record forward now (after a charge, at close). */
  note(): void
  stop(): void
}

/**
 * The service's keeping of the record: refuses to start on a workspace that does not hold it (one sentence), marks the
 * workspace as served (servicePidPath), then moves the record forward every `everyMs` and at stop. Charges move it at
 * once (the release runner notes after each charge), other entries (officer acts from the CLI) within `everyMs`.
 */
export function keepHeads(db: Database.Database, dbPath: string, recordPath: string, everyMs = 1000): HeadKeeper {
  const rec = readHeadRecord(recordPath)
  const problem = rec ? recordProblem(db, rec, `The workspace ${dbPath}`) : null
  if (problem !== null)
    throw new UserError(
      `${problem}; the service does not start on it (head record ${recordPath}). Put the newer workspace back, or restore this copy with "quiet-alarm restore" (an officer signs the rollback)`,
      'store'
    )
  const note = () => noteHead(db, recordPath)
  note()
  writeWhole(servicePidPath(dbPath), `${process.pid}\n`)
  const timer = setInterval(note, everyMs)
  timer.unref()
  return {
    note,
    stop() {
      clearInterval(timer)
      if (db.open) note()
      rmSync(servicePidPath(dbPath), { force: true })
    }
  }
}
