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

  /**
   * The legend swatch of one colour in a chart's canvas (its bottom band, where the legend is): for each pixel row holding
   * that colour, how many separate runs of it there are. A dashed line is one or two rows of several runs; a dot is
   * several rows of one run each.
   */
  async legendSwatch(page: Page, chartTestId: string, rgb: [number, number, number]): Promise<{ rows: number; maxRuns: number; width: number }> {
    return page
      .getByTestId(chartTestId)
      .locator('canvas')
      .evaluate((el, rgb) => {
        const canvas = el as HTMLCanvasElement
        const band = Math.round(28 * window.devicePixelRatio)
        const img = canvas.getContext('2d')!.getImageData(0, canvas.height - band, canvas.width, band)
        const near = (i: number) => Math.abs(img.data[i] - rgb[0]) + Math.abs(img.data[i + 1] - rgb[1]) + Math.abs(img.data[i + 2] - rgb[2]) < 60
        let rows = 0
        let maxRuns = 0
        let left = Infinity
        let right = -Infinity
        for (let y = 0; y < band; y++) {
          let runs = 0
          let inRun = false
          for (let x = 0; x < canvas.width; x++) {
            const hit = near((y * canvas.width + x) * 4)
            if (hit && !inRun) runs++
            if (hit) {
              left = Math.min(left, x)
              right = Math.max(right, x)
            }
            inRun = hit
          }
          if (runs > 0) rows++
          maxRuns = Math.max(maxRuns, runs)
        }
        return { rows, maxRuns, width: right >= left ? (right - left + 1) / window.devicePixelRatio : 0 }
      }, rgb)
  },

  /** The cells-done count the user reads in the status line. */
  async cellsDone(page: Page): Promise<{ done: number; total: number }> {
    const text = await page.getByTestId('experiment-view').locator('p').first().innerText()
    const m = /([\d,]+) of ([\d,]+) cells done/.exec(text)
    if (!m) throw new Error(`no cell count in: ${text}`)
    return { done: Number(m[1].replace(/,/g, '')), total: Number(m[2].replace(/,/g, '')) }
  }
}
