/// <reference lib="dom" />
/**
 * Every role of the service signs in on the browser's sign-in screen and visits every section it is offered; `shell.goTo`
 * runs axe on each (test/e2e/axe.ts), so a serious or critical violation on any screen of any role fails here. The
 * sign-in screen itself is checked before anyone signs in. The workbench's user (every role) is checked by every other
 * e2e file through the same helper.
 * Screenshots: test-results/screenshots/roles-<role>-<section>.png.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { launchBrowser, newPage, screenshot } from './app'
import { expectAccessible, setAxeRole } from './axe'
import { VIEWPORTS } from './pages/layout'
import { shell } from './pages/shell'
import { SERVICE_OFFICER, signInAs, startService, type RunningService } from './service'

let service: RunningService
let browser: Browser
beforeAll(async () => {
  service = await startService()
  browser = await launchBrowser()
})
afterAll(async () => {
  await browser?.close()
  await service?.stop()
})

/** The sections each role is offered, in the sidebar's order. */
const SECTIONS = {
  officer: ['Datasets', 'Queries', 'Releases', 'Alarms', 'Experiments', 'Ledger', 'Accounts', 'Reports'],
  custodian: ['Datasets', 'Queries', 'Releases', 'Alarms', 'Experiments', 'Ledger', 'Settings'],
  analyst: ['Datasets', 'Queries', 'Releases', 'Alarms', 'Experiments', 'Ledger']
} as const

describe('the service, every role, every section, at 1024x700', () => {
  it('the sign-in screen', async () => {
    const page = await newPage(browser)
    setAxeRole(page, 'service, signed out')
    await page.setViewportSize(VIEWPORTS[0])
    await page.goto(service.url)
    await page.getByTestId('sign-in').waitFor()
    await expectAccessible(page, 'the sign-in screen')
    await page.getByTestId('sign-in-text').fill('qa1_1_not-a-credential-at-all-but-long-enough-to-look-like-one')
    await page.context().close()
  })

  for (const role of ['officer', 'custodian', 'analyst'] as const) {
    it(`the ${role}`, async () => {
      const page = await newPage(browser)
      await page.setViewportSize(VIEWPORTS[0])
      await signInAs(page, service, role)
      const offered = await page.getByRole('navigation', { name: 'Sections' }).getByRole('link').allInnerTexts()
      expect(offered).toEqual(SECTIONS[role])
      for (const title of offered) {
        await shell.goTo(page, title)
        await screenshot(page, `roles-${role}-${title.toLowerCase()}`)
      }
      await page.context().close()
    })
  }
})

describe('each role is offered only what the service lets it do, and the time shown says which end it is', () => {
  it('the analyst is not offered Rename, Delete or "Add an officer…"; the custodian is offered Rename and Delete', async () => {
    const analyst = await newPage(browser)
    await signInAs(analyst, service, 'analyst')
    await shell.goTo(analyst, 'Datasets')
    await analyst.getByRole('button', { name: 'Open occupancy', exact: true }).waitFor()
    expect(await analyst.getByRole('button', { name: 'Rename occupancy', exact: true }).count()).toBe(0)
    expect(await analyst.getByRole('button', { name: 'Delete occupancy', exact: true }).count()).toBe(0)
    await shell.goTo(analyst, 'Ledger')
    await analyst.getByTestId('officers-expand').click()
    await analyst.getByTestId('officers-list').waitFor()
    expect(await analyst.getByTestId('officer-add-open').count()).toBe(0)
    await analyst.context().close()

    const custodian = await newPage(browser)
    await signInAs(custodian, service, 'custodian')
    await shell.goTo(custodian, 'Datasets')
    await custodian.getByRole('button', { name: 'Rename occupancy', exact: true }).waitFor()
    // In the service the file is uploaded to the host: the import never says it stays on this machine.
    const importText = await custodian.getByTestId('import-panel').innerText()
    expect(importText).toContain('It is uploaded to the service’s host')
    expect(importText).not.toContain('stays on this machine')
    expect(await custodian.getByRole('button', { name: 'Delete occupancy', exact: true }).count()).toBe(1)
    await custodian.context().close()

    const officer = await newPage(browser)
    await signInAs(officer, service, 'officer')
    await shell.goTo(officer, 'Ledger')
    await officer.getByTestId('officers-expand').click()
    await officer.getByTestId('officer-add-open').waitFor()
    await officer.context().close()
  })

  it('the sidebar names the session’s end after sign-in, and the same end after a reload', async () => {
    const page = await newPage(browser)
    await signInAs(page, service, 'analyst')
    const shown = await page.getByTestId('signed-in-role').innerText()
    expect(shown).toMatch(/^analyst · session ends \d{1,2} \w{3} \d{4}, \d{2}:\d{2}/)
    await page.reload()
    await page.getByRole('navigation', { name: 'Sections' }).waitFor()
    expect(await page.getByTestId('signed-in-role').innerText()).toBe(shown)
    await page.context().close()
  })
})

describe('the Accounts screen (the service’s officer)', () => {
  it('adds an analyst (credential shown once, with a copy button), allots a share, revokes with a reason; the new credential signs in until revoked', async () => {
    const page = await newPage(browser)
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'])
    await page.setViewportSize(VIEWPORTS[0])
    await signInAs(page, service, 'officer')
    await shell.goTo(page, 'Accounts')
    expect(await page.getByTestId('account-row-ana').innerText()).toMatch(/analyst\tactive/)
    // Add: the credential is shown once, and copied.
    await page.getByTestId('account-name').fill('bo')
    await page.getByTestId('account-days').fill('30')
    await page.getByTestId('account-add-passphrase').fill(SERVICE_OFFICER.passphrase)
    await page.getByTestId('account-add-submit').click()
    const shown = page.getByTestId('account-credential')
    await shown.waitFor()
    const credential = (await page.getByTestId('account-credential-value').innerText()).trim()
    expect(credential).toMatch(/^qa1_\d+_[A-Za-z0-9_-]{43}$/)
    await page.getByTestId('account-credential-copy').click()
    await page.getByRole('button', { name: 'Copied' }).waitFor()
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(credential)
    await screenshot(page, 'roles-accounts-added')
    await page.getByTestId('account-credential-done').click()
    expect(await page.getByTestId('account-credential').count()).toBe(0)
    await page.getByTestId('account-row-bo').waitFor()
    expect(await page.getByTestId('account-row-bo').innerText()).toMatch(/analyst\tactive/)

    // The new credential signs in.
    const bo = await newPage(browser)
    await bo.goto(service.url)
    await bo.getByTestId('sign-in-text').fill(credential)
    await bo.getByTestId('sign-in-submit').click()
    await bo.getByTestId('signed-in-name').waitFor()
    expect(await bo.getByTestId('signed-in-name').innerText()).toBe('bo')

    // Allot bo a share of the dataset's budget.
    await page.getByRole('button', { name: 'Allot a budget to bo' }).click()
    const allot = page.getByTestId('account-allot-form')
    await allot.getByTestId('account-allot-epsilon').fill('1.5')
    await allot.getByTestId('account-allot-reason').fill('bo’s share')
    await allot.getByTestId('account-allot-passphrase').fill(SERVICE_OFFICER.passphrase)
    await allot.getByTestId('account-allot-submit').click()
    expect(await page.getByTestId('account-allot-done').innerText()).toBe(
      'bo may now spend up to ε 1.5 of “occupancy”, within the dataset’s own budget.'
    )
    await expectAccessible(page, 'the Accounts screen, allotting')

    // Revoke with a reason: listed as revoked with it, and bo's session ends.
    await page.getByRole('button', { name: 'Revoke bo' }).click()
    const revoke = page.getByTestId('account-revoke-form')
    await revoke.getByTestId('account-revoke-reason').fill('left the project')
    await revoke.getByTestId('account-revoke-passphrase').fill(SERVICE_OFFICER.passphrase)
    await expectAccessible(page, 'the Accounts screen, revoking')
    await revoke.getByTestId('account-revoke-submit').click()
    await page.getByTestId('account-revoke-form').waitFor({ state: 'detached' })
    expect(await page.getByTestId('account-row-bo').innerText()).toMatch(/revoked\s+by olga, .*: left the project/)
    await bo.reload()
    await bo.getByTestId('sign-in').waitFor()
    await bo.context().close()
    await page.context().close()
  })
})
