import type { Page } from 'playwright-core'
import { shell } from './shell'

/** What a user does on the Experiments screen: pick a paper figure, shrink it, run, watch, cancel, resume. */
export const experiments = {
  async define(page: Page, s: { preset: string; trials: number; grid?: Record<string, string>; mechanisms?: string }) {
    await shell.goTo(page, 'Experiments')
    const builder = page.getByTestId('spec-builder')
    await builder.getByTestId('preset').waitFor()
    await builder.getByLabel('Start from a paper figure').selectOption(s.preset)
    await builder.getByLabel('Trials per cell').fill(String(s.trials))
    if (s.mechanisms) await builder.getByTestId('sweep-0-mechanisms').fill(s.mechanisms)
    for (const [k, v] of Object.entries(s.grid ?? {})) await builder.getByTestId(`sweep-0-grid-${k}`).fill(v)
    await builder.locator('.validation .ok, .validation .error').first().waitFor()
    return (await builder.getByTestId('spec-validation').innerText()).trim()
  },

  async start(page: Page) {
    await page.getByRole('button', { name: 'Start simulation' }).click()
    await page.getByTestId('experiment-view').waitFor()
  },

  status: (page: Page) => page.getByTestId('experiment-status'),

  async waitStatus(page: Page, status: string, timeout = 120_000) {
    await page.locator(`[data-testid="experiment-status"][data-status="${status}"]`).waitFor({ timeout })
  },

  async cancel(page: Page) {
    await page
      .getByRole('group', { name: /^Simulating/ })
      .getByRole('button', { name: 'Cancel' })
      .click()
  },

  async resume(page: Page) {
    await page.getByRole('button', { name: 'Resume' }).click()
  },

  /** The cells-done count the user reads in the status line. */
  async cellsDone(page: Page): Promise<{ done: number; total: number }> {
    const text = await page.getByTestId('experiment-view').locator('p').first().innerText()
    const m = /([\d,]+) of ([\d,]+) cells done/.exec(text)
    if (!m) throw new Error(`no cell count in: ${text}`)
    return { done: Number(m[1].replace(/,/g, '')), total: Number(m[2].replace(/,/g, '')) }
  }
}
