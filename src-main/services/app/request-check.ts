/**
 * The check on every request from a door: `services.dispatch` runs `checkRequest` before any handler (and the doors'
 * own methods run it before theirs). First the path refusal (door-guard.ts), then the method's schema
 * (contract/schemas/requests.ts): a request that does not fit gets ONE sentence naming the field (code "bad-input") and
 * no handler runs, so nothing is written.
 */
import { isMethodName } from '../../contract'
import type { Principal } from '../../contract/accounts'
import { requestSchemas } from '../../contract/schemas/requests'
import { issueSentence } from '../../contract/schemas/sentence'
import { type DoorRefusal, refusePathParameters } from './door-guard'

export type RequestCheck = { ok: true; req: unknown } | { ok: false; error: DoorRefusal }

/**
 * The path refusal, then the method's schema. An unknown `method` is passed on (the services answer "unknown-method");
 * an absent `req` (undefined or null) is read as `{}`, as the services always have. What passes on is the parsed request
 * (strict objects: nothing the schema does not know).
 */
export function checkRequest(method: unknown, req: unknown): RequestCheck {
  const given = req ?? {}
  const refused = refusePathParameters(String(method), given)
  if (refused) return { ok: false, error: refused }
  if (!isMethodName(method)) return { ok: true, req: given }
  const parsed = requestSchemas[method].safeParse(given, { reportInput: true })
  if (parsed.success) return { ok: true, req: parsed.data }
  return { ok: false, error: { message: issueSentence(parsed.error, given), code: 'bad-input' } }
}

/**
 * Fields only the workbench's local user may give: in the service the calling account is who acts, so a request from an
 * account that names someone else (`actor` on a release) is refused, as an unknown field is, and nothing runs.
 */
const WORKBENCH_ONLY: Readonly<Record<string, readonly string[]>> = {
  'releases/run': ['actor'],
  'releases/preview': ['actor'],
  'releases/accuracy': ['actor']
}

/** null when `req` (already parsed) may come from `caller`; else the one sentence that refuses it. */
export function refuseWorkbenchOnlyFields(method: string, req: unknown, caller: Principal): DoorRefusal | null {
  if (caller.accountId === null || req === null || typeof req !== 'object') return null
  const field = (WORKBENCH_ONLY[method] ?? []).find((k) => Object.hasOwn(req, k))
  if (field === undefined) return null
  return {
    message: `The request has a field "${field}" that a service account may not give (the ledger names the account that calls); remove it`,
    code: 'bad-input'
  }
}
