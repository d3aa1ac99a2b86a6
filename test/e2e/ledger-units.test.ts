/// <reference lib="dom" />
/**
 * Privacy units in the UI: the import form declares a person column, the catalog and the dataset detail show
 * the unit, and the Ledger screen's headline is the spend per person against the one budget per person, with the
 * notions beneath it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { screenshot } from './app'
import { initOfficerWithCli, openAppForFile } from './open-app'
import { datasets } from './pages/datasets'
import { ledger } from './pages/ledger'
import { shell } from './pages/shell'

const opened = openAppForFile()
let page: Page
let dir: string
let file: string

/** The workspace's privacy officer: budgets are signed with a registered officer's key. */
const OFFICER = { name: 'dpo', passphrase: 'units test officer passphrase' }

beforeAll(() => {
  page = opened.page
  initOfficerWithCli(opened.app.db, OFFICER)
  dir = mkdtempSync(join(tmpdir(), 'qa-e2e-units-'))
  file = join(dir, 'visits.csv')
  // p1 visits two rooms (room is not per person); team is one value per person.
  writeFileSync(file, ['badge,team,room', 'p1,red,R1', 'p1,red,R2', 'p2,blue,R1', 'p3,red,R3'].join('\n') + '\n')
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('privacy units on screen', () => {
  it('imports with a person column chosen in the form; the catalog shows the unit', async () => {
    await datasets.pick(page, file)
    await page.getByLabel('Privacy unit (who is protected)').selectOption('badge')
    await datasets.startImport(page, { name: 'visits' })
    const out = await datasets.importOutcome(page)
    expect(out.state).toBe('done')
    const unit = page.getByTestId('dataset-unit-visits')
    await unit.waitFor()
    expect(await unit.innerText()).toBe('unit: person (badge)')
    await screenshot(page, 'datasets-person-unit')
  })

  it('the Ledger screen leads with the spend per person against the budget per person, the notions beneath', async () => {
    await ledger.setBudget(page, {
      dataset: 'visits',
      epsilon: 7,
      reason: 'budget per person for the visits review',
      officer: OFFICER.name,
      passphrase: OFFICER.passphrase
    })
    await shell.goTo(page, 'Ledger')
    const headline = page.getByTestId('ledger-per-unit')
    await headline.waitFor()
    const text = await headline.innerText()
    expect(text).toContain('Spent per person: ε 0 of ε 7, ε 7 left')
    expect(text).toContain('the sum over the notions below')
    expect(await page.getByTestId('ledger-spend').innerText()).toContain('person-level (person column "badge")')
    expect(await page.getByTestId('chart-notions').innerText()).toContain('Breakdown by privacy notion')
    // The budget change reads as the budget per person.
    expect(await page.getByTestId('budget-changes').innerText()).toContain('budget per person')
    expect(await page.getByTestId('budget-changes').innerText()).not.toMatch(/budget per unit|notions summed/)
    await screenshot(page, 'ledger-per-person')
  })
})
