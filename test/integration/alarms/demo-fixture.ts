/**
 * The demo workspace (`quiet-alarm demo`: the bundled synthetic occupancy sample, its officer, budgets, saved queries and
 * one release of each kind), built once per test file and copied for each test that spends from it.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runCli } from '../cli-runner'
import { openStore, type Store } from '../../../src-main/services/store/store'

export const DEMO_QUERIES = { threshold: 1, aiq: 2, search: 3 } as const

export interface DemoWorkspace {
  dir: string
  /** A fresh copy of the demo workspace file, opened. */
  copy(): Store
  cleanup(): void
}

export async function buildDemo(): Promise<DemoWorkspace> {
  const dir = mkdtempSync(join(tmpdir(), 'qa-alarms-demo-'))
  const path = join(dir, 'demo.qa')
  const r = await runCli(['demo', '--db', path], { cwd: dir })
  if (r.code !== 0) throw new Error(`demo failed (${r.code}): ${r.err}`)
  let copies = 0
  const open: Store[] = []
  return {
    dir,
    copy() {
      const to = join(dir, `copy-${++copies}.qa`)
      copyFileSync(path, to)
      const s = openStore(to)
      open.push(s)
      return s
    },
    cleanup() {
      for (const s of open) {
        try {
          s.close()
        } catch {
          // already closed by the test
        }
      }
      rmSync(dir, { recursive: true, force: true })
    }
  }
}
