import type { Page } from 'playwright-core'
import { shell } from './shell'

/** What a user does in "Connect to ClickHouse" on the Datasets screen (every field found inside that panel). */
export const clickhouse = {
  panel: (page: Page) => page.getByTestId('clickhouse-panel'),

  /**
   * Open the panel, type the URL (and the password variable) and the officer's passphrase (an officer act: the server's
   * password is used), test the connection; returns the error or null.
   */
  async connect(page: Page, url: string, opts: { passphrase: string; passwordEnv?: string }): Promise<string | null> {
    await shell.goTo(page, 'Datasets')
    const panel = clickhouse.panel(page)
    const open = panel.getByRole('button', { name: 'Connect to ClickHouse' })
    if (await open.isVisible()) await open.click()
    await panel.getByLabel('ClickHouse URL').fill(url)
    await panel.getByLabel('ClickHouse password variable (optional, on the server)').fill(opts.passwordEnv ?? '')
    await panel.getByTestId('clickhouse-passphrase').fill(opts.passphrase)
    await panel.getByRole('button', { name: 'Test connection' }).click()
    await panel.locator('[data-testid="clickhouse-connected"], [data-testid="clickhouse-no-tables"], [data-testid="clickhouse-test-error"]').waitFor()
    const err = panel.getByTestId('clickhouse-test-error')
    return (await err.isVisible()) ? await err.innerText() : null
  },

  /** The tables offered in the picker (their labels). */
  tables: async (page: Page) => clickhouse.panel(page).getByLabel('ClickHouse table').locator('option').allTextContents(),

  /** Pick a table and choose the privacy unit ('' = row-level); returns where its per-person stage runs (the note shown), or null. */
  async choose(page: Page, opts: { table: string; personColumn?: string }): Promise<string | null> {
    const panel = clickhouse.panel(page)
    await panel.getByLabel('ClickHouse table').selectOption(opts.table)
    await panel.getByLabel('Privacy unit (who is protected)').selectOption(opts.personColumn ?? '')
    const note = panel.getByTestId('clickhouse-person-column-reason')
    return (await note.count()) > 0 ? await note.innerText() : null
  },

  /** The privacy units offered for the table chosen (their labels). */
  units: async (page: Page) => clickhouse.panel(page).getByLabel('Privacy unit (who is protected)').locator('option').allTextContents(),

  /** Pick a table, name the dataset, choose its person column, link it; returns the sentence shown. */
  async link(page: Page, opts: { table: string; name: string; personColumn?: string }): Promise<string> {
    const panel = clickhouse.panel(page)
    await clickhouse.choose(page, opts)
    await panel.getByTestId('clickhouse-name').fill(opts.name)
    await panel.getByRole('button', { name: 'Link', exact: true }).click()
    await panel.locator('[data-testid="clickhouse-linked"], [data-testid="clickhouse-link-error"]').waitFor()
    const ok = panel.getByTestId('clickhouse-linked')
    return (await ok.isVisible()) ? await ok.innerText() : await panel.getByTestId('clickhouse-link-error').innerText()
  }
}
