import type { Page } from 'playwright-core'
import { shell } from './shell'

/** What a user does in "Connect to PostgreSQL" on the Datasets screen. */
export const postgres = {
  panel: (page: Page) => page.getByTestId('postgres-panel'),

  /**
   * Open the panel, type the URL (and the password variable) and the officer's passphrase (an officer act: the server's
   * password is used), test the connection; returns the error or null.
   */
  async connect(page: Page, url: string, opts: { passphrase: string; passwordEnv?: string }): Promise<string | null> {
    await shell.goTo(page, 'Datasets')
    const open = page.getByRole('button', { name: 'Connect to PostgreSQL' })
    if (await open.isVisible()) await open.click()
    await page.getByLabel('Connection URL').fill(url)
    await page.getByLabel('Password variable (optional, on the server)').fill(opts.passwordEnv ?? '')
    await postgres.panel(page).getByTestId('postgres-passphrase').fill(opts.passphrase)
    await page.getByRole('button', { name: 'Test connection' }).click()
    await page.locator('[data-testid="postgres-connected"], [data-testid="postgres-no-tables"], [data-testid="postgres-test-error"]').waitFor()
    const err = page.getByTestId('postgres-test-error')
    return (await err.isVisible()) ? await err.innerText() : null
  },

  /** The tables and views offered in the picker (their labels). */
  tables: async (page: Page) => page.getByLabel('Table or view').locator('option').allTextContents(),

  /** Pick a table, name the dataset, link it; returns the sentence shown. */
  async link(page: Page, opts: { table: string; name: string; personColumn?: string; passphrase?: string }): Promise<string> {
    if (opts.passphrase !== undefined) await postgres.panel(page).getByTestId('postgres-passphrase').fill(opts.passphrase)
    await page.getByLabel('Table or view').selectOption(opts.table)
    await page.getByTestId('postgres-name').fill(opts.name)
    await page.getByTestId('postgres-person-column').fill(opts.personColumn ?? '')
    await page.getByRole('button', { name: 'Link', exact: true }).click()
    await page.locator('[data-testid="postgres-linked"], [data-testid="postgres-link-error"]').waitFor()
    const ok = page.getByTestId('postgres-linked')
    return (await ok.isVisible()) ? await ok.innerText() : await page.getByTestId('postgres-link-error').innerText()
  }
}
