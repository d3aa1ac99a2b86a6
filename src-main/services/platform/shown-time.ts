/**
 * Times as the service shows them (ALGORITHMS.md section 5: no field dates anything finer than the public cadence).
 * Stored records keep their milliseconds; what a job, an experiment or a progress event shows in the service is floored
 * to a tick. In the workbench (`cadenceMs` null) everything is shown as stored.
 */
/** A time as the services write them (`Date.prototype.toISOString`: UTC, milliseconds). */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

/** `ms` (since the epoch) as an ISO time, floored to the cadence when there is one. */
export function shownTime(ms: number, cadenceMs: number | null): string {
  return new Date(cadenceMs === null ? ms : Math.floor(ms / cadenceMs) * cadenceMs).toISOString()
}

/** An object literal's kind (not a Buffer, a typed array, a Date or a class instance). */
function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object') return false
  const proto = Object.getPrototypeOf(v) as unknown
  return proto === Object.prototype || proto === null
}

/**
 * A copy of `value` (JSON data: plain objects, arrays, strings, numbers) with every ISO time in it floored to the
 * cadence; `value` itself when there is no cadence. Anything else (bytes, class instances) is passed on as it is.
 */
export function coarseTimes<T>(value: T, cadenceMs: number | null): T {
  if (cadenceMs === null) return value
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return ISO_TIME.test(v) ? shownTime(Date.parse(v), cadenceMs) : v
    if (Array.isArray(v)) return v.map(walk)
    if (isPlainObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]))
    return v
  }
  return walk(value) as T
}

/** The fields that hold when something was written (a definition's own times, e.g. a period's bounds, are not these). */
const TIME_FIELDS = new Set(['at', 'createdAt', 'answeredAt', 'updatedAt', 'deletedAt'])

/**
 * What an analyst account of the service reads (its releases, its ledger entries, saved queries; `onlyAccount` is
 * roles.ts ownRecordsOnly of the caller): the time fields in it floored to the cadence. The officer, the custodian and the workbench read the stored times (audit needs them exact).
 */
export function analystTimes<T>(value: T, onlyAccount: number | null, cadenceMs: number | null): T {
  if (cadenceMs === null || onlyAccount === null) return value
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk)
    if (!isPlainObject(v)) return v
    return Object.fromEntries(
      Object.entries(v).map(([k, x]) => [
        k,
        TIME_FIELDS.has(k) && typeof x === 'string' && ISO_TIME.test(x) ? shownTime(Date.parse(x), cadenceMs) : walk(x)
      ])
    )
  }
  return walk(value) as T
}
