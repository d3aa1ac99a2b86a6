/// <reference lib="dom" />
/**
 * The screen follows the address: a changed `?query=` (or dataset) while the Queries screen is open shows, prices and
 * releases the question the address names, and the ledger's charge is the named question's; a changed `#/datasets/<id>`
 * opens the dataset it names. The attack-like case: the address names question 2 while question 1 is on screen, and a
 * release from the screen must not be charged to question 1 (fails when the screen reads the address only once, as
 * it did: the screen kept question 1 and released it).
 * Screenshots: test-results/screenshots/address-*.png.
 */
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { ROOT, screenshot } from './app'
import { initOfficerWithCli, openAppForFile } from './open-app'
import { queriesPlace } from '../../src-renderer/src/screens/queries/queriesAddress'
import { queries, type ThresholdQuery } from './pages/queries'
import { shell } from './pages/shell'

const OFFICER = { name: 'dpo', passphrase: 'correct horse battery staple' }
const TUESDAY_2PM = { from: '2024-03-12T14:00:00Z', to: '2024-03-12T15:00:00Z' }
const opened = openAppForFile()
let page: Page

function cli(args: string[]): string {
  const r = spawnSync(process.execPath, [join(ROOT, 'out', 'main', 'cli.js'), ...args, '--db', opened.app.db], {
    env: { ...process.env, QUIET_ALARM_PASSPHRASE: OFFICER.passphrase },
    encoding: 'utf8'
  })
  if (r.status !== 0) throw new Error(`quiet-alarm ${args[0]} failed: ${r.stderr}`)
  return r.stdout
}

const question = (name: string, constant: number): ThresholdQuery => ({
  dataset: 'occupancy',
  name,
  groupBy: ['room'],
  person: { column: 'person_id', cap: 1, maxGroups: 1 },
  period: TUESDAY_2PM,
  threshold: { constant },
  groups: { listed: [['A-101'], ['A-102']] }
})

/** The address as the user edits it in the bar (a `hashchange`, no reload). */
async function editAddress(page: Page, hash: string) {
  await page.evaluate((h) => {
    window.location.hash = h
  }, hash)
}

/** Releases and their ledger charges, read from the workspace. */
function charges(): Array<{ releaseId: number; queryId: number; queryName: string; seq: number }> {
  const db = new Database(opened.app.db, { readonly: true })
  try {
    return db
      .prepare(
        `SELECT r.id AS releaseId, r.query_id AS queryId, r.query_name AS queryName, l.seq AS seq
         FROM releases r JOIN ledger_entries l ON l.release_id = r.id ORDER BY r.id`
      )
      .all() as Array<{ releaseId: number; queryId: number; queryName: string; seq: number }>
  } finally {
    db.close()
  }
}

beforeAll(async () => {
  page = opened.page
  initOfficerWithCli(opened.app.db, OFFICER)
  cli(['import', '--file', join(ROOT, 'resources', 'sample', 'occupancy.csv'), '--name', 'occupancy', '--person-column', 'person_id'])
  cli(['import', '--file', join(ROOT, 'resources', 'sample', 'capacities.csv'), '--name', 'capacities', '--row-level'])
  cli(['budget', '--dataset', 'occupancy', '--epsilon', '5', '--reason', 'address test'])
  await shell.open(page, opened.app.url)
})

describe('the Queries screen follows a changed address', () => {
  it('shows, prices and releases the question the address names, and the charge is that question’s', async () => {
    await queries.defineThreshold(page, question('Rooms over 3', 3))
    await queries.defineThreshold(page, question('Rooms over 5', 5))
    // Switching the question kind starts a new question: the previous name does not carry over.
    await page.getByLabel('Name of the question').fill('Rooms over 7')
    await page.getByTestId('kind-anomaly-identification').check()
    expect(await page.getByLabel('Name of the question').inputValue()).toBe('')
    await page.getByTestId('kind-threshold').check()
    await queries.chooseSaved(page, 'Rooms over 3')
    const first = queriesPlace(new URL(page.url()).hash)
    await queries.chooseSaved(page, 'Rooms over 5')
    const second = queriesPlace(new URL(page.url()).hash)
    expect(first.queryId).not.toBeNull()
    expect(second.queryId).not.toBe(first.queryId)
    await queries.chooseSaved(page, 'Rooms over 3')

    // The address now names the second question while the first is on screen.
    await editAddress(page, `#/queries/${second.datasetId}?query=${second.queryId}`)
    const panel = page.getByTestId('release-panel')
    await panel.getByRole('heading', { name: /Rooms over 5/ }).waitFor({ timeout: 5000 })
    expect(await page.getByTestId('saved-query-Rooms over 5').getAttribute('aria-pressed')).toBe('true')
    expect(await page.getByTestId('saved-query-Rooms over 3').getAttribute('aria-pressed')).toBe('false')
    expect((await queries.price(page, { beta: 0.05, alpha: 1, mechanism: 'tslm' })).canRelease).toBe(true)
    await queries.release(page)
    await screenshot(page, 'address-released-second')

    // Back to the first by the address: its panel, and the answer shown is not the second's.
    await editAddress(page, `#/queries/${first.datasetId}?query=${first.queryId}`)
    await panel.getByRole('heading', { name: /Rooms over 3/ }).waitFor({ timeout: 5000 })
    expect(await page.getByTestId('release-result').count()).toBe(0)
    await queries.price(page, { beta: 0.05, alpha: 1, mechanism: 'tslm' })
    await queries.release(page)

    // The ledger charges each release to the question the address named when it was released.
    expect(charges().map((c) => [c.queryId, c.queryName])).toEqual([
      [second.queryId, 'Rooms over 5'],
      [first.queryId, 'Rooms over 3']
    ])
    // And the address names the answer just released under the question shown.
    const now = queriesPlace(new URL(page.url()).hash)
    expect(now.queryId).toBe(first.queryId)
    expect(now.releaseId).toBe(charges()[1].releaseId)
  })

  it('a changed dataset in the address opens that dataset, with no question chosen', async () => {
    const ids = Object.fromEntries(datasetIds())
    await editAddress(page, `#/queries/${ids.capacities}`)
    await page.waitForFunction(
      (id) => (document.querySelector('select[data-testid="query-dataset"]') as HTMLSelectElement | null)?.value === String(id),
      ids.capacities,
      { timeout: 5000 }
    )
    expect(await page.getByTestId('release-panel').count()).toBe(0)
    // The dataset and a question named together: the question is kept, not cleared by the dataset's change.
    const q = charges()[0]
    await editAddress(page, `#/queries/${ids.occupancy}?query=${q.queryId}`)
    await page
      .getByTestId('release-panel')
      .getByRole('heading', { name: /Rooms over 5/ })
      .waitFor({ timeout: 5000 })
  })
})

describe('the Datasets screen follows a changed address', () => {
  it('opens the dataset the address names, and another when it changes', async () => {
    const ids = Object.fromEntries(datasetIds())
    await editAddress(page, `#/datasets/${ids.occupancy}`)
    const detail = page.getByTestId('dataset-detail')
    await detail.getByRole('heading', { name: /^occupancy / }).waitFor({ timeout: 5000 })
    await editAddress(page, `#/datasets/${ids.capacities}`)
    await detail.getByRole('heading', { name: /^capacities / }).waitFor({ timeout: 5000 })
    await screenshot(page, 'address-dataset')
    // Opening one from the catalog writes it in the address, so a reload opens it again.
    await page.getByRole('button', { name: 'Open occupancy', exact: true }).click()
    await detail.getByRole('heading', { name: /^occupancy / }).waitFor()
    expect(new URL(page.url()).hash).toBe(`#/datasets/${ids.occupancy}`)
    await page.reload()
    await detail.getByRole('heading', { name: /^occupancy / }).waitFor()
  })
})

function datasetIds(): Array<[string, number]> {
  const db = new Database(opened.app.db, { readonly: true })
  try {
    return (db.prepare('SELECT name, id FROM datasets ORDER BY id').all() as Array<{ name: string; id: number }>).map((d) => [d.name, d.id])
  } finally {
    db.close()
  }
}
