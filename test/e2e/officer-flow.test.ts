/// <reference lib="dom" />
/**
 * The officer's acts and the ways between screens, in the app (headless server, Chromium), each on a fresh workspace:
 * - "Link a file" says it is the privacy officer's act before anything is chosen (the card and the first-run step);
 *   once a file is chosen, its columns and first rows are shown and the privacy unit is one of them (a detected person
 *   column preselected with its reason, row-level an explicit choice); the officer is chosen from the registered ones,
 *   read when the form opens (an officer registered outside the app after the page loaded is there, with no reload);
 *   at 1024x700 and 1440x900, nothing cut;
 * - after setting up the officer, the next step is linked; a denial over the budget leads an officer to "Set a budget";
 *   verify's "not yet checkpointed" ends with what to do and opens "Sign a checkpoint"; Settings says how to change the
 *   workspace where the app runs (headless: the server's start).
 * Screenshots: test-results/screenshots/officer-flow-*.png.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { ROOT, screenshot } from './app'
import { initOfficerWithCli, openAppPerTest } from './open-app'
import { datasets } from './pages/datasets'
import { firstRun } from './pages/first-run'
import { VIEWPORTS, cutSelects, measureOverflow } from './pages/layout'
import { ledger } from './pages/ledger'
import { linkFile } from './pages/link-file'
import { officerOptions } from './pages/officer-field'
import { officers } from './pages/officers'
import { queries } from './pages/queries'
import { shell } from './pages/shell'

const OCCUPANCY = join(ROOT, 'resources', 'sample', 'occupancy.csv')
const DANA = { name: 'Dana Ortiz', passphrase: 'correct horse battery staple' }
const OFFICER_FIRST = 'For the privacy officer: the link is signed with the officer’s key'
/** Tuesday 12 March 2024, 14:00-15:00 (the sample's busy hour). */
const TUESDAY_2PM = { from: '2024-03-12T14:00:00Z', to: '2024-03-12T15:00:00Z' }

const opened = openAppPerTest()
const files = mkdtempSync(join(tmpdir(), 'qa-e2e-officer-flow-'))
afterAll(() => rmSync(files, { recursive: true, force: true }))

const badges = join(files, 'badges.csv')
writeFileSync(
  badges,
  [
    'timestamp,room,badge_id,minutes',
    ...Array.from({ length: 30 }, (_, i) => `2024-03-12 0${i % 10}:00:00,R${1 + (i % 3)},b${i % 7},${10 + i}`)
  ].join('\n') + '\n'
)

async function fits(page: Page, what: string) {
  const o = await measureOverflow(page)
  expect(o.scrollWidth, `${what}: ${o.culprits.join('; ')}`).toBeLessThanOrEqual(o.viewport)
  expect(await cutSelects(page), what).toEqual([])
}

for (const v of VIEWPORTS) {
  describe(`Link a file at ${v.width}x${v.height}`, () => {
    it('says it is the officer’s act up front, shows the file’s columns to choose the unit from, and offers the registered officers', async () => {
      const { page, app } = opened
      await page.setViewportSize(v)

      // Before anything is chosen: the card and the first run's step say who links.
      await shell.goTo(page, 'Datasets')
      expect(await page.getByTestId('link-file-who').innerText()).toMatch(new RegExp(`^${OFFICER_FIRST}`))
      const steps = await firstRun.steps(page)
      expect(steps.find((s) => s.id === 'import')!.text).toContain('is for the privacy officer: the link is signed with the officer’s key')

      // No officer yet: the officer is typed, beside the way to set one up.
      expect(await linkFile.choose(page, badges)).toBeNull()
      expect(await page.getByTestId('link-file-no-officer').isVisible()).toBe(true)
      expect(await officerOptions(page.getByTestId('link-file-officer'))).toBeNull()
      expect(await page.getByTestId('link-file-officer-none').innerText()).toBe('No officer is registered yet: Set up the privacy officer.')
      expect(await page.getByTestId('link-file-officer-none').getByRole('link').getAttribute('href')).toBe('#/ledger/officers')

      // The file's columns and first rows; the unit is one of its columns, the detected one preselected with its reason.
      const preview = page.getByTestId('link-file-preview')
      expect(await preview.locator('th .col-name').allInnerTexts()).toEqual(['timestamp', 'room', 'badge_id', 'minutes'])
      expect(await preview.locator('tbody tr').count()).toBe(10)
      const unit = await linkFile.unit(page)
      expect(unit.options).toEqual(['', 'timestamp', 'room', 'badge_id', 'minutes'])
      expect(unit.chosen).toBe('badge_id')
      expect(unit.reason).toMatch(/^Preselected: the name “badge_id” says it identifies a person/)
      // Row-level is a choice of its own, and then the column that looks like a person is suggested.
      await page.getByTestId('link-file-person-column').selectOption('')
      expect(await page.getByTestId('link-file-person-column').locator('option:checked').innerText()).toBe(
        'Each row is a different person (row-level)'
      )
      expect(await page.getByTestId('link-file-unit-hint').innerText()).toMatch(/^“badge_id” looks like it names a person/)
      await fits(page, 'Link a file, columns shown')
      await screenshot(page, `officer-flow-link-preview-${v.width}`)

      // An officer registered outside the app after the page loaded: the form reads the officers when it opens.
      initOfficerWithCli(app.db, DANA)
      await page.getByTestId('link-file-panel').getByRole('button', { name: 'Close' }).click()
      expect(await linkFile.choose(page, badges)).toBeNull()
      expect(await officerOptions(page.getByTestId('link-file-officer'))).toEqual([DANA.name])
      expect(await page.getByTestId('link-file-no-officer').count()).toBe(0)
      const linked = await linkFile.link(page, badges, { name: 'badges', personColumn: 'badge_id', passphrase: DANA.passphrase })
      expect(linked).toBe('Linked badges.csv as "badges" (30 rows × 4 columns, queried in place; signed by the officer).')
      expect(await datasets.catalogRow(page, 'badges').innerText()).toMatch(/unit: person \(badge_id\)/)
      await fits(page, 'Link a file, linked')
    })
  })
}

describe('The officer’s way between screens at 1024x700', () => {
  it('leads from the officer’s set-up to the next step, from a denial to "Set a budget", and from verify to "Sign a checkpoint"', async () => {
    const { page } = opened
    await page.setViewportSize(VIEWPORTS[0])

    // After the set-up, the next step of the first run is linked.
    await shell.goTo(page, 'Ledger')
    await officers.setUpFirst(page, DANA)
    const next = page.getByTestId('officer-next-step')
    expect(await next.innerText()).toBe('Next step: Import a dataset (analyst, under “Getting started” on Datasets).')
    await next.getByRole('link', { name: 'Import a dataset' }).click()
    await page.getByTestId('first-run').waitFor()
    expect((await firstRun.steps(page)).find((s) => s.next)?.id).toBe('import')

    // Every officer field offers the registered officer.
    await datasets.importFile(page, OCCUPANCY, 'occupancy')
    await shell.goTo(page, 'Ledger')
    expect(await officerOptions(page.getByTestId('budget-officer'))).toEqual([DANA.name])
    expect(await officerOptions(page.getByTestId('checkpoint-officer'))).toEqual([DANA.name])
    // One name for the budget: the unit's.
    expect(await page.getByTestId('budget-notion').locator('option:checked').innerText()).toBe('The budget per person, all notions summed')
    await ledger.setBudget(page, { dataset: 'occupancy', epsilon: 1, reason: 'pilot', officer: DANA.name, passphrase: DANA.passphrase })
    expect(await page.getByTestId('budget-done').innerText()).toBe('Budget of “occupancy” set to ε 1 as the budget per person (ledger entry 1).')
    expect(await page.getByTestId('budget-changes').innerText()).toMatch(/budget per person/)
    expect(await ledger.entry(page, 1).innerText()).toMatch(/budget per person/)

    // Over the budget: the denial leads the officer to "Set a budget".
    await queries.defineThreshold(page, {
      dataset: 'occupancy',
      name: 'Rooms over 3',
      groupBy: ['room'],
      person: { column: 'person_id', cap: 1, maxGroups: 1 },
      period: TUESDAY_2PM,
      threshold: { constant: 3 },
      groups: { listed: [['A-101'], ['A-102']] }
    })
    const price = await queries.price(page, { beta: 0.05, alpha: 1, mechanism: 'tslm' })
    expect(price.canRelease).toBe(false)
    expect(price.denial).toMatch(/ask the privacy officer to raise the budget\. As a privacy officer you can raise it: Ledger → Set a budget\.$/)
    await screenshot(page, 'officer-flow-denial-1024')
    await page.getByTestId('raise-budget').getByRole('link', { name: 'Ledger → Set a budget' }).click()
    await page.getByRole('heading', { level: 1, name: 'Ledger' }).waitFor()
    await page.waitForFunction(() => document.activeElement?.id === 'budget')
    // The officer raises it there; the release then fits, and its charge is written after the last checkpoint.
    await ledger.setBudget(page, { dataset: 'occupancy', epsilon: 5, reason: 'pilot, raised', officer: DANA.name, passphrase: DANA.passphrase })
    await shell.goTo(page, 'Queries')
    await queries.chooseSaved(page, 'Rooms over 3')
    expect((await queries.price(page, { beta: 0.05, alpha: 1, mechanism: 'tslm' })).canRelease).toBe(true)
    await queries.release(page)
    await shell.goTo(page, 'Ledger')

    // Verify: what no checkpoint covers yet ends with what to do, and the button opens "Sign a checkpoint".
    let verified = await ledger.verify(page)
    expect(verified.ok).toBe(true)
    expect(verified.text).toMatch(/not yet checkpointed/)
    const advice = page.getByTestId('verify-checkpoint-advice')
    expect(await advice.innerText()).toMatch(/^Sign a checkpoint now \(your passphrase\): verify then detects any rewrite or removal of these too\./)
    await page.evaluate(() => window.scrollTo(0, 0))
    await advice.getByRole('button', { name: 'Sign a checkpoint…' }).click()
    await page.waitForFunction(() => document.activeElement?.id === 'checkpoint')
    expect(await page.getByTestId('checkpoint-panel').isVisible()).toBe(true)
    await screenshot(page, 'officer-flow-checkpoint-1024')
    await page.getByTestId('checkpoint-passphrase').fill(DANA.passphrase)
    await page.getByTestId('checkpoint-sign').click()
    await page.getByTestId('checkpoint-done').waitFor()
    verified = await ledger.verify(page)
    expect(verified.text).not.toMatch(/not yet checkpointed/)
    expect(await advice.count()).toBe(0)
  })

  it('Settings says how to use another workspace where the app runs: in headless mode, when the server starts', async () => {
    const { page } = opened
    await page.setViewportSize(VIEWPORTS[0])
    await shell.goTo(page, 'Settings')
    const how = page.getByTestId('settings-workspace-switch')
    await how.waitFor()
    expect(await how.getAttribute('data-mode')).toBe('headless')
    expect(await how.innerText()).toBe(
      'This page works on the workspace the server was started with. To use another one, stop the server and start it again with the other file: npm run serve -- --db PATH.'
    )
  })
})
