/// <reference lib="dom" />
/**
 * Simulations from the UI: a paper figure shrunk to a small sweep, live progress and charts, cancel, resume to the end,
 * and the CSV export.
 */
import { readFileSync } from 'node:fs'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { screenshot } from './app'
import { openAppForFile } from './open-app'
import { experiments } from './pages/experiments'

const opened = openAppForFile()
let page: Page

beforeAll(() => {
  page = opened.page
})

describe('experiments', () => {
  it('runs a small sweep with live progress and a chart, cancels it, and resumes it to the end', async () => {
    // Enough trials that the sweep is still running when Cancel is pressed (20 trials finish in about a second on an idle machine).
    const validation = await experiments.define(page, { preset: 'mide-fig8', trials: 400 })
    expect(validation).toMatch(/^Valid: 84 cells/)
    await screenshot(page, 'experiments-builder')
    await experiments.start(page)
    expect(await page.getByTestId('experiment-view').innerText()).toMatch(/simulation/i)
    // Live: the progress bar and, as soon as cells finish, the charts.
    await page.getByRole('progressbar', { name: /^Simulating/ }).waitFor()
    await page.getByTestId('chart-fnr').waitFor({ timeout: 60_000 })
    await experiments.cancel(page)
    await experiments.waitStatus(page, 'cancelled')
    const partial = await experiments.cellsDone(page)
    expect(partial.total).toBe(84)
    expect(partial.done).toBeLessThan(84)
    await screenshot(page, 'experiments-cancelled')
    await experiments.resume(page)
    await experiments.waitStatus(page, 'done', 170_000)
    const all = await experiments.cellsDone(page)
    expect(all).toEqual({ done: 84, total: 84 })
    for (const metric of ['fnr', 'fpr', 'epsilonExPost', 'minEntropy']) await page.getByTestId(`chart-${metric}`).waitFor()
    // Alpha 1..200 on a log axis (as in the paper), the beta line on the FNR chart, plain names with units.
    expect(await page.getByTestId('chart-fnr').getAttribute('data-x-scale')).toBe('logarithmic')
    expect(await page.getByTestId('chart-fnr').getAttribute('data-beta-line')).toBe('0.05')
    expect(await page.getByTestId('chart-fpr').getAttribute('data-beta-line')).toBeNull()
    // Its legend draws the beta line as the dashed line it is (a short line of several dashes), not as a dot.
    const beta = await experiments.legendSwatch(page, 'chart-fnr', [0xb4, 0x23, 0x18])
    expect(beta.rows, JSON.stringify(beta)).toBeGreaterThan(0)
    expect(beta.rows, JSON.stringify(beta)).toBeLessThanOrEqual(3)
    expect(beta.maxRuns, JSON.stringify(beta)).toBeGreaterThanOrEqual(2)
    expect(beta.width, JSON.stringify(beta)).toBeGreaterThanOrEqual(12)
    expect(await page.getByTestId('chart-epsilonExPost').locator('figcaption strong').innerText()).toBe(
      'ε actually spent (ex post ε*, per predicate, max)'
    )
    expect(await page.getByTestId('results-table').innerText()).toContain('Cells 1–25 of 84')
    await screenshot(page, 'experiments-done')
  })

  it('exports the results as CSV labelled as a simulation', async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()])
    expect(download.suggestedFilename()).toMatch(/^simulation-.*\.csv$/)
    const csv = readFileSync((await download.path())!, 'utf8')
    expect(csv.split('\n')[0]).toMatch(/kind/)
    expect(csv).toContain('simulation')
  })

  it('lists the experiment with its simulation badge', async () => {
    await page.getByRole('link', { name: /All experiments/ }).click()
    const list = page.getByTestId('experiment-list')
    await list.getByRole('link', { name: /MIDE Fig\. 8/ }).waitFor()
    expect(await list.innerText()).toContain('84 / 84')
  })
})
