/// <reference lib="dom" />
/**
 * The two first runs, in the app only (no terminal), on a fresh workspace, at 1024x700 and at 1440x900:
 * - the privacy officer: the guide leads to "Set up the privacy officer" (rules first), the budget, a public
 *   declaration, unlocking a release's sealed costs, another officer added, the officer edition of the report;
 * - the analyst: an import whose person column is found and preselected (with the reason), a threshold question, its
 *   price, the release, its charge in the ledger, and the report.
 * Screenshots: test-results/screenshots/first-run-*-<width>.png.
 */
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { ROOT, screenshot } from './app'
import { openAppPerTest } from './open-app'
import { datasets } from './pages/datasets'
import { firstRun } from './pages/first-run'
import { VIEWPORTS, cutSelects, measureOverflow } from './pages/layout'
import { ledger } from './pages/ledger'
import { officers } from './pages/officers'
import { queries } from './pages/queries'
import { reports } from './pages/reports'
import { shell } from './pages/shell'

const OCCUPANCY = join(ROOT, 'resources', 'sample', 'occupancy.csv')
const CAPACITIES = join(ROOT, 'resources', 'sample', 'capacities.csv')
const DANA = { name: 'Dana Ortiz', passphrase: 'correct horse battery staple' }
const LEE = { name: 'Lee Park', passphrase: 'purple elephant midnight train' }
/** Tuesday 12 March 2024, 14:00-15:00: when the sample's rooms A-101 and C-201 are overfull. */
const TUESDAY_2PM = { from: '2024-03-12T14:00:00Z', to: '2024-03-12T15:00:00Z' }

const opened = openAppPerTest()

/** Nothing on screen is wider than the window, and no select's choice is cut. */
async function fits(page: Page, what: string) {
  const o = await measureOverflow(page)
  expect(o.scrollWidth, `${what}: ${o.culprits.join('; ')}`).toBeLessThanOrEqual(o.viewport)
  expect(await cutSelects(page), what).toEqual([])
}

/** The release id in the result's ledger link ("… entry 3" links to #/ledger/3; the release id is in its heading). */
async function releaseId(page: Page): Promise<number> {
  const text = await page.getByTestId('release-result').innerText()
  return Number(/Release (\d+)/.exec(text)![1])
}

for (const v of VIEWPORTS) {
  const size = `${v.width}`

  describe(`first runs at ${v.width}x${v.height}`, () => {
    it('the privacy officer: set up, budget, public declaration, unlock, another officer, officer report', async () => {
      const { page } = opened
      await page.setViewportSize(v)

      // The guide says what to do first: set up the officer, before any budget can fail for want of one.
      const steps = await firstRun.steps(page)
      expect(steps.map((s) => [s.id, s.done, s.next])).toEqual([
        ['officer', false, true],
        ['import', false, false],
        ['budget', false, false],
        ['query', false, false],
        ['release', false, false]
      ])
      expect(steps[0].text).toMatch(/^1\s*Set up the privacy officer \(privacy officer, next\)/)
      await screenshot(page, `first-run-guide-${size}`)
      await firstRun.followNext(page)
      await page.getByRole('heading', { level: 1, name: 'Ledger' }).waitFor()
      await page.getByTestId('officer-register-form').waitFor()
      await page.waitForFunction(() => document.activeElement?.id === 'officers')

      // The rules come before the passphrase is typed; the form says what is wrong, one sentence at a time.
      expect(await officers.rules(page)).toEqual([
        'At least 12 characters; a few unrelated words are long and easy to remember.',
        'It protects the officer’s key: every budget, public declaration, unlock and checkpoint is signed with it.',
        'It is never stored and cannot be recovered: if it is lost, the key can no longer sign (another registered officer can add a new one).'
      ])
      expect(await officers.fillNew(page, { name: DANA.name, passphrase: 'too short' })).toBe(
        'The passphrase has 9 characters; it needs at least 12.'
      )
      expect(await officers.fillNew(page, { ...DANA, repeated: 'correct horse battery stapel' })).toBe(
        'The two passphrases differ: type the same one twice.'
      )
      // The budget form, before any dataset: the way on, not a loading or an officer error.
      expect(await page.getByTestId('budget-no-dataset').innerText()).toMatch(/Import a dataset first; then set its privacy budget here/)
      await screenshot(page, `first-run-officer-form-${size}`)
      const keyId = await officers.setUpFirst(page, DANA)
      expect(keyId).toMatch(/^([0-9a-f]{4} )+[0-9a-f]{4}$/)
      await fits(page, 'Ledger after setting up the officer')
      await screenshot(page, `first-run-officer-registered-${size}`)

      // The data (the analyst's part of the same first run, in the app too).
      await datasets.importFile(page, OCCUPANCY, 'occupancy')
      await datasets.importFile(page, CAPACITIES, 'capacities')
      expect(await datasets.catalogRow(page, 'occupancy').getByTestId('dataset-unit-occupancy').innerText()).toBe('unit: person (person_id)')
      expect(await datasets.catalogRow(page, 'capacities').getByTestId('dataset-unit-capacities').innerText()).toBe('unit: row')

      // Budget: the only officer is filled in; the passphrase signs it.
      await shell.goTo(page, 'Ledger')
      expect(await page.getByTestId('budget-form').getByLabel('Officer').inputValue()).toBe(DANA.name)
      expect(await page.getByTestId('budget-no-officer').count()).toBe(0)
      await ledger.setBudget(page, {
        dataset: 'occupancy',
        epsilon: 10,
        reason: 'fire-safety review, March',
        officer: DANA.name,
        passphrase: DANA.passphrase
      })
      expect(await page.getByTestId('budget-done').innerText()).toMatch(/Budget of “occupancy” set to ε 10/)

      // Public declaration: capacities are posted at every door.
      await datasets.declarePublic(page, { dataset: 'capacities', reason: 'room capacities are posted at every door', ...DANA })

      // A release to audit: rooms over their posted capacity, counted in persons.
      await queries.defineThreshold(page, {
        dataset: 'occupancy',
        name: 'Rooms over capacity, Tuesday 14:00',
        groupBy: ['room'],
        person: { column: 'person_id', cap: 1, maxGroups: 1 },
        period: TUESDAY_2PM,
        threshold: { table: 'capacities', column: 'capacity' }
      })
      const price = await queries.price(page, { beta: 0.05, alpha: 1, mechanism: 'tslm' })
      expect(price.canRelease).toBe(true)
      await queries.release(page)
      const id = await releaseId(page)

      // Unlock the release's sealed costs: signed and recorded before anything is shown.
      const sealed = await ledger.unlock(page, { releaseId: id, reason: 'monthly review of actual spend', passphrase: DANA.passphrase })
      expect(sealed).toMatch(/^Unlocked \(recorded\)\. Charged ε 2\.30259; actually spent at most ε/)
      await fits(page, 'Ledger with unlocked costs')
      await screenshot(page, `first-run-officer-unlocked-${size}`)

      // Another officer, added by Dana (her passphrase signs the registration).
      await officers.add(page, { ...LEE, by: DANA.name, byPassphrase: DANA.passphrase })
      expect(await page.getByTestId('officer-registered').innerText()).toMatch(/^Officer “Lee Park” registered by Dana Ortiz\./)
      expect(await page.getByTestId('officers-list').innerText()).toMatch(/Lee Park[\s\S]*Dana Ortiz/)

      // The officer edition of the report: officer, reason and passphrase in the app; the unlocks are in it.
      await shell.goTo(page, 'Reports')
      await page.getByLabel('Edition').selectOption('officer')
      expect(await page.getByTestId('report-why').innerText()).toBe('Choose the officer who opens the sealed costs.')
      await page.getByTestId('report-officer').getByLabel('Officer').selectOption(DANA.name)
      const panel = await reports.preview(page, { edition: 'officer', officer: { reason: 'quarterly audit', passphrase: DANA.passphrase } })
      expect(await panel.innerText()).toMatch(/officer edition/)
      // The passphrase is not kept after the act; exporting asks for it again.
      expect(await page.getByTestId('report-officer').getByLabel('Passphrase').inputValue()).toBe('')
      expect(await page.getByTestId('report-export').isDisabled()).toBe(true)
      await fits(page, 'Reports, officer edition previewed')
      await screenshot(page, `first-run-officer-report-${size}`)
      const file = await reports.exportAndDownload(page, { format: 'pdf', passphrase: DANA.passphrase })
      expect(file.fileName).toMatch(/\.pdf$/)
      const text = spawnSync('pdftotext', [file.path, '-'], { encoding: 'utf8' }).stdout.replace(/\s+/g, ' ')
      expect(text).toMatch(/officer edition/i)
      expect(text).toContain('monthly review of actual spend')
      expect(readFileSync(file.path).subarray(0, 5).toString()).toBe('%PDF-')

      // The first run is complete: the guide steps aside.
      await shell.goTo(page, 'Datasets')
      await page.getByTestId('catalog').waitFor()
      expect(await page.getByTestId('first-run').count()).toBe(0)
      const verified = await (async () => {
        await shell.goTo(page, 'Ledger')
        return ledger.verify(page)
      })()
      expect(verified.ok).toBe(true)
    })

    it('the analyst: import with a detected person column, a threshold question, release, ledger, report', async () => {
      const { page } = opened
      await page.setViewportSize(v)

      // The person column is found by its name and preselected, with the reason; the analyst may change it.
      await datasets.pick(page, OCCUPANCY)
      const unit = page.getByLabel('Privacy unit (who is protected)')
      expect(await unit.inputValue()).toBe('person_id')
      expect(await page.getByTestId('import-unit-reason').innerText()).toMatch(
        /^Preselected: the name “person_id” says it identifies a person, so each person \(all of their rows together\) is protected, not each row\./
      )
      // A column with one value per person (the role) may be declared; the import checks every row.
      expect(await page.getByTestId('import-per-person').innerText()).toMatch(/Columns with one value per person/)
      await fits(page, 'Datasets, import preview')
      await screenshot(page, `first-run-analyst-import-${size}`)
      await datasets.startImport(page, { name: 'occupancy', perPerson: ['role'] })
      const out = await datasets.importOutcome(page)
      expect(out.state).toBe('done')
      expect(out.text).toContain('41,175 rows imported as “occupancy”')
      expect(out.text).toContain('unit: person, by “person_id”')
      const detail = await datasets.open(page, 'occupancy')
      expect(await detail.innerText()).toMatch(/role/)

      // The officer's part (in the app): set up, budget.
      const steps = await firstRun.steps(page)
      expect(steps.find((s) => s.next)?.id).toBe('officer')
      expect(steps.find((s) => s.id === 'import')?.done).toBe(true)
      await officers.setUpFirst(page, DANA)
      await ledger.setBudget(page, {
        dataset: 'occupancy',
        epsilon: 10,
        reason: 'fire-safety review, March',
        officer: DANA.name,
        passphrase: DANA.passphrase
      })

      // The question: which rooms had more than 12 people on Tuesday at 14:00 (each person counted once, in one room).
      const rooms = ['A-101', 'A-102', 'A-201', 'B-201', 'C-201']
      await queries.defineThreshold(page, {
        dataset: 'occupancy',
        name: 'Rooms over 12, Tuesday 14:00',
        groupBy: ['room'],
        person: { column: 'person_id', cap: 1, maxGroups: 1 },
        period: TUESDAY_2PM,
        threshold: { constant: 12 },
        groups: { listed: rooms.map((r) => [r]) }
      })
      const price = await queries.price(page, { beta: 0.05, alpha: 1, mechanism: 'tslm' })
      expect(price.epsilon).toMatch(/2\.30259/)
      expect(price.canRelease).toBe(true)
      await fits(page, 'Queries with a price')
      await screenshot(page, `first-run-analyst-price-${size}`)
      // While the release runs, its button says so (the call is held back here so that the wait is seen).
      let go: () => void = () => {}
      const held = new Promise<void>((r) => (go = r))
      await page.route('**/api/call/releases%2Frun', async (route) => {
        await held
        await route.continue()
      })
      const running = queries.release(page)
      await page.getByRole('button', { name: 'Releasing… (charged first, then answered)' }).waitFor()
      go()
      const result = await running
      await page.unroute('**/api/call/releases%2Frun')
      expect(await result.innerText()).toMatch(/A-101/)
      await fits(page, 'Queries with a release')
      await screenshot(page, `first-run-analyst-release-${size}`)

      // The charge is in the ledger, one click away.
      const link = page.getByTestId('release-ledger-link')
      const seq = Number(/(\d+)$/.exec(await link.innerText())![1])
      await link.click()
      const entry = ledger.entry(page, seq)
      await entry.waitFor()
      expect(await entry.innerText()).toMatch(/charge[\s\S]*occupancy/)
      expect(await page.getByTestId('ledger-per-unit').innerText()).toMatch(/Spent per person: ε 2\.30259 of ε 10/)
      await fits(page, 'Ledger after the release')
      await screenshot(page, `first-run-analyst-ledger-${size}`)

      // The report (analyst edition): preview, export, download.
      const panel = await reports.preview(page)
      expect(await panel.innerText()).toMatch(/analyst edition · \d+ ledger entries, 1 releases/)
      // The hash is explained in a sentence (no command line on the screen), and one button keeps the period for later.
      const hash = await page.getByTestId('report-hash').innerText()
      expect(hash).toMatch(
        /^Data SHA-256 [0-9a-f]{64}\. The same scope, period and edition give the same data hash \(this period ends \d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d:\d\d UTC\S*, when you asked for the preview\)\./
      )
      expect(await panel.innerText()).not.toMatch(/--to|--edition|reproduce with/)
      expect(await reports.keepPeriod(page)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
      expect(await page.getByTestId('report-preview-stale').count()).toBe(0)
      expect(await page.getByTestId('report-hash').innerText()).toMatch(/give the same data hash\.$/)
      const file = await reports.exportAndDownload(page, { format: 'csv' })
      expect(file.fileName).toMatch(/\.csv$/)
      expect(readFileSync(file.path, 'utf8')).toMatch(/charge/)
      await fits(page, 'Reports after an export')
      await screenshot(page, `first-run-analyst-report-${size}`)
    })
  })
}
