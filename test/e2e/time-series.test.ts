/**
 * A time series (timestamp,value, as every NAB file) asked "which hours exceed N" without leaving the app: the threshold
 * builder says what grouping by the exact time gives, groups the time column by hour, lists the hours of a range as the
 * groups, and the released answer shows each hour as the file writes its times ("2014-07-01 00:00:00", no zone added);
 * the question's versions list names the release that ran it. The server runs in this process (the built renderer, the
 * services from source); the dataset and its budget are set up through the services.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { startHeadless, type HeadlessServer } from '../../src-main/server'
import { planImport, runImport } from '../../src-main/services/datasets/import-dataset'
import { setBudget } from '../../src-main/services/ledger/budgets'
import { officerAct } from '../integration/officer-fixture'
import { tempWorkspace } from '../integration/helpers'
import { launchBrowser, newPage } from './app'
import { shell } from './pages/shell'
import { queries } from './pages/queries'

const ROOT = resolve(__dirname, '../..')

let h: HeadlessServer
let ws: ReturnType<typeof tempWorkspace>
let browser: Browser
let page: Page

beforeAll(async () => {
  ws = tempWorkspace('qa-e2e-time-series-')
  const lines = ['timestamp,value']
  // 2014-07-01, hours 0-4: 6, 1, 6, 0, 6 rows (every 10 minutes in the busy hours).
  for (const [hour, n] of [
    [0, 6],
    [1, 1],
    [2, 6],
    [4, 6]
  ])
    for (let i = 0; i < n; i++) lines.push(`2014-07-01 0${hour}:${String(i * 10).padStart(2, '0')}:00,${10 + i}`)
  const file = join(ws.dir, 'taxi.csv')
  writeFileSync(file, lines.join('\n') + '\n')
  h = await startHeadless({ dbPath: ws.db, poolSize: 1, rendererDir: join(ROOT, 'out', 'renderer'), uploadDir: join(ws.dir, 'uploads') })
  const db = h.services.context.store.db
  const id = (await runImport(db, planImport(db, { path: file, name: 'taxi', onBadRow: 'abort' }))).dataset.id
  setBudget(db, { datasetId: id, epsilon: '100', reason: 'time series questions', ...officerAct(db) })
  browser = await launchBrowser()
  page = await newPage(browser)
  await shell.open(page, h.url)
})
afterAll(async () => {
  await browser?.close()
  await h?.close()
  ws?.cleanup()
})

describe('a time series in the threshold builder', () => {
  it('groups by hour, lists the hours of a range, and the answer shows each hour as the file writes it', async () => {
    await shell.goTo(page, 'Queries')
    await page.getByLabel('Dataset', { exact: true }).selectOption({ label: 'taxi' })
    await page.getByRole('radio', { name: /Threshold query/ }).check()
    await page.getByTestId('groupby-timestamp').check()
    expect(await page.getByTestId('exact-time-hint').innerText()).toMatch(/^Grouping by the exact “timestamp” makes each distinct time one group/)

    await page.getByLabel('Group “timestamp” by').selectOption('hour')
    expect(await page.getByTestId('exact-time-hint').count()).toBe(0)
    await page.getByTestId('bucket-from').fill('2014-07-01')
    await page.getByTestId('bucket-to').fill('2014-07-01 05:00')
    expect(await page.getByTestId('bucket-range-count').innerText()).toBe(
      '5 hours, from 2014-07-01 00:00:00 to 2014-07-01 04:00:00: each is one group.'
    )
    await page.getByTestId('bucket-list').click()
    expect(await page.getByTestId('groups-listed').inputValue()).toBe(['00', '01', '02', '03', '04'].map((hh) => `2014-07-01 ${hh}:00:00`).join('\n'))
    await page.getByLabel('Threshold of each group').selectOption('constant')
    await page.getByLabel('Threshold', { exact: true }).fill('3')
    await queries.save(page, 'busy hours')

    const price = await queries.price(page, { mechanism: 'tslm', beta: 0.05, alpha: 1 })
    expect(price.canRelease).toBe(true)
    const result = await queries.release(page)
    const table = result.getByTestId('decisions-table')
    expect(await table.locator('th').first().innerText()).toBe('hour of timestamp')
    expect(await table.locator('tbody tr td:first-child').allInnerTexts()).toEqual(
      ['00', '01', '02', '03', '04'].map((hh) => `2014-07-01 ${hh}:00:00`)
    )
    expect(await result.innerText()).not.toMatch(/T\d\d:\d\d:\d\d\.\d{3}Z/)

    // The question's versions: version 1, run by this release.
    const releaseId = (await h.services.call('releases/list', {}))[0].releaseId
    const v1 = page.getByTestId('query-versions').getByTestId('query-version-1')
    await v1.getByRole('link', { name: `#${releaseId}` }).waitFor({ timeout: 10_000 })
  })
})
