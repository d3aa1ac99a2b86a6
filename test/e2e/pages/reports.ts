import type { Page } from 'playwright-core'
import { chooseOfficer } from './officer-field'
import { shell } from './shell'

export interface ReportSettings {
  scope?: string
  edition?: 'analyst' | 'officer'
  /** Officer edition: the reason for reading sealed costs and the officer's passphrase (the only officer is filled in). */
  officer?: { reason: string; passphrase: string; name?: string }
}

/** What the analyst and the officer do on the Reports screen: preview, export, download. */
export const reports = {
  async preview(page: Page, s: ReportSettings = {}) {
    await shell.goTo(page, 'Reports')
    if (s.scope) await page.getByLabel('Scope').selectOption({ label: s.scope })
    await page.getByLabel('Edition').selectOption(s.edition ?? 'analyst')
    if (s.officer) await reports.officerFields(page, s.officer)
    await page.getByTestId('report-preview').click()
    await page.locator('[data-testid="report-preview-panel"], [data-testid="report-error"]').first().waitFor({ timeout: 60_000 })
    const err = page.getByTestId('report-error')
    if (await err.isVisible()) throw new Error(`preview failed: ${await err.innerText()}`)
    return page.getByTestId('report-preview-panel')
  },

  async officerFields(page: Page, o: { reason: string; passphrase: string; name?: string }) {
    const row = page.getByTestId('report-officer')
    if (o.name !== undefined) await chooseOfficer(row.getByLabel('Officer'), o.name)
    await row.getByLabel('Reason for reading sealed costs (recorded)').fill(o.reason)
    await row.getByLabel('Passphrase').fill(o.passphrase)
  },

  /** "Keep this period in the form" under the preview: returns the end of period it wrote into the To field. */
  async keepPeriod(page: Page): Promise<string> {
    await page.getByTestId('report-keep-period').click()
    return page.getByLabel('To (optional, exclusive)').inputValue()
  },

  /** Export the previewed report (officer edition: the passphrase again) and download it; returns the file's name and bytes. */
  async exportAndDownload(page: Page, opts: { format?: 'pdf' | 'csv' | 'json' | 'html'; passphrase?: string } = {}) {
    await page.getByTestId('report-format').selectOption(opts.format ?? 'pdf')
    if (opts.passphrase !== undefined) await page.getByTestId('report-officer').getByLabel('Passphrase').fill(opts.passphrase)
    await page.getByTestId('report-export').click()
    await page.locator('[data-testid="job"][data-state="done"], [data-testid="job"][data-state="failed"]').waitFor({ timeout: 120_000 })
    if ((await page.getByTestId('job').getAttribute('data-state')) !== 'done')
      throw new Error(`export failed: ${await page.getByTestId('job').innerText()}`)
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('report-download').click()])
    return {
      fileName: download.suggestedFilename(),
      path: await download.path(),
      dataSha: await page.getByTestId('report-export-data-sha').innerText()
    }
  }
}
