import type { Page } from 'playwright-core'
import { chooseOfficer } from './officer-field'
import { shell } from './shell'

/** What a user does in "Link a file (query in place)" on the Datasets screen (headless: the file is uploaded). */
export const linkFile = {
  panel: (page: Page) => page.getByTestId('link-file-panel'),

  /** Open the panel and choose (upload) the file; returns the pick's error, or null once its columns are shown. */
  async choose(page: Page, file: string): Promise<string | null> {
    await shell.goTo(page, 'Datasets')
    const open = page.getByRole('button', { name: 'Link a file (query in place)' })
    if (await open.isVisible()) await open.click()
    const form = page.getByTestId('link-file-form')
    const pick = Number(await form.getAttribute('data-picks')) + 1
    await page.getByLabel('File to link').setInputFiles(file)
    await page.locator(`[data-testid="link-file-preview"][data-pick="${pick}"], [data-testid="link-file-pick-error"][data-pick="${pick}"]`).waitFor()
    const pickError = page.getByTestId('link-file-pick-error')
    return (await pickError.isVisible()) ? await pickError.innerText() : null
  },

  /** The privacy unit field: its options (the file's columns and row-level), what is chosen and why. */
  async unit(page: Page): Promise<{ options: string[]; chosen: string; reason: string | null }> {
    const field = page.getByTestId('link-file-person-column')
    const reason = page.getByTestId('link-file-person-column-reason')
    return {
      options: await field.locator('option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value)),
      chosen: await field.inputValue(),
      reason: (await reason.count()) > 0 ? await reason.innerText() : null
    }
  },

  /** Open the panel, upload the file, name the dataset, sign the link as the officer; returns the sentence shown (or the error). */
  async link(page: Page, file: string, opts: { name: string; personColumn?: string; officer?: string; passphrase: string }): Promise<string> {
    const pickError = await linkFile.choose(page, file)
    if (pickError !== null) return pickError
    await page.getByTestId('link-file-name').fill(opts.name)
    // The privacy unit is one of the file's columns (a detected one is preselected), or row-level ('').
    if (opts.personColumn !== undefined) await page.getByTestId('link-file-person-column').selectOption(opts.personColumn)
    // Linking is an officer act (signed): the officer (the only one registered is preselected) and the passphrase.
    if (opts.officer !== undefined) await chooseOfficer(page.getByTestId('link-file-officer'), opts.officer)
    await page.getByTestId('link-file-passphrase').fill(opts.passphrase)
    await page.getByRole('button', { name: 'Link file', exact: true }).click()
    await page.locator('[data-testid="link-file-linked"], [data-testid="link-file-error"]').waitFor()
    const ok = page.getByTestId('link-file-linked')
    return (await ok.isVisible()) ? await ok.innerText() : await page.getByTestId('link-file-error').innerText()
  }
}
