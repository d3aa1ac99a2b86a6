/**
 * The sandboxed preload: exposes `window.quietAlarm` with exactly the contract (call a method by name, listen to
 * contract events) and nothing else. Method and event names are checked against the contract's allow-lists. The
 * contract is path-free (files are opaque handles from the main process's dialog, reports are saved through
 * its save dialog), and a parameter naming a file is refused here already (and again in the main process).
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron'
import { type CallOutcome, type EventName, type MethodName, type QuietAlarmBridge, eventNames, isMethodName } from '../contract'
import { refusePathParameters } from '../services/app/door-guard'
import { IPC_CALL, IPC_EVENT } from './ipc-channels'

const bridge: QuietAlarmBridge = {
  call(method: MethodName, req: unknown): Promise<CallOutcome<unknown>> {
    if (!isMethodName(method)) return Promise.resolve({ ok: false, error: { message: `Unknown method "${String(method)}"`, code: 'unknown-method' } })
    const refused = refusePathParameters(method, req)
    if (refused) return Promise.resolve({ ok: false, error: refused })
    return ipcRenderer.invoke(IPC_CALL, method, req)
  },
  onEvent(listener: (name: EventName, payload: unknown) => void): () => void {
    const handler = (_e: IpcRendererEvent, name: unknown, payload: unknown) => {
      if (typeof name === 'string' && (eventNames as readonly string[]).includes(name)) listener(name as EventName, payload)
    }
    ipcRenderer.on(IPC_EVENT, handler)
    return () => ipcRenderer.removeListener(IPC_EVENT, handler)
  }
}

contextBridge.exposeInMainWorld('quietAlarm', bridge)
