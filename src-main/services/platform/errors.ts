/**
 * Errors that reach users. A `UserError` carries one clear sentence saying what is wrong and what to do; it never
 * carries data values the user must not see (true counts, noisy values, ex-post costs).
 * Its `code` is one of the contract's `ErrorCode`s: the CLI, the UI and the tests branch on it, never on the text.
 */
import type { ErrorCode } from '../../contract/error-codes'

export class UserError extends Error {
  readonly code: ErrorCode
  /**
   * The failure left something written that stays (a release's charge): not "bad input, nothing written". The CLI
   * exits 1 instead of 2 for it.
   */
  readonly wroteSomething: boolean
  constructor(message: string, code: ErrorCode = 'bad-input', options: { wroteSomething?: boolean } = {}) {
    super(message)
    this.name = 'UserError'
    this.code = code
    this.wroteSomething = options.wroteSomething ?? false
  }
}

/** A release charged but not answered: the charge stays in the ledger. The cause is not in the message (it may depend on the data). */
export class ReleaseFailedError extends UserError {
  constructor(
    readonly releaseId: number,
    neutralReason: string
  ) {
    super(`Release ${releaseId} was charged but not answered (${neutralReason}); the charge stays in the ledger`, 'release-failed', {
      wroteSomething: true
    })
  }
}

/** Raised when a job was cancelled by its user. */
export class CancelledError extends Error {
  constructor(message = 'Cancelled') {
    super(message)
    this.name = 'CancelledError'
  }
}

export function isUserError(e: unknown): e is UserError {
  return e instanceof Error && (e as { name?: string }).name === 'UserError'
}

/** SQLite's "database or disk is full" (SQLITE_FULL), and the operating system's "no space left" on the WAL or a file. */
export function isDiskFull(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code
  return (
    code === 'SQLITE_FULL' ||
    code === 'ENOSPC' ||
    code === 'EDQUOT' ||
    (typeof code === 'string' && code.startsWith('SQLITE_IOERR') && /no space|disk is full/i.test(String((e as Error).message)))
  )
}

/** SQLite gave up waiting for another connection's lock (after the workspace's busy timeout). */
export function isBusy(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'))
}

/**
 * A failure of the machine rather than of the request (a full disk, a workspace another process kept locked), as one
 * sentence; null for anything else. SQLite rolls back the statement or transaction that failed, so nothing of it was
 * written: callers whose earlier transaction did write (a release's charge) say so themselves.
 */
export function environmentFailure(e: unknown): UserError | null {
  if (isUserError(e)) return null
  if (isDiskFull(e)) {
    return new UserError(
      'Not enough space: the disk holding the workspace is full, so nothing was written. Free some space on that disk, or use a workspace on another disk (--db).',
      'disk-full'
    )
  }
  if (isBusy(e)) {
    return new UserError(
      'The workspace is busy: another process kept it locked for longer than the busy timeout, so nothing was written. Try again.',
      'busy'
    )
  }
  return null
}
