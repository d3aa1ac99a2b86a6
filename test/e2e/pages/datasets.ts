import type { Page } from 'playwright-core'
import { chooseOfficer } from './officer-field'
import { shell } from './shell'

/** What a user does on the Datasets screen. */
export const datasets = {
  importPanel: (page: Page) => page.getByTestId('import-panel'),

  /** Pick a file (headless: the file field uploads it) and wait for the preview with inferred types. */
  async pick(page: Page, file: string) {
    await shell.goTo(page, 'Datasets')
    const before = Number(await datasets.importPanel(page).getAttribute('data-picks'))
    await page.getByLabel('File to import').setInputFiles(file)
    // The preview of THIS pick (not the previous one still on screen).
    const pick = `[data-pick="${before + 1}"]`
    await page.locator(`[data-testid="import-preview"]${pick}, [data-testid="import-pick-error"]${pick}`).waitFor()
  },

  async setType(page: Page, column: string, type: 'Whole number' | 'Decimal number' | 'Text' | 'Date and time') {
    const select = page.getByLabel(`Type of column ${column}`)
    const options = await select.locator('option').allTextContents()
    await select.selectOption({ label: options.find((o) => o.startsWith(type))! })
  },

  /**
   * Start the import and return at once (the progress bar shows). `unit`: the privacy unit to choose ('' = row-level, else
   * the person column); absent, the form's choice stands (a column named like a person is preselected).
   */
  async startImport(page: Page, opts: { name?: string; skipBadRows?: boolean; unit?: string; perPerson?: string[] } = {}) {
    if (opts.name !== undefined) await page.getByLabel('Dataset name').fill(opts.name)
    if (opts.skipBadRows) await page.getByLabel('Bad rows').selectOption('skip')
    if (opts.unit !== undefined) await page.getByLabel('Privacy unit (who is protected)').selectOption(opts.unit)
    for (const c of opts.perPerson ?? []) await page.getByTestId(`per-person-${c}`).check()
    await page.getByRole('button', { name: 'Import', exact: true }).click()
    await page.getByRole('progressbar', { name: /^Importing/ }).waitFor()
  },

  /** Wait until the import job ended; returns its state and the text the user reads. */
  async importOutcome(page: Page): Promise<{ state: string; text: string }> {
    const job = page.getByTestId('job')
    await page
      .locator('[data-testid="job"][data-state="done"], [data-testid="job"][data-state="failed"], [data-testid="job"][data-state="cancelled"]')
      .waitFor({ timeout: 60_000 })
    const state = (await job.getAttribute('data-state')) ?? ''
    if (state === 'done') await page.getByTestId('import-result').waitFor()
    const text = state === 'done' ? await page.getByTestId('import-result').innerText() : await job.innerText()
    return { state, text }
  },

  async importFile(page: Page, file: string, name: string, opts: { unit?: string; perPerson?: string[] } = {}) {
    await datasets.pick(page, file)
    await datasets.startImport(page, { name, ...opts })
    const out = await datasets.importOutcome(page)
    if (out.state !== 'done') throw new Error(`import of ${name} ended ${out.state}: ${out.text}`)
    return out
  },

  catalogRow: (page: Page, name: string) => page.getByTestId(`dataset-row-${name}`),

  /** Open a dataset from the catalog; returns its detail panel. */
  async open(page: Page, name: string) {
    await shell.goTo(page, 'Datasets')
    await page.getByRole('button', { name: `Open ${name}`, exact: true }).click()
    const detail = page.getByTestId('dataset-detail')
    await detail
      .getByRole('heading', { name: new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} (public|private)( linked .+)?$`, 'i') })
      .waitFor()
    return detail
  },

  /** The privacy officer declares a dataset public, with a reason (a ledger entry); waits until the catalog shows it public. */
  async declarePublic(page: Page, d: { dataset: string; reason: string; name: string; passphrase: string }) {
    const detail = await datasets.open(page, d.dataset)
    await detail.getByRole('button', { name: 'Declare public…' }).click()
    const form = detail.getByTestId('declare-public-form')
    await form.getByLabel('Reason (recorded)').fill(d.reason)
    await chooseOfficer(form.getByLabel('Officer'), d.name)
    await form.getByLabel('Passphrase').fill(d.passphrase)
    await form.getByRole('button', { name: 'Declare public', exact: true }).click()
    await page.locator(`[data-testid="dataset-public-${d.dataset}"].public`).first().waitFor()
    return detail
  }
}
