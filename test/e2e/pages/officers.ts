import type { Page } from 'playwright-core'
import { shell } from './shell'

/** What a privacy officer does in "Privacy officers" on the Ledger screen: set up the first officer, add another. */
export const officers = {
  panel: (page: Page) => page.getByTestId('officers-panel'),

  /** The passphrase rules the form states before anything is typed. */
  async rules(page: Page): Promise<string[]> {
    return page.getByTestId('officer-passphrase-rules').locator('li').allInnerTexts()
  },

  /** Fill the new officer's name and passphrase (twice); returns why the button is disabled ('' when it is not). */
  async fillNew(page: Page, o: { name: string; passphrase: string; repeated?: string }): Promise<string> {
    const form = page.getByTestId('officer-register-form')
    await form.getByLabel('Officer’s name').fill(o.name)
    await form.getByLabel('New passphrase').fill(o.passphrase)
    await form.getByLabel('Repeat the passphrase').fill(o.repeated ?? o.passphrase)
    const why = form.getByTestId('officer-register-why')
    return (await why.count()) > 0 ? await why.innerText() : ''
  },

  /** Set up the first officer of the workspace; returns the key id the app shows (to keep elsewhere). */
  async setUpFirst(page: Page, o: { name: string; passphrase: string }): Promise<string> {
    await shell.goTo(page, 'Ledger')
    const form = page.getByTestId('officer-register-form')
    await form.getByRole('heading', { name: 'Set up the privacy officer' }).waitFor()
    await officers.fillNew(page, o)
    await form.getByRole('button', { name: 'Set up the privacy officer' }).click()
    return officers.registered(page)
  },

  /** A registered officer adds another one (their passphrase signs the registration). */
  async add(page: Page, o: { name: string; passphrase: string; by: string; byPassphrase: string }): Promise<string> {
    await shell.goTo(page, 'Ledger')
    const panel = officers.panel(page)
    const expand = panel.getByTestId('officers-expand')
    if (await expand.isVisible()) await expand.click()
    await panel.getByRole('button', { name: 'Add an officer…' }).click()
    await officers.fillNew(page, o)
    const form = page.getByTestId('officer-register-form')
    const by = form.getByLabel('Added by')
    if ((await by.evaluate((el) => el.tagName)) === 'SELECT') await by.selectOption(o.by)
    else await by.fill(o.by)
    await form.getByLabel('Their passphrase').fill(o.byPassphrase)
    await form.getByRole('button', { name: 'Add the officer' }).click()
    return officers.registered(page)
  },

  async registered(page: Page): Promise<string> {
    await page.locator('[data-testid="officer-registered"], [data-testid="officer-register-error"]').first().waitFor()
    const err = page.getByTestId('officer-register-error')
    if (await err.isVisible()) throw new Error(`registering the officer failed: ${await err.innerText()}`)
    return page.getByTestId('officer-key-id').innerText()
  }
}
