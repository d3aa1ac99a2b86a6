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
import { signInAs, startService, type RunningService } from './service'

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
  officer: ['Datasets', 'Queries', 'Releases', 'Experiments', 'Ledger', 'Reports'],
  custodian: ['Datasets', 'Queries', 'Releases', 'Experiments', 'Ledger', 'Settings'],
  analyst: ['Datasets', 'Queries', 'Releases', 'Experiments', 'Ledger']
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
