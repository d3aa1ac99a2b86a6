import type { QuietAlarmBridge } from '../../src-main/contract'

declare global {
  interface Window {
    /** Present only in the Electron desktop app (exposed by the preload). */
    quietAlarm?: QuietAlarmBridge
  }
}
export {}
