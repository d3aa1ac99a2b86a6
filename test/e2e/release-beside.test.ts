/**
 * The workbench holds no call for a release: while a release is kept inside its run (charged, its read not even begun),
 * its button says "Releasing…" and the other screens load and answer; once it ends, its answer is in the ledger.
 * The server runs in this process (the built renderer, the services from source) so the test can keep the release in
 * its run with the runner's test latch (`testHoldAfterCharge`): no timing is assumed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { join, resolve } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { startHeadless, type HeadlessServer } from '../../src-main/server'
import { planImport, runImport } from '../../src-main/services/datasets/import-dataset'
import { saveQuery } from '../../src-main/services/datasets/query-store'
import { setBudget } from '../../src-main/services/ledger/budgets'
import { officerAct } from '../integration/officer-fixture'
import { tempWorkspace, waitFor } from '../integration/helpers'
import { launchBrowser, newPage } from './app'
import { shell } from './pages/shell'
import { queries } from './pages/queries'

const ROOT = resolve(__dirname, '../..')
const latch = new Int32Array(new SharedArrayBuffer(4))
const holding = () => Atomics.load(latch, 0) === 1
function letGo(): void {
  Atomics.store(latch, 0, 0)
  Atomics.notify(latch, 0)
}

let h: HeadlessServer
let ws: ReturnType<typeof tempWorkspace>
let browser: Browser
let page: Page
const QUERY = 'busy buildings'

beforeAll(async () => {
  ws = tempWorkspace('qa-e2e-release-beside-')
  h = await startHeadless({
    dbPath: ws.db,
    poolSize: 1,
    rendererDir: join(ROOT, 'out', 'renderer'),
    uploadDir: join(ws.dir, 'uploads'),
    testHoldAfterCharge: latch
  })
  const db = h.services.context.store.db
  const plan = planImport(db, { path: join(ROOT, 'resources', 'sample', 'occupancy.csv'), name: 'occupancy', onBadRow: 'abort' })
  const occ = (await runImport(db, plan)).dataset.id
  setBudget(db, { datasetId: occ, epsilon: '100', reason: 'release beside other screens', ...officerAct(db) })
  saveQuery(db, occ, QUERY, {
    kind: 'threshold',
    groupBy: ['building'],
    count: { kind: 'persons', personColumn: 'person_id', cap: 1 },
    threshold: { kind: 'constant', value: 10 },
    groups: [['A'], ['B']]
  })
  browser = await launchBrowser()
  page = await newPage(browser)
  await shell.open(page, h.url)
})
afterAll(async () => {
  letGo()
  await browser?.close()
  await h?.close()
  ws?.cleanup()
})

describe('the workbench beside a release', () => {
  it('shows "Releasing…" while the release runs, and every other screen loads meanwhile; the answer follows', async () => {
    await shell.goTo(page, 'Queries')
    await queries.chooseSaved(page, QUERY)
    const price = await queries.price(page, { mechanism: 'tslm', beta: 0.05, alpha: 1 })
    expect(price.canRelease).toBe(true)
    await page.getByTestId('release-run').click()
    await waitFor(holding, 'the release to be charged and kept inside its run', 60_000)
    const button = page.getByTestId('release-run')
    await expect.poll(() => button.innerText()).toMatch(/^Releasing/)
    expect(await button.getAttribute('aria-busy')).toBe('true')

    // The release is still inside its run: the other screens load from the services all the same.
    await shell.goTo(page, 'Datasets')
    await page.getByTestId('dataset-row-occupancy').waitFor({ timeout: 10_000 })
    await shell.goTo(page, 'Ledger')
    const entries = await h.services.call('ledger/entries', {})
    const charge = entries.entries.find((e) => e.kind === 'charge')
    expect(charge).toBeDefined()
    await page.getByTestId(`ledger-entry-${charge!.seq}`).waitFor({ timeout: 10_000 })
    expect(holding()).toBe(true)

    letGo()
    await waitFor(async () => (await h.services.call('releases/list', {})).some((r) => r.status === 'answered'), 'the release to be answered', 60_000)
  })
})
