/**
 * What the desktop app works on, and the one call function its window uses whichever it is:
 * - a workspace file of its own user (the workbench): the local services, reached through the doors' `callDoor`;
 * - a service reached as an account (src-main/client/service-client.ts): every contract call goes over HTTPS with the
 *   account's credential, events come from the service's stream (as the account may see them), a chosen file is
 *   uploaded, a report is downloaded from the service and saved here.
 * The connection methods (`app/connection`, `app/open-workspace`, `app/connect-service`) and the native dialogs are
 * answered here, after the same request check as every call. Nothing here imports Electron: the shell (main.ts) passes
 * its dialogs in, and tests pass their own.
 *
 * Switching never leaves the app with nothing: the new backend is opened (or the service answers `accounts/whoami` as
 * the account) before the old one is closed; a failure leaves the old one in place and is answered with one sentence.
 */
import { basename } from 'node:path'
import {
  type CallOutcome,
  type ConnectServiceRequest,
  type ConnectionInfo,
  type EventName,
  type FileHandle,
  type MethodName,
  isMethodName
} from '../contract'
import type { WhoAmI } from '../contract/accounts'
import { FileHandles, credentialFromFileText, writeAtomically, type Services } from '../services'
import { ServiceClient, serviceOrigin } from '../client/service-client'
import { type LocalMethod, callDoor, forwardEvents } from '../door/calls'

export interface DesktopDialogs {
  /** The open dialog for a workspace (or, with `create`, the save dialog for a new one); null when cancelled. */
  chooseWorkspace(create: boolean): Promise<string | null>
  /** The open dialog for a file to import or link; null when cancelled. */
  chooseFile(req: { title?: string; filters?: Array<{ name: string; extensions: string[] }> }): Promise<string | null>
  /** The save dialog for a report; null when cancelled. */
  chooseSavePath(fileName: string): Promise<string | null>
}

export interface ConnectionOptions {
  /** Opens the local services on a workspace file (undefined: the default workspace). Throws with one sentence. */
  openServices(dbPath: string | undefined): Services
  dialogs: DesktopDialogs
  /** Where the services' events go (the window). */
  deliver(name: EventName, payload: unknown): void
}

type Backend =
  | { kind: 'workspace'; services: Services; path: string; stopEvents: () => void }
  | { kind: 'service'; client: ServiceClient; who: WhoAmI; stopEvents: () => void }
  | { kind: 'none'; problem: string }

const fail = (message: string, code: 'bad-input' | 'store' | 'offline' | 'no-window' | 'bad-output' | 'unauthorized') => ({
  ok: false as const,
  error: { message, code }
})

export class DesktopConnection {
  private backend: Backend = { kind: 'none', problem: 'No workspace is open yet.' }
  private readonly door: (method: unknown, req: unknown) => Promise<CallOutcome<unknown>>

  constructor(private readonly options: ConnectionOptions) {
    const local: Record<string, LocalMethod> = {
      'app/connection': async () => ({ ok: true, value: this.info() }),
      'app/open-workspace': async (req) => this.openWorkspaceFromDialog((req as { create?: boolean }).create === true),
      'app/connect-service': async (req) => this.connectService(req as ConnectServiceRequest),
      'app/choose-file': async (req) => this.chooseFile(req as Parameters<DesktopDialogs['chooseFile']>[0]),
      'reports/save': async (req) => this.saveReport((req as { jobId: string }).jobId)
    }
    this.door = callDoor({
      services: () => (this.backend.kind === 'workspace' ? this.backend.services : null),
      unavailable: 'No workspace is open: open or create one, or connect to a service.',
      local
    })
  }

  /** One call from the window: the connection's own methods here, the rest to the workspace's services or the service. */
  call = async (method: unknown, req: unknown): Promise<CallOutcome<unknown>> => {
    const b = this.backend
    if (b.kind !== 'service' || !isMethodName(method) || DESKTOP_METHODS.has(method)) return this.door(method, req)
    return b.client.call(method, req)
  }

  info(): ConnectionInfo {
    const b = this.backend
    if (b.kind === 'workspace') return { kind: 'workspace', workspace: { fileName: basename(b.path), path: b.path }, service: null, problem: null }
    if (b.kind === 'service') {
      return {
        kind: 'service',
        workspace: null,
        service: { origin: b.client.origin, account: b.who.name, roles: b.who.roles, expiresAt: b.who.expiresAt },
        problem: null
      }
    }
    return { kind: 'none', workspace: null, service: null, problem: b.problem }
  }

  /** Opens a workspace file in place of what is open; on failure what was open stays. */
  openWorkspace(path: string | undefined): CallOutcome<ConnectionInfo> {
    let services: Services
    try {
      services = this.options.openServices(path)
    } catch (e) {
      const message = (e as Error).message.split('\n')[0]
      if (this.backend.kind === 'none') this.backend = { kind: 'none', problem: message }
      return fail(message, 'store')
    }
    const stopEvents = forwardEvents(services, this.options.deliver)
    this.replace({ kind: 'workspace', services, path: services.context.store.path, stopEvents })
    return { ok: true, value: this.info() }
  }

  private async openWorkspaceFromDialog(create: boolean): Promise<CallOutcome<{ connection: ConnectionInfo; changed: boolean }>> {
    const path = await this.options.dialogs.chooseWorkspace(create)
    if (path === null) return { ok: true, value: { connection: this.info(), changed: false } }
    const opened = this.openWorkspace(path)
    return opened.ok ? { ok: true, value: { connection: opened.value, changed: true } } : opened
  }

  /** Connects to a service as the credential's account, checked with `accounts/whoami` before what is open is replaced. */
  async connectService(req: ConnectServiceRequest): Promise<CallOutcome<ConnectionInfo>> {
    const origin = serviceOrigin(req.url)
    if (!origin.ok) return fail(origin.message, 'bad-input')
    const credential = credentialFromFileText(req.credential)
    if (credential === null) return fail('That is not a Quiet Alarm credential (a line starting "qa1_", as "account add" printed it)', 'bad-input')
    const client = new ServiceClient({ url: origin.origin, credential, ca: req.ca === undefined || req.ca.trim() === '' ? undefined : req.ca })
    const who = await client.call('accounts/whoami', {})
    if (!who.ok) return who
    const stopEvents = client.events((name, payload) => this.options.deliver(name, payload))
    this.replace({ kind: 'service', client, who: who.value as WhoAmI, stopEvents })
    return { ok: true, value: this.info() }
  }

  private replace(next: Backend): void {
    const old = this.backend
    this.backend = next
    if (old.kind === 'workspace') {
      old.stopEvents()
      void old.services.close().catch((e: unknown) => process.stderr.write(`closing the workspace failed: ${(e as Error)?.message ?? e}\n`))
    } else if (old.kind === 'service') old.stopEvents()
  }

  /** The native open dialog; the services register the file (workspace) or it is uploaded (service): a handle either way. */
  private async chooseFile(req: Parameters<DesktopDialogs['chooseFile']>[0]): Promise<CallOutcome<{ file: FileHandle | null }>> {
    const b = this.backend
    if (b.kind === 'none') return fail(b.problem, 'store')
    const path = await this.options.dialogs.chooseFile(req)
    if (path === null) return { ok: true, value: { file: null } }
    if (b.kind === 'service') {
      const up = await b.client.upload(path, basename(path))
      return up.ok ? { ok: true, value: { file: up.value } } : up
    }
    try {
      const files = (b.services.context.files ??= new FileHandles())
      return { ok: true, value: { file: files.register(path) } }
    } catch (e) {
      return fail((e as Error).message, 'bad-input')
    }
  }

  /** A finished report export, downloaded from the services (or the service) and written where the user chose. */
  private async saveReport(jobId: string): Promise<CallOutcome<{ saved: boolean; fileName: string }>> {
    const dl = await this.call('reports/download', { jobId })
    if (!dl.ok) return dl
    const file = dl.value as { fileName: string; base64: string }
    const target = await this.options.dialogs.chooseSavePath(file.fileName)
    if (target === null) return { ok: true, value: { saved: false, fileName: file.fileName } }
    try {
      writeAtomically(target, Buffer.from(file.base64, 'base64'))
    } catch (e) {
      return fail((e as Error).message, 'bad-output')
    }
    return { ok: true, value: { saved: true, fileName: file.fileName } }
  }

  /** Closes what is open (the app quits). */
  async close(): Promise<void> {
    const old = this.backend
    this.backend = { kind: 'none', problem: 'Quiet Alarm is closing.' }
    if (old.kind !== 'none') old.stopEvents()
    if (old.kind === 'workspace') await old.services.close()
  }
}

/** Methods the desktop answers itself whatever it is connected to. */
const DESKTOP_METHODS: ReadonlySet<MethodName> = new Set<MethodName>([
  'app/connection',
  'app/open-workspace',
  'app/connect-service',
  'app/choose-file',
  'reports/save'
])
