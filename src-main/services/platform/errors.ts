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
