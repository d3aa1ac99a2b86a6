import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { ROOT, launchBrowser, newPage, startApp, type RunningApp } from './app'
import { shell } from './pages/shell'

export interface OpenApp {
  app: RunningApp
  browser: Browser
  page: Page
}

/**
 * For one test file: before its tests, start the built app in headless mode and open it in a browser page (signed in);
 * after them, close both. The fields are set once the file's first `beforeAll` has run.
 */
export function openAppForFile(): OpenApp {
  const opened = {} as OpenApp
  beforeAll(async () => {
    opened.app = await startApp()
    opened.browser = await launchBrowser()
    opened.page = await newPage(opened.browser)
    await shell.open(opened.page, opened.app.url)
  })
  afterAll(async () => {
    await opened.browser?.close()
    await opened.app?.stop()
  })
  return opened
}

/**
 * For tests that stand alone: each test gets a fresh workspace (its own server on a new temporary folder) and a
 * new signed-in page in its own browser context; the browser is shared by the file (launching it is the slow part).
 * Files whose tests are the steps of one story (workflows, layout: import, then budget, then release...) keep
 * `openAppForFile`, as one workspace is the story's state.
 */
export function openAppPerTest(): OpenApp {
  const opened = {} as OpenApp
  beforeAll(async () => {
    opened.browser = await launchBrowser()
  })
  beforeEach(async () => {
    opened.app = await startApp()
    opened.page = await newPage(opened.browser)
    await shell.open(opened.page, opened.app.url)
  })
  afterEach(async () => {
    await opened.page?.context().close()
    await opened.app?.stop()
  })
  afterAll(async () => {
    await opened.browser?.close()
  })
  return opened
}

/** Registers the workspace's first privacy officer with the built CLI (`officer init`), as a custodian sets one up. */
export function initOfficerWithCli(db: string, officer: { name: string; passphrase: string }): void {
  const r = spawnSync(process.execPath, [join(ROOT, 'out', 'main', 'cli.js'), 'officer', 'init', '--db', db, '--name', officer.name], {
    env: { ...process.env, QUIET_ALARM_PASSPHRASE: officer.passphrase },
    encoding: 'utf8'
  })
  if (r.status !== 0) throw new Error(`officer init failed: ${r.stderr}`)
}
