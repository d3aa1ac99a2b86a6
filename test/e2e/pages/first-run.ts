import type { Page } from 'playwright-core'
import { shell } from './shell'

/** The "Getting started" guide on the Datasets screen: each step, whether it is done, and which is next. */
export const firstRun = {
  async steps(page: Page): Promise<Array<{ id: string; text: string; done: boolean; next: boolean }>> {
    await shell.goTo(page, 'Datasets')
    const guide = page.getByTestId('first-run')
    await guide.waitFor()
    const out = []
    for (const li of await guide.locator('li').all()) {
      out.push({
        id: ((await li.getAttribute('data-testid')) ?? '').replace(/^first-run-/, ''),
        text: await li.innerText(),
        done: (await li.getAttribute('data-done')) === 'true',
        next: ((await li.getAttribute('class')) ?? '').includes('next')
      })
    }
    return out
  },

  /** Follow the link of the next step. */
  async followNext(page: Page) {
    await page.getByTestId('first-run').locator('li.next a').click()
  }
}
