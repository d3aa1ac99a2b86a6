/**
 * The version of the service's HTTP API (docs/api.md): sent on every JSON answer as the header `X-Quiet-Alarm-Api`;
 * a request may name the version it was written for in the same header, and is refused when that is another.
 */
export const API_VERSION = 1
export const API_VERSION_HEADER = 'X-Quiet-Alarm-Api'

/** Every call's body: the method's request in the field "req". */
export const ENVELOPE_TEXT = 'a call\'s body is {"req": REQUEST}, the method\'s request in the field "req" (docs/api.md)'
