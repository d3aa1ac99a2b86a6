/**
 * Backup and restore of a workspace.
 *
 * - `backupWorkspace`: SQLite's online backup API from a read-only connection, all pages in one step (one read
 *   transaction: a consistent snapshot that holds every commit made before it began, and that writers of a running
 *   service never restart, under WAL they do not wait for it either). The copy is written beside the target and renamed
 *   into place only once complete and verified; an existing file is never overwritten. Nothing migrates.
 * - `restoreWorkspace`: the copy must verify, and must hold the head record (head-record.ts) unless an officer signs
 *   the rollback (a signed audit event `officer/rollback` in the restored workspace, with the reason and both heads).
 *   The workspace is replaced whole (a file renamed over it, its -wal and -shm removed), and the record is set to the
 *   restored heads. A refused restore changes nothing.
 */
import { chmodSync, copyFileSync, existsSync, renameSync, rmSync, statSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import Database from 'better-sqlite3'
import type { LedgerVerifyResult } from '../../contract/ledger'
import { UserError } from '../platform/errors'
import { recordAudit } from '../chain/ledger-chain'
import { verifyLedger } from './verify'
import { unlockOfficer } from '../trust/officers'
import { writeCheckpoint } from '../trust/checkpoints'
import { type HeadRecord, type Heads, headsOf, liveService, noteHeads, readHeadRecord, recordProblem, writeHeadRecord } from './head-record'
import { LATEST_SCHEMA_VERSION } from '../store/migrations'
import { nativeBindingFor } from '../store/native-binding'
import { BUSY_TIMEOUT_MS } from '../store/store'

export interface BackupResult extends Heads {
  to: string
  /** Ledger entries the copy holds. */
  entries: number
  verify: LedgerVerifyResult
}

function schemaOf(db: Database.Database): number {
  try {
    return (db.prepare('SELECT max(version) AS v FROM schema_migrations').get() as { v: number | null }).v ?? 0
  } catch {
    return 0
  }
}

function openFile(path: string, projectRoot: string | undefined, readonly: boolean): Database.Database {
  try {
    const db = new Database(path, { readonly, fileMustExist: true, nativeBinding: nativeBindingFor(projectRoot) })
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`)
    // Fails with SQLITE_NOTADB on a file that is not a database.
    db.prepare('SELECT count(*) FROM sqlite_master').get()
    return db
  } catch (e) {
    throw new UserError(`Cannot open ${path} as a workspace: ${(e as Error).message}`, 'store')
  }
}

/** Verifies a workspace file of this version (its ledger and audit chains, its trust rules); one sentence when it is another version. */
function verifyFile(path: string, projectRoot: string | undefined): { db: Database.Database; verify: LedgerVerifyResult } {
  const db = openFile(path, projectRoot, false)
  const v = schemaOf(db)
  if (v !== LATEST_SCHEMA_VERSION) {
    db.close()
    throw new UserError(
      `${path} is a workspace of schema ${v}, not this version's ${LATEST_SCHEMA_VERSION}; use the Quiet Alarm version that wrote it`,
      'store'
    )
  }
  return { db, verify: verifyLedger(db) }
}

/** `headRecord`: moved forward to the heads the copy holds, at least (a running service moves it further itself). */
export async function backupWorkspace(from: string, to: string, o: { projectRoot?: string; headRecord?: string } = {}): Promise<BackupResult> {
  const projectRoot = o.projectRoot
  if (existsSync(to)) throw new UserError(`${to} exists already; a backup never overwrites a file: give a new name`, 'bad-output')
  if (!existsSync(dirname(to)) || !statSync(dirname(to)).isDirectory())
    throw new UserError(`The folder ${dirname(to)} does not exist; create it first (0700: the copy holds the raw rows)`, 'bad-output')
  const src = openFile(from, projectRoot, true)
  const partial = join(dirname(to), `.${basename(to)}.partial-${process.pid}`)
  try {
    rmSync(partial, { force: true })
    // The first step opens the backup; the progress callback then asks for every page at once (one read transaction).
    await src.backup(partial, { progress: () => 0x7fffffff })
  } catch (e) {
    rmSync(partial, { force: true })
    const code = (e as NodeJS.ErrnoException).code ?? ''
    if (code === 'SQLITE_FULL' || code === 'ENOSPC' || /disk is full|database or disk is full/i.test(String((e as Error).message)))
      throw new UserError(`The backup could not be written: the disk holding ${dirname(to)} is full; nothing was kept`, 'disk-full')
    throw new UserError(`The backup could not be written to ${dirname(to)}: ${(e as Error).message}; nothing was kept`, 'bad-output')
  } finally {
    src.close()
  }
  chmodSync(partial, 0o600)
  let checked: ReturnType<typeof verifyFile>
  try {
    checked = verifyFile(partial, projectRoot)
  } catch (e) {
    rmSync(partial, { force: true })
    throw e
  }
  const heads = headsOf(checked.db)
  const entries = (checked.db.prepare('SELECT count(*) AS n FROM ledger_entries').get() as { n: number }).n
  // The copy is one file: its WAL folded in, so that it can be moved alone.
  checked.db.pragma('wal_checkpoint(TRUNCATE)')
  checked.db.pragma('journal_mode = DELETE')
  checked.db.close()
  for (const s of ['-wal', '-shm']) rmSync(partial + s, { force: true })
  if (!checked.verify.ok) {
    rmSync(partial, { force: true })
    throw new UserError(`The copy does not verify (${checked.verify.message}); nothing was kept: run "ledger verify" on the workspace`, 'store')
  }
  renameSync(partial, to)
  if (o.headRecord) noteHeads(heads, o.headRecord)
  return { to, entries, verify: checked.verify, ...heads }
}

export interface RestoreInput {
  db: string
  from: string
  /** The head record to respect (default beside the workspace). */
  headRecord: string
  projectRoot?: string
  /** An officer signs a rollback to a copy that does not hold the record. */
  rollback?: { reason: string; officer?: string; passphrase: string }
}

export interface RestoreResult extends Heads {
  db: string
  from: string
  /** The record the copy was checked against (null when there was none). */
  recorded: HeadRecord | null
  /** True when the officer signed a rollback. */
  rolledBack: boolean
  /** Where the workspace that was replaced is kept (null when there was none). */
  replaced: string | null
}

export function restoreWorkspace(input: RestoreInput): RestoreResult {
  const pid = liveService(input.db)
  if (pid !== null) throw new UserError(`A service (process ${pid}) holds ${input.db}: stop it first; nothing was restored`, 'busy')
  if (!existsSync(input.from)) throw new UserError(`There is no file ${input.from} to restore from`, 'not-found')
  const recorded = readHeadRecord(input.headRecord)
  if (input.rollback) {
    const reason = input.rollback.reason.trim()
    if (reason.length < 3) throw new UserError('A rollback needs a reason (--reason); it is recorded', 'bad-input')
    if (reason.length > 500) throw new UserError('The reason is too long (at most 500 characters)', 'bad-input')
  }
  // Work on a private copy next to the workspace: the copy given is never changed, the workspace not until the end.
  const staged = join(dirname(input.db), `.${basename(input.db)}.restore-${process.pid}`)
  rmSync(staged, { force: true })
  copyFileSync(input.from, staged)
  chmodSync(staged, 0o600)
  const discard = () => {
    for (const s of ['', '-wal', '-shm']) rmSync(staged + s, { force: true })
  }
  try {
    const { db, verify } = verifyFile(staged, input.projectRoot)
    try {
      if (!verify.ok) throw new UserError(`${input.from} does not verify (${verify.message}); nothing was restored`, 'store')
      // No record to compare with is no proof the copy holds every charge (a deleted record would hand spent budget back).
      const problem = recorded
        ? recordProblem(db, recorded, `The copy ${input.from}`)
        : `There is no head record at ${input.headRecord} to show that ${input.from} holds every charge made`
      let rolledBack = false
      if (problem !== null) {
        if (!input.rollback)
          throw new UserError(
            `${problem}; nothing was restored. An officer may sign the rollback: add --reason TEXT and the officer's passphrase`,
            'conflict'
          )
        const key = unlockOfficer(db, { officer: input.rollback.officer, passphrase: input.rollback.passphrase })
        const from = headsOf(db)
        db.transaction(() => {
          recordAudit(
            db,
            'officer/rollback',
            key.name,
            null,
            {
              reason: input.rollback!.reason.trim(),
              restoredLedgerSeq: from.ledgerSeq,
              restoredAuditId: from.auditId,
              recordedLedgerSeq: recorded?.ledgerSeq ?? null,
              recordedLedgerHash: recorded?.ledgerHash ?? null,
              recordedAuditId: recorded?.auditId ?? null,
              recordedAt: recorded?.at ?? null
            },
            key
          )
          // An officer act is covered by a checkpoint signed with it (as every officer act's is).
          writeCheckpoint(db, key)
        }).immediate()
        rolledBack = true
      }
      const heads = headsOf(db)
      db.pragma('wal_checkpoint(TRUNCATE)')
      db.close()
      rmSync(staged + '-wal', { force: true })
      rmSync(staged + '-shm', { force: true })
      // The workspace replaced is kept whole (its -wal holds commits not yet in the file), under a name of its own.
      let replaced: string | null = null
      if (existsSync(input.db)) {
        replaced = `${input.db}.replaced-${new Date().toISOString().replace(/[:.]/g, '-')}`
        for (const s of ['-wal', '-shm', '']) if (existsSync(input.db + s)) renameSync(input.db + s, replaced + s)
      }
      renameSync(staged, input.db)
      writeHeadRecord(input.headRecord, heads)
      return { db: input.db, from: input.from, recorded, rolledBack, replaced, ...heads }
    } finally {
      if (db.open) db.close()
    }
  } catch (e) {
    discard()
    throw e
  }
}
