/// <reference lib="dom" />
import { describe, expect, it } from 'vitest'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { newPage, screenshot } from './app'
import { openAppPerTest } from './open-app'
import { shell } from './pages/shell'
import { LATEST_SCHEMA_VERSION } from '../../src-main/services/store/migrations'

// Every test stands alone: a fresh workspace and a signed-in page each, so e.g. the worker count one test
// sets is not what another one finds.
const opened = openAppPerTest()

describe('app shell in headless mode', () => {
  it('opens, shows the status panel, visits every section and saves a screenshot of each', async () => {
    const { page, app } = opened
    // The token leaves the address bar once read.
    expect(page.url()).not.toContain('token=')
    const status = await shell.status(page)
    expect(status.dbPath).toBe(app.db)
    expect(status.schema).toBe(`version ${LATEST_SCHEMA_VERSION} (current)`)
    expect(status.pool).toMatch(/^2 workers, (idle|busy)/)
    for (const title of ['Datasets', 'Queries', 'Releases', 'Alarms', 'Experiments', 'Ledger', 'Accounts', 'Reports', 'Settings']) {
      await shell.goTo(page, title)
      await screenshot(page, `shell-${title.toLowerCase()}`)
    }
  })

  it('is keyboard usable: Tab reaches the navigation and Enter opens a section', async () => {
    const { page } = opened
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press('Tab')
      const focused = await page.evaluate(() => document.activeElement?.textContent)
      if (focused === 'Ledger') break
    }
    await page.keyboard.press('Enter')
    await page.getByRole('heading', { level: 1, name: 'Ledger' }).waitFor()
  })

  it('runs the sampler self-check on the pool from Settings and shows the recorded result', async () => {
    const { page, app } = opened
    await shell.goTo(page, 'Settings')
    await page.getByTestId('self-check-start').click()
    const result = page.getByTestId('self-check-result')
    await result.waitFor({ timeout: 60_000 })
    expect(await result.textContent()).toMatch(/^Passed: KS distance 0\.\d+ vs critical 0\.\d+ over 400,000 samples on 2 workers/)
    await screenshot(page, 'settings-self-check')
    // It was recorded in the workspace: a fresh page shows it without running again.
    const again = await newPage(opened.browser)
    await shell.open(again, `${app.origin}/#token=${app.token}`)
    await shell.goTo(again, 'Settings')
    await again.getByTestId('self-check-result').waitFor()
    await again.context().close()
  })

  it('Settings changes the worker count; the status panel follows', async () => {
    const { page } = opened
    await shell.goTo(page, 'Settings')
    // A disabled Apply says why.
    expect(await page.getByTestId('settings-workers-apply').isDisabled()).toBe(true)
    expect(await page.getByTestId('settings-workers-why').innerText()).toBe('Type the number of worker threads you want (1 to 32) to change it.')
    await page.getByLabel('Worker threads').fill('1')
    expect(await page.getByTestId('settings-workers-why').count()).toBe(0)
    await page.getByTestId('settings-workers-apply').click()
    expect(await page.getByTestId('settings-workers-message').innerText()).toMatch(/^Now 1 worker; remembered for the next start\./)
    await page.getByTestId('settings-workers').filter({ hasText: /^1$/ }).waitFor()
    await page
      .getByRole('region', { name: 'Status' })
      .getByTestId('status-pool')
      .filter({ hasText: /^1 worker, / })
      .waitFor({ timeout: 10_000 })
    // Out of range: the form itself refuses it (the service would too: see the services integration test).
    await page.getByLabel('Worker threads').fill('0')
    expect(await page.getByLabel('Worker threads').evaluate((el) => (el as HTMLInputElement).validity.valid)).toBe(false)
    expect(await page.getByTestId('settings-workers-apply').isDisabled()).toBe(true)
    expect(await page.getByTestId('settings-workers-why').innerText()).toBe('Worker threads must be a whole number from 1 to 32 (got “0”).')
    await page.getByLabel('Worker threads').fill('1')
    expect(await page.getByTestId('settings-workers-why').innerText()).toBe('There is already 1 worker thread.')
    await screenshot(page, 'settings-workers')
  })

  it('a script injected into the signed-in page (XSS) cannot read or write files through the API', async () => {
    const { page, app } = opened
    const target = join(app.dir, 'victim.txt')
    writeFileSync(target, 'ORIGINAL')
    const answers = await page.evaluate(async (victim) => {
      const token = sessionStorage.getItem('quiet-alarm-token') ?? ''
      const call = async (method: string, req: unknown) =>
        (await fetch(`/api/call/${method}`, { method: 'POST', headers: { Authorization: `Bearer ${token}` }, body: JSON.stringify({ req }) })).text()
      return [
        await call('datasets/preview-file', { path: '/etc/passwd' }),
        await call('datasets/preview-file', { fileId: '/etc/passwd' }),
        await call('datasets/import', { fileId: '/etc/passwd', name: 'passwd' }),
        await call('reports/export', { format: 'json', outPath: victim }),
        await call('app/choose-file', {})
      ]
    }, target)
    for (const a of answers) expect(JSON.parse(a)).toMatchObject({ ok: false })
    expect(answers.join('\n')).not.toMatch(/root:[^:]*:0:0:/)
    expect(readFileSync(target, 'utf8')).toBe('ORIGINAL')
    expect(JSON.parse(answers[0]).error.message).toMatch(/never takes file paths/)
    expect(JSON.parse(answers[1]).error.message).toMatch(/^Unknown file/)
  })

  it('without the token the UI says how to get in and the API refuses', async () => {
    const page = await newPage(opened.browser)
    await page.goto(`${opened.app.origin}/`)
    await page.getByText('This page needs its session token').waitFor()
    const status = await page.evaluate(async () => (await fetch('/api/call/app/status', { method: 'POST', body: '{}' })).status)
    expect(status).toBe(401)
  })
})
