/** The worker count a user chose in Settings, remembered in the workspace (`workspace_meta`). */
import type { Store } from '../store/store'

export const MAX_WORKERS = 32
const KEY = 'workers'

export function loadWorkerSetting(store: Store): number | undefined {
  const row = store.db.prepare('SELECT value FROM workspace_meta WHERE key = ?').get(KEY) as { value: string } | undefined
  const n = row ? Number(row.value) : NaN
  return Number.isInteger(n) && n >= 1 && n <= MAX_WORKERS ? n : undefined
}

export function saveWorkerSetting(store: Store, workers: number): void {
  store.db
    .prepare('INSERT INTO workspace_meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value')
    .run(KEY, String(workers))
}
