import { afterAll, beforeAll } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { launchBrowser, newPage, startApp, type RunningApp } from './app'
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
