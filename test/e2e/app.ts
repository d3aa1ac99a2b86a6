/**
 * E2E fixtures: start the BUILT headless server (`node out/main/server.js`, as `npm run serve` does) on a fresh
 * workspace, and Debian's Chromium through playwright-core. Screenshots go to test-results/screenshots/.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { chromium, type Browser, type Page } from 'playwright-core'
import { CHROMIUM_ARGS, chromiumPath } from '../../src-main/services/reports/chromium-printer'
import { expectAccessible } from './axe'

export const ROOT = resolve(__dirname, '..', '..')
export const SCREENSHOTS = join(ROOT, 'test-results', 'screenshots')
export const CHROMIUM = chromiumPath()

export interface RunningApp {
  url: string
  origin: string
  token: string
  dir: string
  db: string
  stop(): Promise<void>
}

export async function startApp(extraArgs: string[] = []): Promise<RunningApp> {
  const server = join(ROOT, 'out', 'main', 'server.js')
  if (!existsSync(server)) throw new Error('out/main/server.js is missing: run "npm run build" first')
  const dir = mkdtempSync(join(tmpdir(), 'qa-e2e-'))
  const db = join(dir, 'workspace.sqlite')
  // Started in its temporary folder, outside the repository, as an installed copy would be: nothing may depend on the
  // working folder (the presets' workloads ship in resources/).
  const child: ChildProcess = spawn(process.execPath, [server, '--db', db, '--workers', '2', ...extraArgs], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let out = ''
  let err = ''
  child.stderr!.on('data', (d) => (err += String(d)))
  const url = await new Promise<string>((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`server did not print its address in 30 s: ${out} ${err}`)), 30_000)
    child.stdout!.on('data', (d) => {
      out += String(d)
      const m = /Open:\s+(http:\/\/127\.0\.0\.1:\d+\/#token=[A-Za-z0-9_-]+)/.exec(out)
      if (m) {
        clearTimeout(timer)
        res(m[1])
      }
    })
    child.on('exit', (code) => {
      clearTimeout(timer)
      rej(new Error(`server exited with ${code}: ${err}`))
    })
  })
  const u = new URL(url)
  return {
    url,
    origin: u.origin,
    token: u.hash.replace('#token=', ''),
    dir,
    db,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM')
        await new Promise((r) => child.once('exit', r))
      }
      rmSync(dir, { recursive: true, force: true })
    }
  }
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: CHROMIUM_ARGS
  })
}

export async function newPage(browser: Browser): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
  const page = await context.newPage()
  page.on('pageerror', (e) => {
    throw e
  })
  return page
}

/** A picture of the page as a test left it, after axe has found no serious or critical violation in it (every state a test looks at is checked). */
export async function screenshot(page: Page, name: string): Promise<string> {
  await expectAccessible(page, `the state pictured in ${name}.png`)
  mkdirSync(SCREENSHOTS, { recursive: true })
  const path = join(SCREENSHOTS, `${name}.png`)
  // From the top: the sticky sidebar is drawn where the window is scrolled to, which in a full-page picture would put it
  // halfway down the page.
  await page.evaluate(() => window.scrollTo(0, 0))
  await page.screenshot({ path, fullPage: true, animations: 'disabled' })
  return path
}
