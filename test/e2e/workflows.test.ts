/// <reference lib="dom" />
/**
 * What the analyst and the privacy officer do, end to end in headless mode against the built app: import files through
 * the UI, set a budget, define and release a threshold query, see the charge in the ledger, be denied over budget,
 * and read a bad file's error. Private datasets (the default) are not browsed; the officer declares the public ones, whose
 * values may then supply thresholds, group lists and lists of individuals.
 */
import { spawnSync } from 'node:child_process'
import { readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { ROOT, SCREENSHOTS, screenshot, type RunningApp } from './app'
import { openAppForFile } from './open-app'
import { datasets } from './pages/datasets'
import { ledger } from './pages/ledger'
import { chooseOfficer } from './pages/officer-field'
import { queries } from './pages/queries'
import { shell } from './pages/shell'

const opened = openAppForFile()
let app: RunningApp
let page: Page

const NYC_TAXI = join(ROOT, 'resources', 'data', 'nab', 'nyc_taxi.csv')
const OCCUPANCY = join(ROOT, 'resources', 'sample', 'occupancy.csv')
const CAPACITIES = join(ROOT, 'resources', 'sample', 'capacities.csv')

/** Screenshots of the main screens at 1440x900 (the viewport is restored afterwards). */
async function wideScreenshot(p: Page, name: string) {
  const before = p.viewportSize()
  await p.setViewportSize({ width: 1440, height: 900 })
  await screenshot(p, name)
  if (before) await p.setViewportSize(before)
}

/** The workspace's privacy officer (officer acts are signed with a registered officer's key). */
const OFFICER = { name: 'dpo', passphrase: 'correct horse battery staple' }

beforeAll(() => {
  ;({ app, page } = opened)
  // Registered with the CLI, as an officer would do it (the passphrase from the environment, never an argument).
  const r = spawnSync(process.execPath, [join(ROOT, 'out', 'main', 'cli.js'), 'officer', 'init', '--db', app.db, '--name', OFFICER.name], {
    env: { ...process.env, QUIET_ALARM_PASSPHRASE: OFFICER.passphrase },
    encoding: 'utf8'
  })
  if (r.status !== 0) throw new Error(`officer init failed: ${r.stderr}`)
})

/** A direct contract call (as the page makes it), for what the UI must not do. */
function api(req: unknown): RequestInit {
  return { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${app.token}` }, body: JSON.stringify({ req }) }
}

describe('datasets', () => {
  it('imports nyc_taxi.csv through the UI with a progress bar, and lists it in the catalog', async () => {
    await datasets.pick(page, NYC_TAXI)
    // Inferred types are shown and editable before importing.
    expect(await page.getByLabel('Type of column timestamp').inputValue()).toBe('timestamp')
    expect(await page.getByLabel('Type of column value').inputValue()).toBe('integer')
    await screenshot(page, 'datasets-preview')
    await datasets.startImport(page, { name: 'nyc_taxi' })
    const out = await datasets.importOutcome(page)
    expect(out.state).toBe('done')
    expect(out.text).toContain('10,320 rows imported as “nyc_taxi”')
    // The bar stays, full, with the counts.
    const bar = page.getByRole('progressbar', { name: 'Importing nyc_taxi' })
    expect(await bar.getAttribute('aria-valuenow')).toBe('100')
    // Rows and bytes: "10,320 rows · 1.13 MB of 1.13 MB" (the file's size, read in full).
    const size = statSync(NYC_TAXI).size
    const text = await page.getByTestId('job').getByTestId('progress-text').innerText()
    expect(text).toMatch(/^10,320 rows · (\d+(\.\d+)?) (KB|MB) of \1 \3$/)
    const [, shown, , unit] = /^10,320 rows · (\d+(\.\d+)?) (KB|MB)/.exec(text)!
    // The shown figure is the size rounded to its last digit.
    const decimals = shown.split('.')[1]?.length ?? 0
    expect(Math.abs(Number(shown) - size / (unit === 'MB' ? 1e6 : 1e3))).toBeLessThanOrEqual(0.5 * 10 ** -decimals + 1e-9)
    expect(await page.getByTestId('job-done').innerText()).toMatch(/Imported · 10,320 rows \(\d+(\.\d+)? (KB|MB)\)/)
    const row = datasets.catalogRow(page, 'nyc_taxi')
    await row.waitFor()
    expect(await row.innerText()).toContain('10,320')
    expect(await row.innerText()).toContain('No budget set')
    await screenshot(page, 'datasets-imported')
  })

  it("a private dataset's rows are not shown: the detail says why and never asks for them; renames it", async () => {
    const rowCalls: string[] = []
    const onRequest = (r: { url(): string }) => {
      if (r.url().includes(`/api/call/${encodeURIComponent('datasets/rows')}`)) rowCalls.push(r.url())
    }
    page.on('request', onRequest)
    expect(await datasets.catalogRow(page, 'nyc_taxi').getByTestId('dataset-public-nyc_taxi').textContent()).toBe('private')
    const detail = await datasets.open(page, 'nyc_taxi')
    expect(await detail.getByTestId('dataset-private-note').innerText()).toBe(
      'The rows of “nyc_taxi” are private and are not shown: only datasets the privacy officer declared public can be browsed.'
    )
    // Its columns and types are shown; its rows are not, and the page never asked for them.
    expect(await detail.innerText()).toMatch(/timestamp date and time, value whole number/)
    expect(await detail.locator('table').count()).toBe(0)
    expect(await detail.getByText(/^Rows \d/).count()).toBe(0)
    await detail.getByRole('button', { name: 'Declare public…' }).waitFor()
    page.off('request', onRequest)
    expect(rowCalls).toEqual([])
    // The contract refuses them too, in one sentence.
    const list = (await (await fetch(`${app.origin}/api/call/${encodeURIComponent('datasets/list')}`, api({}))).json()) as {
      value: Array<{ id: number; name: string }>
    }
    const taxiId = list.value.find((d) => d.name === 'nyc_taxi')!.id
    const refused = (await (await fetch(`${app.origin}/api/call/${encodeURIComponent('datasets/rows')}`, api({ datasetId: taxiId }))).json()) as {
      ok: boolean
      error?: { message: string }
    }
    expect(refused.ok).toBe(false)
    expect(refused.error?.message).toBe(
      'The rows of "nyc_taxi" are private and are not shown; only datasets the privacy officer declared public can be browsed'
    )
    await wideScreenshot(page, 'datasets-detail-private')
    await page.getByRole('button', { name: 'Rename nyc_taxi' }).click()
    await page.getByLabel('New name for nyc_taxi').fill('taxi')
    await page.getByLabel('New name for nyc_taxi').press('Enter')
    await datasets.catalogRow(page, 'taxi').waitFor()
  })

  it('a bad CSV shows which line is wrong and what to do, and stores nothing', async () => {
    const bad = join(app.dir, 'broken.csv')
    writeFileSync(bad, 'room,persons,when\nA-101,12,2024-03-04\nA-102,7\nA-103,9,2024-03-05\n')
    await datasets.pick(page, bad)
    await page.getByTestId('preview-bad-rows').waitFor()
    expect(await page.getByTestId('preview-bad-rows').innerText()).toMatch(/Line 3/)
    await datasets.startImport(page, { name: 'broken' })
    const out = await datasets.importOutcome(page)
    expect(out.state).toBe('failed')
    expect(out.text).toMatch(/[Ll]ine 3/)
    expect(out.text).not.toMatch(/at .*\.js|Error:/)
    await screenshot(page, 'datasets-bad-csv')
    expect(await datasets.catalogRow(page, 'broken').count()).toBe(0)
    // Skipping bad rows imports the rest and lists the skipped one.
    await datasets.pick(page, bad)
    await datasets.startImport(page, { name: 'broken', skipBadRows: true })
    const skipped = await datasets.importOutcome(page)
    expect(skipped.state).toBe('done')
    expect(skipped.text).toContain('2 rows imported')
    expect(skipped.text).toMatch(/Line 3/)
  })

  it('a large import shows rows, MB of MB, rate and time left while it runs, and cancels', async () => {
    const big = join(app.dir, 'big.csv')
    const lines = ['id,when,value,label']
    for (let i = 0; i < 1_200_000; i++)
      lines.push(`${i},2024-03-04 ${String(8 + (i % 10)).padStart(2, '0')}:00:00,${(i * 7919) % 100003},label ${i % 97}`)
    writeFileSync(big, lines.join('\n') + '\n')
    const size = statSync(big).size
    expect(size).toBeGreaterThan(40e6)
    await datasets.pick(page, big)
    await datasets.startImport(page, { name: 'big' })
    const text = page.getByTestId('job').getByTestId('progress-text')
    const running = /^[\d,]+ rows · [\d.]+ MB of ([\d.]+) MB · [\d,]+ rows\/s \([\d.]+ (KB|MB)\/s\) · (.+ left|time left unknown)$/
    await page.waitForFunction(
      (re) => new RegExp(re).test(document.querySelector('[data-testid="job"] [data-testid="progress-text"]')?.textContent ?? ''),
      running.source,
      { timeout: 60_000 }
    )
    const [, total] = running.exec(await text.innerText())!
    expect(Math.abs(Number(total) - size / 1e6)).toBeLessThanOrEqual(0.05 + 1e-9)
    await screenshot(page, 'datasets-importing')
    await page.getByTestId('job').getByRole('button', { name: 'Cancel' }).click()
    await page.locator('[data-testid="job"][data-state="cancelled"]').waitFor({ timeout: 60_000 })
    expect(await datasets.catalogRow(page, 'big').count()).toBe(0)
  })

  it('deletes a dataset after confirming', async () => {
    await page.getByRole('button', { name: 'Delete broken' }).click()
    await page.getByRole('group', { name: 'Confirm deleting broken' }).getByRole('button', { name: 'Delete' }).click()
    await datasets.catalogRow(page, 'broken').waitFor({ state: 'detached' })
  })
})

describe('threshold query release', () => {
  it('imports the occupancy sample and its capacities', async () => {
    await datasets.importFile(page, OCCUPANCY, 'occupancy', { unit: '' }) // row-level, as this story counts rows
    await datasets.importFile(page, CAPACITIES, 'capacities')
  })

  it('the officer declares capacities public; the analyst may then take thresholds and groups from it, and from no private dataset', async () => {
    // Before: no public dataset, so neither groups nor thresholds can come from a table; the save button says why.
    await shell.goTo(page, 'Queries')
    await page.getByLabel('Dataset', { exact: true }).selectOption({ label: 'occupancy' })
    await page.getByRole('radio', { name: /Threshold query/ }).check()
    const builder = page.getByTestId('threshold-builder')
    await builder.getByRole('checkbox', { name: 'room', exact: true }).check()
    await page.getByLabel('Threshold', { exact: true }).fill('12')
    await page.getByTestId('groups-source-dataset').check()
    const noPublic =
      'Groups from a dataset must come from a public dataset other than “occupancy”, and there is none yet (2 private datasets are not offered): the privacy officer declares a dataset public on the Datasets screen.'
    expect(await page.getByTestId('groups-no-public').innerText()).toContain(noPublic)
    await page.getByLabel('Name of the question').fill('rooms over 12')
    expect(await page.getByTestId('query-save').isDisabled()).toBe(true)
    expect(await page.getByTestId('query-save-why').innerText()).toBe(`${noPublic} Or list the groups here.`)
    await page.getByLabel('Threshold of each group').selectOption('column')
    expect(await page.getByTestId('threshold-no-public').innerText()).toMatch(
      /^Thresholds from a table must come from a public dataset other than “occupancy”/
    )
    expect(await page.getByTestId('groups-from-threshold-table').innerText()).toMatch(/the groups are that table’s rows/)
    expect(await page.getByTestId('query-save').isDisabled()).toBe(true)
    await wideScreenshot(page, 'queries-groups-not-public')

    // The officer opens capacities (private: no rows), reads what declaring it public means, and declares it with a reason.
    const detail = await datasets.open(page, 'capacities')
    await detail.getByTestId('dataset-private-note').waitFor()
    await detail.getByRole('button', { name: 'Declare public…' }).click()
    const form = detail.getByTestId('declare-public-form')
    expect(await form.getByTestId('declare-public-explained').innerText()).toMatch(
      /may then reach releases[\s\S]*recorded in the ledger[\s\S]*cannot be undone/
    )
    expect(await form.getByRole('button', { name: 'Declare public', exact: true }).isDisabled()).toBe(true)
    expect(await form.getByTestId('declare-public-why').innerText()).toMatch(/reason/)
    await form.getByLabel('Reason (recorded)').fill('room capacities from the published fire-safety plan')
    // The only registered officer is filled in; the passphrase signs the act.
    expect(await form.getByLabel('Officer').inputValue()).toBe(OFFICER.name)
    expect(await form.getByTestId('declare-public-why').innerText()).toMatch(/passphrase/)
    await form.getByLabel('Passphrase').fill(OFFICER.passphrase)
    await wideScreenshot(page, 'datasets-declare-public')
    await form.getByRole('button', { name: 'Declare public', exact: true }).click()
    // Now public: the badge says so, and its rows can be browsed.
    await page.locator('[data-testid="dataset-public-capacities"].public').first().waitFor()
    expect(await datasets.catalogRow(page, 'capacities').getByTestId('dataset-public-capacities').textContent()).toBe('public')
    expect(await datasets.catalogRow(page, 'occupancy').getByTestId('dataset-public-occupancy').textContent()).toBe('private')
    await detail.getByText('Rows 1–20 of 32').waitFor()
    await detail.getByRole('button', { name: 'Next' }).click()
    await detail.getByText('Rows 21–32 of 32').waitFor()
    expect(await detail.getByTestId('dataset-public-note').innerText()).toMatch(/^Public:/)
    await wideScreenshot(page, 'datasets-detail-public')
    // The declaration is a ledger entry with its reason.
    await shell.goTo(page, 'Ledger')
    const entry = ledger.entry(page, 1)
    await entry.waitFor()
    expect(await entry.innerText()).toMatch(/public[\s\S]*capacities/)

    // The analyst: capacities is offered as threshold table and as group list; the private datasets are not.
    await shell.goTo(page, 'Queries')
    await page.getByLabel('Dataset', { exact: true }).selectOption({ label: 'occupancy' })
    await page.getByRole('radio', { name: /Threshold query/ }).check()
    await builder.getByRole('checkbox', { name: 'room', exact: true }).check()
    await page.getByLabel('Threshold of each group').selectOption('column')
    expect(await page.getByLabel('Threshold table').locator('option').allTextContents()).toEqual(['capacities'])
    expect(await page.getByTestId('threshold-builder').innerText()).toMatch(/Not offered \(private\): taxi/)
    await page.getByLabel('Threshold column').selectOption('capacity')
    expect(await page.getByLabel('Table column matching room').inputValue()).toBe('room')
    await page.getByLabel('Name of the question').fill('rooms over capacity, whole period')
    expect(await page.getByTestId('query-save').isEnabled()).toBe(true)
    // Groups from capacities with a constant threshold: the group-by column is matched by name.
    await page.getByLabel('Threshold of each group').selectOption('constant')
    await page.getByLabel('Threshold', { exact: true }).fill('12')
    await page.getByTestId('groups-source-dataset').check()
    expect(await page.getByLabel('Group list dataset').locator('option').allTextContents()).toEqual(['capacities'])
    expect(await page.getByLabel('Column matching room', { exact: true }).inputValue()).toBe('room')
    await wideScreenshot(page, 'queries-groups-public')
    await queries.save(page, 'rooms over 12, rooms of capacities')
  })

  it('denies before a budget exists, says why, and spends nothing', async () => {
    await queries.defineThreshold(page, {
      dataset: 'occupancy',
      name: 'over capacity Tue 14h',
      groupBy: ['building', 'room'],
      person: { column: 'person_id', cap: 1 },
      period: { from: '2024-03-12 14:00:00', to: '2024-03-12 15:00:00' },
      threshold: { table: 'capacities', column: 'capacity' }
    })
    const p = await queries.price(page, { beta: 0.05, alpha: 1, mechanism: 'tslm' })
    expect(p.epsilon).toMatch(/^Costs ε \d/)
    expect(p.guarantee).toMatch(/missed with probability at most 5%/)
    expect(p.denial).not.toBeNull()
    expect(p.canRelease).toBe(false)
    await screenshot(page, 'queries-denied-no-budget')
  })

  it('the officer sets a budget with a reason; the price now fits and the release shows only decisions', async () => {
    await ledger.setBudget(page, {
      dataset: 'occupancy',
      epsilon: 3,
      reason: 'fire-code audit, March',
      officer: OFFICER.name,
      passphrase: OFFICER.passphrase
    })
    await screenshot(page, 'ledger-budget-set')
    await shell.goTo(page, 'Queries')
    await page.getByLabel('Dataset', { exact: true }).selectOption({ label: 'occupancy' })
    await queries.chooseSaved(page, 'over capacity Tue 14h')
    const p = await queries.price(page, { beta: 0.05, alpha: 1, mechanism: 'tslm' })
    expect(p.denial).toBeNull()
    expect(p.canRelease).toBe(true)
    expect(p.budget).toMatch(/Budget ε 3: spent 0, 3 left/)
    await screenshot(page, 'queries-price')
    const result = await queries.release(page)
    expect(await result.innerText()).toMatch(/released answer/i)
    const summary = await result.getByTestId('flagged-summary').innerText()
    expect(summary).toMatch(/^\d+ of 32 building × room groups flagged/)
    const flagged = Number(/^(\d+)/.exec(summary)![1])
    // Every predicate with its public threshold (the capacities table) and its released decision: chart and table.
    expect(await result.getByTestId('threshold-source').innerText()).toMatch(/column "capacity" of public dataset "capacities"/)
    const chart = result.getByTestId('threshold-chart')
    expect(await chart.getAttribute('data-mode')).toBe('each')
    expect(await chart.getAttribute('data-bars')).toBe('32')
    expect(await chart.locator('canvas').getAttribute('aria-label')).toBe(
      `${flagged} of 32 predicates flagged; bar height is each predicate's threshold`
    )
    const table = result.getByTestId('decisions-table')
    expect(await table.locator('tbody tr').count()).toBe(32)
    expect(await table.locator('tbody tr[data-flagged="true"]').count()).toBe(flagged)
    const capacities = readFileSync(CAPACITIES, 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(','))
    for (const [building, room, capacity] of capacities) {
      const cells = await table
        .locator('tbody tr')
        .filter({ has: page.getByRole('cell', { name: room, exact: true }) })
        .locator('td')
        .allInnerTexts()
      expect(cells.slice(0, 3)).toEqual([building, room, Number(capacity).toLocaleString('en-US')])
      expect(cells[3]).toMatch(/^(flagged \(may be up to [0-9.]+ under its threshold\)|not flagged)$/)
    }
    await screenshot(page, 'release-result')
    await result.getByTestId('threshold-answer').screenshot({ path: join(SCREENSHOTS, 'release-result-answer.png') })
    await result.getByTestId('decisions-only-flagged').check()
    expect(await table.locator('tbody tr').count()).toBe(flagged)
    await result.getByTestId('decisions-only-flagged').uncheck()
    // A reload keeps the question's accuracy panel and the answer released under it, and says where the answer is kept.
    await page.reload()
    await result.getByTestId('flagged-summary').waitFor()
    expect(await result.getByTestId('flagged-summary').innerText()).toBe(summary)
    expect(await page.getByTestId('release-panel').getByRole('heading', { level: 2 }).innerText()).toBe('Accuracy and price: over capacity Tue 14h')
    const kept = page.getByTestId('release-kept')
    expect(await kept.innerText()).toMatch(/^This answer is kept under Releases: Release \d+\.$/)
    expect(await kept.getByRole('link').getAttribute('href')).toMatch(/^#\/releases\/\d+$/)
    await screenshot(page, 'queries-after-reload')
    // Its ledger entry: one click away.
    await result.getByTestId('release-ledger-link').click()
    await page.getByRole('heading', { level: 1, name: 'Ledger' }).waitFor()
    // Entry 1 declared capacities public, entry 2 set the budget.
    const entry = ledger.entry(page, 3)
    await entry.waitFor()
    expect(await entry.innerText()).toMatch(/charge[\s\S]*occupancy[\s\S]*predicate-wise DP/)
    expect(await entry.getAttribute('class')).toContain('selected')
    await screenshot(page, 'ledger-after-release')
  })

  it('a second release over the budget is denied with its reason, before anything is spent', async () => {
    await shell.goTo(page, 'Queries')
    await page.getByLabel('Dataset', { exact: true }).selectOption({ label: 'occupancy' })
    await queries.chooseSaved(page, 'over capacity Tue 14h')
    const p = await queries.price(page, { beta: 0.05, alpha: 1, mechanism: 'tslm' })
    expect(p.canRelease).toBe(false)
    expect(p.denial).toMatch(/^Would be denied: /)
    expect(p.denial!.length).toBeGreaterThan('Would be denied: '.length + 10)
    await screenshot(page, 'queries-denied-over-budget')
  })

  it('the ledger verifies green, and sealed costs show only after a recorded unlock', async () => {
    await shell.goTo(page, 'Ledger')
    const v = await ledger.verify(page)
    expect(v.ok).toBe(true)
    expect(v.text).toContain('Intact')
    await page.getByTestId('officer-toggle').click()
    const sealed = page.getByTestId('sealed-1')
    await sealed.waitFor()
    expect(await page.getByTestId('sealed-costs').count()).toBe(0)
    await sealed.getByRole('button', { name: 'Unlock sealed costs…' }).click()
    await chooseOfficer(sealed.getByLabel('Officer'), OFFICER.name)
    if ((await sealed.getByLabel('Passphrase').count()) > 0) await sealed.getByLabel('Passphrase').fill(OFFICER.passphrase)
    await sealed.getByLabel('Reason (recorded)').fill('quarterly review')
    await sealed.getByRole('button', { name: 'Record and unlock' }).click()
    await sealed.getByTestId('sealed-costs').waitFor()
    await screenshot(page, 'ledger-officer')
  })

  it('the Releases screen lists the release and opens it', async () => {
    await shell.goTo(page, 'Releases')
    await page.getByTestId('releases-table').getByRole('link', { name: 'over capacity Tue 14h' }).click()
    await page.getByTestId('release-result').waitFor()
    await screenshot(page, 'releases')
  })

  it('a saved question is edited in the app as its next version; the release keeps the version it ran', async () => {
    await shell.goTo(page, 'Queries')
    await page.getByLabel('Dataset', { exact: true }).selectOption({ label: 'occupancy' })
    await queries.chooseSaved(page, 'over capacity Tue 14h')
    await page.getByTestId('edit-query-over capacity Tue 14h').click()
    const panel = page.getByTestId('query-builder')
    expect(await panel.getByRole('heading', { level: 2 }).innerText()).toBe('Edit “over capacity Tue 14h”: version 2')
    expect(await page.getByTestId('query-editing').innerText()).toMatch(/version 1 stays as it is, and every release keeps the version it ran/)
    // The builder starts from the saved definition, and only the same kind of question can be chosen.
    expect(await page.getByLabel('Name of the question').inputValue()).toBe('over capacity Tue 14h')
    expect(await page.getByLabel('Only rows in a period').isChecked()).toBe(true)
    expect(await page.getByLabel('From (inclusive)').inputValue()).toBe('2024-03-12 14:00:00')
    expect(await page.getByLabel('What is counted').inputValue()).toBe('persons')
    expect(await page.getByLabel('Threshold of each group').inputValue()).toBe('column')
    expect(await page.getByLabel('Threshold column').inputValue()).toBe('capacity')
    expect(await page.getByRole('radio', { name: /Anomaly search/ }).isDisabled()).toBe(true)
    expect(await page.getByTestId('query-save').innerText()).toBe('Save version 2')
    await page.getByLabel('To (exclusive)').fill('2024-03-12 16:00:00')
    await wideScreenshot(page, 'queries-edit-version')
    await queries.save(page, 'over capacity Tue 14-16h')
    const saved = page.getByTestId('saved-queries')
    expect(await saved.getByTestId('saved-query-over capacity Tue 14-16h').innerText()).toMatch(/threshold query · version 2 ·/)
    expect(await saved.getByTestId('saved-query-over capacity Tue 14h').count()).toBe(0)
    expect(await panel.getByRole('heading', { level: 2 }).innerText()).toBe('New question')
    // The release made with version 1 still names it, and the new version is priced on its own.
    const p = await queries.price(page, { beta: 0.05, alpha: 1, mechanism: 'tslm' })
    expect(p.epsilon).toMatch(/^Costs ε \d/)
    await shell.goTo(page, 'Releases')
    expect(await page.getByTestId('releases-table').getByRole('link', { name: 'over capacity Tue 14h' }).count()).toBe(1)
    expect(await page.getByTestId('releases-table').getByRole('link', { name: 'over capacity Tue 14-16h' }).count()).toBe(0)
  })

  it('many predicates: the decisions are drawn as a strip sorted by threshold, and the table lists them all', async () => {
    // Rooms x working hours of Tuesday 12 March against a constant limit, the groups listed: one predicate per (room, hour).
    const rooms = readFileSync(CAPACITIES, 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(',')[1])
    const listed = rooms.flatMap((room) => [8, 9, 10, 11, 12, 13, 14, 15, 16, 17].map((h) => [room, h]))
    await queries.defineThreshold(page, {
      dataset: 'occupancy',
      name: 'busy room-hours on Tuesday',
      groupBy: ['room', 'hour_of_day'],
      period: { from: '2024-03-12', to: '2024-03-13' },
      threshold: { constant: 12 },
      groups: { listed }
    })
    // The rest of the budget (0.697 on the rooms charged before) admits alpha 5: ln(10) / 5 = 0.46.
    const p = await queries.price(page, { beta: 0.05, alpha: 5, mechanism: 'tslm' })
    expect(p.canRelease).toBe(true)
    const result = await queries.release(page)
    const summary = await result.getByTestId('flagged-summary').innerText()
    const [, flagged, asked] = /^(\d+) of ([\d,]+) room × hour_of_day groups flagged/.exec(summary)!.map((x) => x.replace(/,/g, ''))
    expect(Number(asked)).toBe(listed.length)
    const chart = result.getByTestId('threshold-chart')
    expect(await chart.getAttribute('data-mode')).toBe('strip')
    expect(await chart.getAttribute('data-bars')).toBe(asked)
    expect(await chart.innerText()).toMatch(/one thin bar per predicate at its threshold, sorted by threshold/)
    const table = result.getByTestId('decisions-table')
    expect(await table.locator('tbody tr').count()).toBe(Math.min(500, Number(asked)))
    await result.getByTestId('decisions-only-flagged').check()
    expect(await table.locator('tbody tr').count()).toBe(Math.min(500, Number(flagged)))
    await result.getByTestId('decisions-only-flagged').uncheck()
    await screenshot(page, 'release-strip')
    await result.getByTestId('threshold-answer').screenshot({ path: join(SCREENSHOTS, 'release-strip-answer.png') })
  })

  it('reference thresholds come from the data: the charge covers them (sensitivity cap x max(1, factor)) and their values are not released', async () => {
    await queries.defineThreshold(page, {
      dataset: 'occupancy',
      name: 'busier than last week, per room',
      groupBy: ['room'],
      period: { from: '2024-03-13', to: '2024-03-14' },
      threshold: { reference: { factor: 1, aggregate: 'max', bucket: 'day', from: '2024-03-04', to: '2024-03-09' } },
      // The rooms of the public capacities table are the groups.
      groups: { from: 'capacities' }
    })
    const p = await queries.price(page, { beta: 0.05, alpha: 20, mechanism: 'tslm' })
    expect(p.explained).toMatch(/x max\(1, 1\) because the reference threshold comes from the same data/)
  })
})

describe('anomaly questions', () => {
  it('anomaly identification: price and guarantee first, then a released bit per record', async () => {
    await ledger.setBudget(page, {
      dataset: 'taxi',
      epsilon: 10,
      reason: 'anomaly review of the taxi counts',
      officer: OFFICER.name,
      passphrase: OFFICER.passphrase
    })
    await shell.goTo(page, 'Queries')
    await page.getByLabel('Dataset', { exact: true }).selectOption({ label: 'taxi' })
    await page.getByRole('radio', { name: /Anomaly identification/ }).check()
    await page.getByTestId('aiq-column-value').check()
    await page.getByLabel('Bin width of value').fill('500')
    await page.getByLabel('Radius (bins)').fill('1')
    await page.getByLabel('Max neighbours').fill('25')
    await page.getByLabel('k', { exact: true }).fill('5')
    await page.getByLabel(/^Records to ask about/).fill('10844\n39197')
    await page.getByLabel('Name of the question').fill('unusual half-hours')
    await page.getByRole('button', { name: 'Save question' }).click()
    await page.getByTestId('release-panel').waitFor()
    // Accuracy first: the error rate accepted prices ε per record from Construction 1's closed form:
    // ln(1/0.05 - 1) = 2.944, rounded up to 2.945; two records asked cost 5.89.
    await page.getByTestId('aiq-error').fill('0.05')
    expect(await page.getByTestId('aiq-derived-epsilon').innerText()).toMatch(/^ε per record asked: 2\.945 \(from Construction 1/)
    await page
      .getByTestId('preview-epsilon')
      .filter({ hasText: /^Costs ε 5\.89\b/ })
      .waitFor()
    await page.getByTestId('aiq-error').fill('')
    await page.getByLabel('ε per record asked').fill('1')
    await page.locator('[data-testid="release-preview"][aria-busy="false"]').waitFor()
    expect(await page.getByTestId('preview-guarantee').innerText()).toMatch(/wrong with probability at most/)
    await screenshot(page, 'queries-aiq')
    const result = await queries.release(page)
    expect(await result.getByTestId('aiq-answer').innerText()).toMatch(/of 2\s+records asked about/)
    await screenshot(page, 'release-aiq')
  })

  it('the officer declares the list of half-hours public (the calendar, not the counts)', async () => {
    // The individuals of a search are public: here the NAB file's half-hours, without their counts.
    const halfHours = join(app.dir, 'half-hours.csv')
    const lines = readFileSync(NYC_TAXI, 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => `${l.split(',')[0]},${l.split(',')[0].slice(11, 16)}`)
    writeFileSync(halfHours, ['timestamp,time_of_day', ...lines].join('\n') + '\n')
    await datasets.importFile(page, halfHours, 'half-hours')
    await datasets.declarePublic(page, { dataset: 'half-hours', reason: 'the calendar of half-hours, no counts', ...OFFICER })
  })

  it('anomaly search: the id column and a public list of individuals are required; the builder states its price before anything is spent', async () => {
    await shell.goTo(page, 'Queries')
    await page.getByLabel('Dataset', { exact: true }).selectOption({ label: 'taxi' })
    await page.getByRole('radio', { name: /Anomaly search/ }).check()
    await page.getByLabel('t-low (protected at or below)').fill('30000')
    await page.getByLabel('t-high (the anomaly is above)').fill('35000')
    await page.getByLabel('Name of the question').fill('busiest half-hour')
    // No id column yet: the save button says what is missing.
    expect(await page.getByTestId('query-save').isDisabled()).toBe(true)
    expect(await page.getByTestId('query-save-why').innerText()).toMatch(/^Choose the column naming the individuals/)
    await page.getByLabel('Individuals are named by').selectOption('timestamp')
    // Listed individuals: at least two, one per line.
    await page.getByTestId('individuals-source-listed').check()
    await page.getByLabel(/^Ids, one per line/).fill('2014-11-02 01:00:00')
    expect(await page.getByTestId('query-save-why').innerText()).toMatch(/^List at least two individuals/)
    // The score floor L: t-low must be above it.
    await page.getByLabel('Score floor L (optional)').fill('30000')
    expect(await page.getByTestId('search-builder').innerText()).toContain('Scores below L are raised to L; the noise scale is (t-low − L)/ε.')
    await page.getByLabel('Score floor L (optional)').fill('')
    await queries.defineSearch(page, {
      dataset: 'taxi',
      name: 'busiest half-hour',
      idColumn: 'timestamp',
      individuals: { listed: ['2014-11-02 01:00:00', '2014-11-02 01:30:00', '2014-07-04 12:00:00', '2015-01-26 20:00:00'] },
      scoreFloor: 0,
      tLow: 30000,
      tHigh: 35000
    })
    await page.getByTestId('release-preview').or(page.getByTestId('preview-error')).first().waitFor()
    await screenshot(page, 'queries-search')
  })

  it('anomaly search: a release within the budget shows the top-S with their posterior as a chart', async () => {
    // Sharp questions (ε 30 each, Laplace scale t-low / ε = 1,000) so that the posterior moves within 20 questions.
    await ledger.setBudget(page, {
      dataset: 'taxi',
      epsilon: 1000,
      reason: 'search for the busiest half-hour',
      officer: OFFICER.name,
      passphrase: OFFICER.passphrase
    })
    // Every half-hour of the public calendar is searched (the individuals come from its column, matched on timestamp).
    await shell.goTo(page, 'Queries')
    await page.getByLabel('Dataset', { exact: true }).selectOption({ label: 'taxi' })
    await page.getByRole('radio', { name: /Anomaly search/ }).check()
    await page.getByLabel('Individuals are named by').selectOption('timestamp')
    await page.getByTestId('individuals-source-dataset').check()
    expect(await page.getByLabel('List of individuals').locator('option').allTextContents()).not.toContain('taxi')
    await page.getByLabel('List of individuals').selectOption({ label: 'half-hours' })
    expect(await page.getByLabel('Id column of the list').inputValue()).toBe('timestamp')
    await page.getByLabel('t-low (protected at or below)').fill('30000')
    await page.getByLabel('t-high (the anomaly is above)').fill('36000')
    await page.getByLabel('ε per question').fill('30')
    await page.getByLabel('Budget ε (total at most)').fill('600')
    await wideScreenshot(page, 'queries-search-builder')
    await queries.save(page, 'busiest half-hour, sharp questions')
    await page.locator('[data-testid="release-preview"][aria-busy="false"]').waitFor()
    expect(await page.getByTestId('preview-epsilon').innerText()).toMatch(/^Costs ε 600\b/)
    const result = await queries.release(page)
    const answer = result.getByTestId('search-answer')
    await answer.waitFor()
    expect(await answer.getByTestId('posterior-unavailable').count()).toBe(0)
    await answer.getByTestId('posterior-chart').locator('canvas').waitFor()
    // The verdict the released posterior supports (secure noise: either may happen); an undecided search names no one.
    const verdict = await answer.getByTestId('search-verdict').innerText()
    if ((await answer.getAttribute('data-conclusive')) === 'false') {
      expect(verdict).toMatch(/^Inconclusive: the most likely individual has posterior 0\.\d\d/)
      expect(await answer.getByTestId('posterior-table').count()).toBe(0)
      expect(await answer.getByTestId('search-candidates').getAttribute('open')).toBeNull()
      return
    }
    expect(verdict).toMatch(
      /^Most likely the anomaly: timestamp \d{4}-\d\d-\d\d[^,]*, with posterior (0\.[5-9]\d|1\.00) \(the search stops once one reaches 0\.5\)/
    )
    const rows = answer.getByTestId('posterior-table').locator('tbody tr')
    expect(await rows.count()).toBe(4)
    const posts: number[] = []
    for (let i = 0; i < 4; i++) {
      const cells = await rows.nth(i).locator('td').allInnerTexts()
      expect(cells[0]).toBe(String(i + 1))
      expect(cells[1]).toMatch(/^\d{4}-\d\d-\d\d/)
      expect(cells[2]).toMatch(/^[01]\.\d\d$/)
      posts.push(Number(cells[2]))
    }
    for (let i = 1; i < 4; i++) expect(posts[i]).toBeLessThanOrEqual(posts[i - 1])
    // The chart's accessible label carries the same released numbers.
    const label = (await answer.getByTestId('posterior-chart').locator('canvas').getAttribute('aria-label'))!
    for (const p of posts) expect(label).toContain(p.toFixed(2))
    expect(await answer.getByTestId('posterior-note').innerText()).toMatch(/sealed/)
    expect(await result.innerText()).not.toMatch(/questions asked: \d|halted|privacy risk/i)
    await screenshot(page, 'release-search')
    await answer.screenshot({ path: join(SCREENSHOTS, 'release-search-answer.png') })
  })
})

describe('reports', () => {
  it('previews the workspace report and exports the ledger as CSV', async () => {
    await shell.goTo(page, 'Reports')
    await page.getByRole('button', { name: 'Preview' }).click()
    const panel = page.getByTestId('report-preview-panel')
    await panel.or(page.getByTestId('report-error')).first().waitFor({ timeout: 60_000 })
    expect(await page.getByTestId('report-error').count()).toBe(0)
    expect(await panel.innerText()).toMatch(/Whole workspace/)
    await page
      .frameLocator('iframe[title="Report preview"]')
      .getByText(/Privacy audit report/)
      .first()
      .waitFor()
    // Full-page screenshots leave sandboxed frames blank: the preview gets its own.
    await panel.locator('iframe').screenshot({ path: join(SCREENSHOTS, 'reports-preview-frame.png') })
    await panel.getByLabel('Export as').selectOption('csv')
    await panel.getByRole('button', { name: 'Export' }).click()
    await panel.getByRole('button', { name: 'Download' }).waitFor({ timeout: 60_000 })
    const [download] = await Promise.all([page.waitForEvent('download'), panel.getByRole('button', { name: 'Download' }).click()])
    expect(download.suggestedFilename()).toMatch(/\.csv$/)
    await screenshot(page, 'reports')
  })
})
