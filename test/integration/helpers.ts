import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** A fresh workspace folder per test; removed by the returned cleanup. */
export function tempWorkspace(prefix = 'qa-test-'): { dir: string; db: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  return { dir, db: join(dir, 'workspace.sqlite'), cleanup: () => rmSync(dir, { recursive: true, force: true }) }
}

/** Wait until `pred` holds, polling; fails with `what` after `ms`. Tests wait on states, never on bare sleeps. */
export async function waitFor(pred: () => boolean | Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const until = Date.now() + ms
  while (Date.now() < until) {
    if (await pred()) return
    await new Promise((r) => setTimeout(r, 20))
  }
  throw new Error(`timed out after ${ms} ms waiting for ${what}`)
}
