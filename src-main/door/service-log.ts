/**
 * The service's log: one JSON object a line (`time`, `event`, `account`, `address`, and a few public fields), for the
 * custodian's log collector. What it records: the service starting and stopping, sign-ins and their failures, each
 * call's outcome (method and code: a release's id, never its values), and requests that failed inside the door.
 *
 * Invariant: a line holds only names the door chose (events, methods, error codes), account names and numeric ids,
 * times and addresses; never a request body, an answer, a credential, a session token, a passphrase or a message
 * that may quote input.
 */
export interface LogLine {
  event: string
  account?: string | null
  address?: string | null
  [field: string]: string | number | boolean | null | undefined
}

export type LogSink = (line: string) => void

export class ServiceLog {
  constructor(private readonly sink: LogSink = (l) => process.stderr.write(l)) {}

  write(line: LogLine): void {
    const { event, account, address, ...rest } = line
    try {
      this.sink(`${JSON.stringify({ time: new Date().toISOString(), event, account: account ?? null, address: address ?? null, ...rest })}\n`)
    } catch {
      // A log that cannot be written never fails the request it follows.
    }
  }
}
