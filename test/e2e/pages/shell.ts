import { expect } from 'vitest'
import type { Page } from 'playwright-core'
import { expectAccessible } from '../axe'

/** What a user does with the app shell: go to a section (and check it with axe), read the status panel. */
export const shell = {
  async open(page: Page, url: string) {
    await page.goto(url)
    await page.getByRole('navigation', { name: 'Sections' }).waitFor()
  },
  async goTo(page: Page, title: string) {
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: title, exact: true }).click()
    await page.getByRole('heading', { level: 1, name: title }).waitFor()
    expect(await page.getByRole('link', { name: title, exact: true }).getAttribute('aria-current')).toBe('page')
    await expectAccessible(page, `the ${title} screen`)
  },
  async status(page: Page) {
    const panel = page.getByRole('region', { name: 'Status' })
    await panel.getByTestId('status-schema').waitFor()
    return {
      dbPath: (await panel.getByTestId('status-db-path').textContent()) ?? '',
      schema: (await panel.getByTestId('status-schema').textContent()) ?? '',
      pool: (await panel.getByTestId('status-pool').textContent()) ?? ''
    }
  }
}
