/**
 * Every code a failed call can carry (`CallOutcome.error.code`, `UserError.code`). The CLI, the UI and the tests branch
 * on these codes, never on the text of a message. Plain data: the renderer imports it.
 */
export const ERROR_CODES = [
  // Bad input: nothing was written.
  /** A request or a parameter is malformed or out of range (the doors' schemas, and most services' checks). */
  'bad-input',
  /** A saved query definition does not fit its dataset (a column, a type, a public source). */
  'bad-query',
  /** An experiment spec is invalid. */
  'bad-spec',
  /** A file to import or read cannot be read as what it should be. */
  'bad-file',
  /** One row of a file is bad (the import stops, nothing is stored). */
  'bad-row',
  /** A file to write (a report, an export) cannot be written. */
  'bad-output',
  /** No such dataset, query, release, job, experiment or officer. */
  'not-found',
  /** The request clashes with what is stored (a name in use, a budget below the spend). */
  'conflict',
  /** A value that would reach a release comes from a dataset that is not public. */
  'not-public',
  /** The request would let private data leave (paging a private dataset's rows). */
  'private-data',
  /** Over budget: the release was denied and nothing was spent. */
  'denied',
  /** The release could not answer its question at all (a search whose budget cannot separate the individuals): refused, nothing spent. */
  'cannot-decide',
  /** An officer act without a valid officer or passphrase, or a window that is not ours. */
  'forbidden',
  /** No officer is registered yet. */
  'no-officer',
  /** A linked source changed since it was linked (its fingerprint differs). */
  'source-changed',
  /** Something runs that this request would disturb (workers resized during a job). */
  'busy',
  /** A job's result is not there yet. */
  'not-ready',
  'cancelled',
  /** This mode does not do it: the desktop's dialog in headless mode (use the upload / the download). */
  'use-upload',
  'use-download',
  'unsupported',
  'not-implemented',
  /** An (eps,k)-sensitive release on another graph than the one the dataset's account is fixed to. */
  'graph-fixed',
  // The workspace and the machine.
  /** The workspace cannot be opened or written. */
  'store',
  /** The workspace was written by a newer version. */
  'store-newer',
  /** The workspace has an older schema and the command only reads: `quiet-alarm migrate` migrates it. */
  'store-older',
  /** The workspace's migration history is not one this version knows. */
  'store-history',
  'disk-full',
  /** Headless Chromium (for PDFs) is not installed. */
  'chromium-missing',
  // A charge stays: the release was charged but not answered.
  'release-failed',
  // The doors and transports.
  /** The HTTP body is not JSON. */
  'bad-request',
  'too-large',
  /** No credential, or one that is not valid, expired or revoked (the service's sign-in). */
  'unauthorized',
  /** Too many failed sign-ins from this address: wait before trying again. */
  'throttled',
  'unknown-method',
  'upload',
  'no-window',
  /** Unexpected: the details are in the application log, the caller gets one neutral sentence. */
  'internal',
  /** The renderer's transport: the headless service cannot be reached, or answered without a body. */
  'offline',
  'bad-response'
] as const

export type ErrorCode = (typeof ERROR_CODES)[number]

const CODES: ReadonlySet<string> = new Set(ERROR_CODES)

export function isErrorCode(x: unknown): x is ErrorCode {
  return typeof x === 'string' && CODES.has(x)
}
