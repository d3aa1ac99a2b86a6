/**
 * Errors that reach users. A `UserError` carries one clear sentence saying what is wrong and what to do; it never
 * carries data values the user must not see (true counts, noisy values, ex-post costs).
 */
export class UserError extends Error {
  readonly code: string
  constructor(message: string, code = 'bad-input') {
    super(message)
    this.name = 'UserError'
    this.code = code
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
