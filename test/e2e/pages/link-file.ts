import type { Page } from 'playwright-core'
import { shell } from './shell'

/** What a user does in "Link a file (query in place)" on the Datasets screen (headless: the file is uploaded). */
export const linkFile = {
  panel: (page: Page) => page.getByTestId('link-file-panel'),

  /** Open the panel, upload the file, name the dataset, sign the link as the officer; returns the sentence shown (or the error). */
  async link(page: Page, file: string, opts: { name: string; personColumn?: string; officer?: string; passphrase: string }): Promise<string> {
    await shell.goTo(page, 'Datasets')
    const open = page.getByRole('button', { name: 'Link a file (query in place)' })
    if (await open.isVisible()) await open.click()
    await page.getByLabel('File to link').setInputFiles(file)
    await page.locator('[data-testid="link-file-name"], [data-testid="link-file-pick-error"]').first().waitFor()
    const pickError = page.getByTestId('link-file-pick-error')
    if (await pickError.isVisible()) return await pickError.innerText()
    await page.getByTestId('link-file-name').fill(opts.name)
    await page.getByTestId('link-file-person-column').fill(opts.personColumn ?? '')
    // Linking is an officer act (signed): the officer's name (filled in when only one is registered) and passphrase.
    if (opts.officer !== undefined) await page.getByTestId('link-file-officer').fill(opts.officer)
    await page.getByTestId('link-file-passphrase').fill(opts.passphrase)
    await page.getByRole('button', { name: 'Link file', exact: true }).click()
    await page.locator('[data-testid="link-file-linked"], [data-testid="link-file-error"]').waitFor()
    const ok = page.getByTestId('link-file-linked')
    return (await ok.isVisible()) ? await ok.innerText() : await page.getByTestId('link-file-error').innerText()
  }
}
