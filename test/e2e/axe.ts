/// <reference lib="dom" />
/**
 * axe-core on the page as it is now, for every screen and state the e2e suite visits: `shell.goTo` (every screen) and
 * `screenshot` (every state a test looks at) call `expectAccessible`, so every e2e file checks what it shows without
 * asking. A serious or critical violation fails the test with each rule, its help and the elements it names.
 *
 * The rules are axe's WCAG 2.x A and AA sets (colour contrast at AA, names, roles, keyboard-reachable scroll regions...).
 * Each check is also appended, as one JSON line, to test-results/axe/checks.jsonl (role, where, counts by impact), the
 * record the closing note's per-role table is made from.
 *
 * axe is evaluated through the DevTools protocol (page.evaluate), which the page's Content-Security-Policy does not
 * govern; the app's own policy stays as it ships.
 */
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join, resolve } from 'node:path'
import { expect } from 'vitest'
import type { Page } from 'playwright-core'

const AXE_SOURCE = readFileSync(createRequire(__filename).resolve('axe-core/axe.min.js'), 'utf8')
/** The repository (not app.ts's ROOT: app.ts imports this file). */
const ROOT = resolve(__dirname, '..', '..')
const RECORD_DIR = join(ROOT, 'test-results', 'axe')
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']
/** Impacts that fail a test. */
const FAILING = new Set(['serious', 'critical'])

export interface AxeFinding {
  id: string
  impact: string
  help: string
  /** Each offending element: its selector and axe's summary of what is wrong with it. */
  nodes: string[]
}

/** Who a page is used by, for the record: set once per page by files that sign in as a role (default: the workbench). */
const roles = new WeakMap<Page, string>()

export function setAxeRole(page: Page, role: string): void {
  roles.set(page, role)
}

/** axe's serious and critical findings on the page now (and the record's line). */
export async function axeFindings(page: Page, where: string): Promise<AxeFinding[]> {
  const injected = await page.evaluate(() => typeof (window as unknown as { axe?: unknown }).axe === 'object')
  if (!injected) await page.evaluate(AXE_SOURCE)
  const results = await page.evaluate(async (tags) => {
    const axe = (window as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: AxeViolation[] }> } }).axe
    interface AxeViolation {
      id: string
      impact: string | null
      help: string
      nodes: Array<{ target: unknown[]; failureSummary?: string }>
    }
    const r = await axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] })
    return r.violations.map((v) => ({
      id: v.id,
      impact: v.impact ?? 'minor',
      help: v.help,
      nodes: v.nodes.slice(0, 6).map((n) => `${n.target.join(' ')}: ${(n.failureSummary ?? '').replace(/\s+/g, ' ').slice(0, 300)}`)
    }))
  }, TAGS)
  const counts: Record<string, number> = {}
  for (const v of results) counts[v.impact] = (counts[v.impact] ?? 0) + v.nodes.length
  mkdirSync(RECORD_DIR, { recursive: true })
  appendFileSync(
    join(RECORD_DIR, 'checks.jsonl'),
    JSON.stringify({
      file: process.env.VITEST_TEST_FILE ?? expect.getState().testPath?.replace(ROOT + '/', '') ?? null,
      role: roles.get(page) ?? 'workbench',
      where,
      viewport: page.viewportSize(),
      counts,
      rules: results.map((v) => v.id)
    }) + '\n'
  )
  return results.filter((v) => FAILING.has(v.impact))
}

/** Fails the running test on any serious or critical axe violation on the page now, naming each rule and element. */
export async function expectAccessible(page: Page, where: string): Promise<void> {
  const found = await axeFindings(page, where)
  const text = found.map((v) => `${v.impact} ${v.id} (${v.help}):\n    ${v.nodes.join('\n    ')}`).join('\n  ')
  expect(found.length, `axe on ${where} (${roles.get(page) ?? 'workbench'}):\n  ${text}`).toBe(0)
}
