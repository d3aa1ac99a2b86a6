/**
 * The one client the UI uses to reach the backend. Two transports, one interface:
 * - desktop: Electron IPC through the preload's `window.quietAlarm`;
 * - headless: HTTP POST /api/call/<method> with the session token, and an EventSource on /api/events.
 */
import type {
  CallOutcome,
  ErrorCode,
  EventName,
  Events,
  FileHandle,
  MethodName,
  QuietAlarmBridge,
  RequestOf,
  ResponseOf
} from '../../../src-main/contract'

export interface Transport {
  readonly kind: 'ipc' | 'http'
  call(method: MethodName, req: unknown): Promise<CallOutcome<unknown>>
  onEvent(listener: (name: EventName, payload: unknown) => void): () => void
  /** Headless only: hand a local file to the services; the answer is an opaque handle (never a server-side path). */
  upload?(file: File, onProgress?: (sent: number, total: number) => void): Promise<FileHandle>
}

export class ApiError extends Error {
  constructor(
    message: string,
    /** One of the contract's codes: branch on it, never on the message. */
    readonly code: ErrorCode
  ) {
    super(message)
    this.name = 'ApiError'
  }
}

export function ipcTransport(bridge: QuietAlarmBridge): Transport {
  return { kind: 'ipc', call: (m, r) => bridge.call(m, r), onEvent: (l) => bridge.onEvent(l) }
}

/**
 * HTTP to the headless server or a service. `token`: the workbench's session token (sent as a header, and in the event
 * stream's address since EventSource sends no header); null: a service, where the sign-in cookie authenticates.
 * `onSignedOut`: told when the service answers that the session is over (expired, revoked, signed out elsewhere).
 */
export function httpTransport(token: string | null, base = '', onSignedOut?: (message: string) => void): Transport {
  const auth: Record<string, string> = token === null ? {} : { Authorization: `Bearer ${token}` }
  const listeners = new Set<(name: EventName, payload: unknown) => void>()
  let source: EventSource | null = null
  const ensureStream = () => {
    if (source) return
    source = new EventSource(token === null ? `${base}/api/events` : `${base}/api/events?token=${encodeURIComponent(token)}`)
    source.onmessage = (ev) => {
      try {
        const { name, payload } = JSON.parse(ev.data as string) as { name: EventName; payload: unknown }
        for (const l of listeners) l(name, payload)
      } catch {
        /* ignore malformed frames */
      }
    }
  }
  return {
    kind: 'http',
    async call(method, req) {
      let res: Response
      try {
        res = await fetch(`${base}/api/call/${encodeURIComponent(method)}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', ...auth },
          body: JSON.stringify({ req })
        })
      } catch {
        return { ok: false, error: { message: 'Cannot reach the Quiet Alarm service. Is `npm run serve` still running?', code: 'offline' } }
      }
      const body = (await res.json().catch(() => null)) as CallOutcome<unknown> | null
      if (!body) return { ok: false, error: { message: `The service answered ${res.status} without a readable body`, code: 'bad-response' } }
      if (!body.ok && body.error.code === 'unauthorized' && token === null) onSignedOut?.(body.error.message)
      return body
    },
    onEvent(listener) {
      listeners.add(listener)
      ensureStream()
      return () => listeners.delete(listener)
    },
    upload(file, onProgress) {
      // XMLHttpRequest, not fetch: it reports upload progress.
      return new Promise((resolve, reject) => {
        const xhr = new XMLHttpRequest()
        xhr.open('POST', `${base}/api/upload?name=${encodeURIComponent(file.name)}`)
        if (token !== null) xhr.setRequestHeader('Authorization', `Bearer ${token}`)
        xhr.upload.onprogress = (e) => onProgress?.(e.loaded, e.total)
        xhr.onload = () => {
          try {
            const body = JSON.parse(xhr.responseText) as CallOutcome<FileHandle>
            if (body.ok) resolve(body.value)
            else reject(new ApiError(body.error.message, body.error.code))
          } catch {
            reject(new ApiError('The upload failed', 'upload'))
          }
        }
        xhr.onerror = () => reject(new ApiError('The upload failed: the service is not reachable', 'offline'))
        xhr.send(file)
      })
    }
  }
}

export interface Client {
  readonly transport: Transport
  call<M extends MethodName>(method: M, req: RequestOf<M>): Promise<ResponseOf<M>>
  on<E extends EventName>(name: E, listener: (payload: Events[E]) => void): () => void
}

export function createClient(transport: Transport): Client {
  return {
    transport,
    async call(method, req) {
      const out = await transport.call(method, req)
      if (!out.ok) throw new ApiError(out.error.message, out.error.code)
      return out.value as never
    },
    on(name, listener) {
      return transport.onEvent((n, payload) => {
        if (n === name) listener(payload as never)
      })
    }
  }
}

const TOKEN_KEY = 'quiet-alarm-token'

/** The session token of headless mode: from the URL fragment on first load, then from sessionStorage. */
export function headlessToken(): string | null {
  const m = /(?:^#|&)token=([A-Za-z0-9_-]+)/.exec(window.location.hash)
  if (m) {
    sessionStorage.setItem(TOKEN_KEY, m[1])
    // Keep the token out of the visible address and of screenshots.
    history.replaceState(null, '', window.location.pathname + window.location.search + '#/datasets')
    return m[1]
  }
  return sessionStorage.getItem(TOKEN_KEY)
}
