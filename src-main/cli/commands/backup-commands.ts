/**
 * `quiet-alarm backup` and `quiet-alarm restore`: a copy through SQLite's online backup API (complete while a service
 * runs, nothing migrated) that prints the heads it holds, and a restore that refuses a copy older than the head record
 * kept outside the workspace unless an officer signs the rollback (ledger/backup.ts).
 */
import { resolve } from 'node:path'
import { backupWorkspace, defaultHeadRecordPath, projectRoot, restoreWorkspace } from '../../services/local'
import { type CliCommand, UsageError, optString } from '../command'
import { OFFICER_OPTIONS, readPassphrase } from '../passphrase'
import { existingWorkspacePath, workspacePath } from '../workspace'

const HEAD_RECORD_OPTION = {
  type: 'string' as const,
  description: "the head record kept outside the workspace (serve's --head-record)",
  defaultText: 'PATH.head.json beside the workspace'
}

export const backupCommand: CliCommand = {
  name: 'backup',
  summary: 'Copy the workspace while it is served (SQLite online backup); prints the ledger head the copy holds',
  usage: 'backup --db PATH --to FILE [--head-record FILE]',
  required: () => ['to'],
  options: {
    db: { type: 'string', description: 'the workspace to copy' },
    to: { type: 'string', description: 'the new file to write (never overwritten; 0600)' },
    'head-record': HEAD_RECORD_OPTION
  },
  helpNotes: {
    '':
      'The copy holds every charge committed before it began and is verified before it is kept. Restore it with\n' +
      '"quiet-alarm restore --db PATH --from FILE" (with the service stopped).'
  },
  async run(values, _positionals, ctx) {
    const db = existingWorkspacePath(values, ctx.cwd)
    const to = resolve(ctx.cwd, optString(values, 'to') ?? '')
    const headRecord = resolve(ctx.cwd, optString(values, 'head-record') ?? defaultHeadRecordPath(db))
    const r = await backupWorkspace(db, to, { projectRoot: projectRoot(), headRecord })
    return {
      json: { to: r.to, entries: r.entries, headSeq: r.ledgerSeq, headHash: r.ledgerHash, auditId: r.auditId, auditHash: r.auditHash },
      text:
        `Backed up to ${r.to}: ${r.entries} ledger entries, head entry ${r.ledgerSeq} (${r.ledgerHash}), audit event ${r.auditId}. ` +
        `The copy verifies.`
    }
  }
}

export const restoreCommand: CliCommand = {
  name: 'restore',
  summary: 'Put a backup in place of the workspace (service stopped); a copy older than the head record needs an officer-signed rollback',
  usage: 'restore --db PATH --from FILE [--head-record FILE] [--reason TEXT --officer NAME --passphrase-file F]',
  required: () => ['db', 'from'],
  options: {
    db: { type: 'string', description: 'the workspace to replace (kept beside it as PATH.replaced-TIME)' },
    from: { type: 'string', description: 'the backup to restore (it must verify)' },
    'head-record': HEAD_RECORD_OPTION,
    reason: { type: 'string', description: 'a rollback: why the older copy is restored (recorded, signed by the officer)' },
    ...OFFICER_OPTIONS
  },
  async run(values, _positionals, ctx) {
    const db = workspacePath(values, ctx.cwd)
    const from = resolve(ctx.cwd, optString(values, 'from') ?? '')
    const headRecord = resolve(ctx.cwd, optString(values, 'head-record') ?? defaultHeadRecordPath(db))
    const reason = optString(values, 'reason')
    if (reason !== undefined && reason.trim().length < 3) throw new UsageError('--reason needs a few words (it is recorded with the rollback)')
    const rollback =
      reason === undefined
        ? undefined
        : {
            reason,
            officer: optString(values, 'officer'),
            passphrase: await readPassphrase(values, ctx, { label: "The privacy officer's passphrase (to sign the rollback)" })
          }
    const r = restoreWorkspace({ db, from, headRecord, projectRoot: projectRoot(), rollback })
    return {
      json: {
        db: r.db,
        from: r.from,
        headSeq: r.ledgerSeq,
        headHash: r.ledgerHash,
        auditId: r.auditId,
        rolledBack: r.rolledBack,
        replaced: r.replaced
      },
      text:
        `Restored ${r.from} to ${r.db}: head entry ${r.ledgerSeq}, audit event ${r.auditId}` +
        (r.rolledBack ? ', a rollback signed by the officer (recorded in the audit log)' : '') +
        (r.replaced ? `; the workspace it replaced is kept as ${r.replaced}.` : '.')
    }
  }
}
