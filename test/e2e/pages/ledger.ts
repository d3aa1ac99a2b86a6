import type { Page } from 'playwright-core'
import { chooseOfficer } from './officer-field'
import { shell } from './shell'

/** What a privacy officer does on the Ledger screen. */
export const ledger = {
  /** `passphrase`: the officer's, filled in when the form asks for it (budgets are signed officer acts). */
  async setBudget(page: Page, b: { dataset: string; epsilon: number; reason: string; officer: string; passphrase?: string }) {
    await shell.goTo(page, 'Ledger')
    const form = page.getByTestId('budget-form')
    await form.getByLabel('Dataset').selectOption({ label: b.dataset })
    await form.getByLabel('Budget ε').fill(String(b.epsilon))
    await form.getByLabel('Reason (recorded)').fill(b.reason)
    await chooseOfficer(form.getByLabel('Officer'), b.officer)
    if (b.passphrase !== undefined && (await form.getByLabel('Passphrase').count()) > 0) await form.getByLabel('Passphrase').fill(b.passphrase)
    await form.getByRole('button', { name: 'Set budget' }).click()
    await page.getByTestId('budget-done').waitFor()
  },

  async verify(page: Page) {
    await page.getByRole('button', { name: 'Verify', exact: true }).click()
    const r = page.getByTestId('verify-result')
    await r.waitFor()
    return { ok: (await r.getAttribute('data-ok')) === 'true', text: await r.innerText() }
  },

  entry: (page: Page, seq: number) => page.getByTestId(`ledger-entry-${seq}`),

  /** The officer opens the sealed ex-post costs of a release (signed and recorded); returns what the app shows. */
  async unlock(page: Page, u: { releaseId: number; reason: string; passphrase: string }) {
    await shell.goTo(page, 'Ledger')
    const view = page.getByTestId('officer-view')
    if ((await view.getByTestId('officer-toggle').getAttribute('aria-expanded')) !== 'true') await view.getByTestId('officer-toggle').click()
    const item = view.getByTestId(`sealed-${u.releaseId}`)
    await item.getByTestId('unlock-open').click()
    await item.getByLabel('Passphrase').fill(u.passphrase)
    await item.getByLabel('Reason (recorded)').fill(u.reason)
    await item.getByTestId('unlock-confirm').click()
    await item.getByTestId('sealed-costs').waitFor()
    return item.getByTestId('sealed-costs').innerText()
  }
}
