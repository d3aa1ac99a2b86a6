/// <reference lib="dom" />
/**
 * Every screen fits a 1024x700 and a 1440x900 window with no sideways scrolling, with data on it (datasets, a
 * release, a sweep, the ledger, a report); new results are scrolled into view and focused; links go to the entry they name.
 */
import { spawnSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { ROOT, SCREENSHOTS, screenshot } from './app'
import { initOfficerWithCli, openAppForFile } from './open-app'
import { datasets } from './pages/datasets'
import { experiments } from './pages/experiments'
import { ledger } from './pages/ledger'
import { chooseOfficer } from './pages/officer-field'
import { overflowsAtBothSizes, VIEWPORTS } from './pages/layout'
import { queries } from './pages/queries'
import { shell } from './pages/shell'

const opened = openAppForFile()
let page: Page
const OFFICER = { name: 'dpo', passphrase: 'correct horse battery staple' }
const OCCUPANCY = join(ROOT, 'resources', 'sample', 'occupancy.csv')
const CAPACITIES = join(ROOT, 'resources', 'sample', 'capacities.csv')

beforeAll(() => {
  page = opened.page
  initOfficerWithCli(opened.app.db, OFFICER)
})

/** Is the element's top inside the window, and does it (or something inside it) have the focus? Waits up to 3 s for both. */
async function inViewAndFocused(page: Page, testId: string) {
  const probe = (id: string) => {
    const el = document.querySelector(`[data-testid="${id}"]`)
    if (!el) return { inView: false, focused: false, top: null as number | null }
    const r = el.getBoundingClientRect()
    return {
      inView: r.top >= -1 && r.top < window.innerHeight,
      focused: el === document.activeElement || el.contains(document.activeElement),
      top: r.top
    }
  }
  await page
    .waitForFunction(
      (id) => {
        const el = document.querySelector(`[data-testid="${id}"]`)
        const top = el?.getBoundingClientRect().top ?? -Infinity
        return !!el && top >= -1 && top < window.innerHeight && (el === document.activeElement || el.contains(document.activeElement))
      },
      testId,
      { timeout: 3000 }
    )
    .catch(() => undefined)
  return page.evaluate(probe, testId)
}

const problems: string[] = []

describe('layout at 1024x700 and 1440x900', () => {
  it('a workspace with data: imports, a budget, a release, a sweep', async () => {
    await page.setViewportSize(VIEWPORTS[0])
    // Before a file is picked the hint says what comes next, not a second "No file chosen" under the browser's own.
    await shell.goTo(page, 'Datasets')
    expect(await page.getByTestId('import-chosen').innerText()).toMatch(/^Pick a file: its first rows and their types are shown/)
    await datasets.importFile(page, OCCUPANCY, 'occupancy with a rather long name for a dataset', { unit: '' }) // row-level: this story counts rows
    await datasets.importFile(page, CAPACITIES, 'capacities')
    // The finished import leaves its result, not the old preview and its Import button; the file field says what was chosen.
    expect(await page.getByTestId('import-preview').count()).toBe(0)
    expect(await page.getByTestId('import-chosen').innerText()).toBe('Chosen: capacities.csv')
    problems.push(...(await overflowsAtBothSizes(page, 'Datasets after imports')))
    // Rename and Delete stay inside the window at 1024 px.
    for (const name of ['Rename capacities', 'Delete capacities']) {
      const box = (await page.getByRole('button', { name, exact: true }).boundingBox())!
      expect(box.x + box.width, name).toBeLessThanOrEqual(VIEWPORTS[0].width)
    }
    await datasets.open(page, 'capacities')
    // The opened dataset is scrolled to and focused.
    expect(await inViewAndFocused(page, 'dataset-detail')).toMatchObject({ inView: true, focused: true })
    problems.push(...(await overflowsAtBothSizes(page, 'Datasets with one open')))
    await ledger.setBudget(page, {
      dataset: 'occupancy with a rather long name for a dataset',
      epsilon: 3,
      reason: 'layout check',
      officer: OFFICER.name,
      passphrase: OFFICER.passphrase
    })
    problems.push(...(await overflowsAtBothSizes(page, 'Ledger after a budget')))
    const rooms = ['A-101', 'A-102', 'A-201', 'A-202', 'B-101', 'B-102']
    await queries.defineThreshold(page, {
      dataset: 'occupancy with a rather long name for a dataset',
      name: 'rooms over 12 on Tuesday',
      groupBy: ['room'],
      period: { from: '2024-03-12', to: '2024-03-13' },
      threshold: { constant: 12 },
      groups: { listed: rooms.map((r) => [r]) }
    })
    await queries.price(page, { beta: 0.05, alpha: 1, mechanism: 'tslm' })
    problems.push(...(await overflowsAtBothSizes(page, 'Queries with a price')))
    await queries.release(page)
    expect(await inViewAndFocused(page, 'release-result')).toMatchObject({ inView: true, focused: true })
    problems.push(...(await overflowsAtBothSizes(page, 'Queries with a release')))
    // Its ledger link opens that entry, scrolled to and focused (it was the top of the page).
    const link = page.getByTestId('release-ledger-link')
    const seq = Number(/(\d+)$/.exec(await link.innerText())![1])
    await link.click()
    await page.getByTestId(`ledger-entry-${seq}`).waitFor()
    await page.waitForFunction((id) => document.activeElement?.getAttribute('data-testid') === id, `ledger-entry-${seq}`)
    expect(await inViewAndFocused(page, `ledger-entry-${seq}`)).toMatchObject({ inView: true, focused: true })
    await shell.goTo(page, 'Releases')
    problems.push(...(await overflowsAtBothSizes(page, 'Releases')))
    await shell.goTo(page, 'Ledger')
    problems.push(...(await overflowsAtBothSizes(page, 'Ledger after a release')))
    // The entries' descriptions get room to read at 1024 px (a Who column and a one-line date would squeeze them to
    // about 106 px, ten lines a row).
    await page.setViewportSize(VIEWPORTS[0])
    const what = (await page.locator('[data-testid^="ledger-entry-"] td.wrap').first().boundingBox())!
    expect(what.width).toBeGreaterThanOrEqual(160)
    await experiments.define(page, { preset: 'mide-fig8', trials: 400 })
    // Preset names say their figure once ("MIDE Fig. 8 — MIDE Fig. 8: FNR, ..." before).
    const presetNames = await page.getByLabel('Start from a paper figure').locator('option').allInnerTexts()
    expect(presetNames.length).toBeGreaterThan(3)
    expect(presetNames.filter((n) => /^(.+?) — \1/.test(n))).toEqual([])
    problems.push(...(await overflowsAtBothSizes(page, 'Experiments builder')))
    await experiments.start(page)
    await page.getByTestId('chart-fnr').waitFor({ timeout: 60_000 })
    await experiments.cancel(page)
    await experiments.waitStatus(page, 'cancelled')
    problems.push(...(await overflowsAtBothSizes(page, 'Experiments after a cancel')))
    await shell.goTo(page, 'Reports')
    await page.getByRole('button', { name: 'Preview' }).click()
    await page.getByTestId('report-preview-panel').or(page.getByTestId('report-error')).first().waitFor({ timeout: 60_000 })
    problems.push(...(await overflowsAtBothSizes(page, 'Reports with a preview')))
    await shell.goTo(page, 'Settings')
    problems.push(...(await overflowsAtBothSizes(page, 'Settings')))
    for (const v of VIEWPORTS) {
      await page.setViewportSize(v)
      await shell.goTo(page, 'Experiments')
      await screenshot(page, `layout-experiments-${v.width}`)
      await shell.goTo(page, 'Datasets')
      await screenshot(page, `layout-datasets-${v.width}`)
    }
    expect(problems).toEqual([])
  })

  it('the first Tab stop is a "Skip to content" link that moves the focus to the screen', async () => {
    await shell.goTo(page, 'Ledger')
    await page.reload()
    await page.getByRole('heading', { level: 1, name: 'Ledger' }).waitFor()
    await page.keyboard.press('Tab')
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content')
    await page.keyboard.press('Enter')
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('content')
    expect(await page.getByRole('heading', { level: 1, name: 'Ledger' }).isVisible()).toBe(true)
  })
})

describe('denials are actionable', () => {
  it('a denial names the nearest alpha (and beta) that fits what is left; one click uses it and the release fits', async () => {
    const rooms = ['A-101', 'A-102', 'A-201', 'A-202', 'B-101', 'B-102']
    await queries.defineThreshold(page, {
      dataset: 'occupancy with a rather long name for a dataset',
      name: 'rooms over 12 on Wednesday',
      groupBy: ['room'],
      period: { from: '2024-03-13', to: '2024-03-14' },
      threshold: { constant: 12 },
      groups: { listed: rooms.map((r) => [r]) }
    })
    // 3 - 2.302585093 = 0.697414907 left on these rooms; at beta 0.05, ln(10)/alpha fits from alpha 3.3016: 3.4 (3.3 costs 0.69775).
    const p = await queries.price(page, { beta: 0.05, alpha: 1, mechanism: 'tslm' })
    expect(p.canRelease).toBe(false)
    const fit = page.getByTestId('preview-fit')
    expect(await fit.innerText()).toMatch(
      /^What fits: alpha >= 3\.4 fits the 0\.697414 left \(costs 0\.677231\) at beta 0\.05; or beta >= 0\.25 at alpha 1 \(costs 0\.693148\)\./
    )
    // The trade-off before spending: the charge over alpha, what is left as a line, the choice marked.
    expect(await page.getByTestId('tradeoff-chart').getAttribute('data-points')).toBe('8')
    expect(await page.getByTestId('tradeoff-chart').locator('canvas').getAttribute('aria-label')).toBe(
      'Charge over alpha from 0.125 to 16; fits what is left from alpha 4'
    )
    await screenshot(page, 'queries-denied-fit')
    await page.getByTestId('release-preview').screenshot({ path: join(SCREENSHOTS, 'queries-tradeoff.png') })
    await fit.getByTestId('use-fit-alpha').click()
    expect(await page.getByLabel(/^Tolerance below the threshold/).inputValue()).toBe('3.4')
    await page.locator('[data-testid="release-preview"][aria-busy="false"]').waitFor()
    await page.getByTestId('release-run').and(page.locator(':enabled')).waitFor()
    expect(await page.getByTestId('preview-denial').count()).toBe(0)
  })
})

describe('what a new user tripped on', () => {
  it('the Import button says why it is disabled; a person-like column is preselected as the privacy unit, with the reason', async () => {
    await datasets.pick(page, OCCUPANCY)
    expect(await page.getByTestId('import-chosen').innerText()).toBe('Chosen: occupancy.csv')
    await page.getByLabel('Dataset name').fill('')
    expect(await page.getByTestId('import-start').isDisabled()).toBe(true)
    expect(await page.getByTestId('import-why').innerText()).toBe('Give the dataset a name to import it.')
    expect(await page.getByLabel('Privacy unit (who is protected)').inputValue()).toBe('person_id')
    expect(await page.getByTestId('import-unit-reason').innerText()).toMatch(/^Preselected: the name “person_id” says it identifies a person/)
    // Changed to row-level, the form still says what to consider.
    await page.getByLabel('Privacy unit (who is protected)').selectOption('')
    expect(await page.getByTestId('import-unit-hint').innerText()).toMatch(/^“person_id” looks like it names a person/)
  })

  it('the person column defaults to the one named like a person; PPWLM says why it may be charged more', async () => {
    await shell.goTo(page, 'Queries')
    await page.getByLabel('Dataset', { exact: true }).selectOption({ label: 'occupancy with a rather long name for a dataset' })
    await page.getByRole('radio', { name: /Threshold query/ }).check()
    await page.getByLabel('What is counted').selectOption('persons')
    expect(await page.getByLabel('Person column').inputValue()).toBe('person_id')
    await queries.chooseSaved(page, 'rooms over 12 on Tuesday')
    await page.getByTestId('mechanism-ppwlm').check()
    expect(await page.getByTestId('mechanism-why-price').innerText()).toMatch(
      /worst case[\s\S]*ln\(m\/\(2β\)\)\/α[\s\S]*usually less than TSLM’s charge/
    )
  })
})

describe('defaults, counts and plain names', () => {
  const dataset = 'occupancy with a rather long name for a dataset'

  it('before saving, the threshold builder says how many groups the definition asks about (public inputs only)', async () => {
    await shell.goTo(page, 'Queries')
    await page.getByLabel('Dataset', { exact: true }).selectOption({ label: dataset })
    await page.getByRole('radio', { name: /Threshold query/ }).check()
    for (const box of await page.getByTestId('threshold-builder').locator('[data-testid^="groupby-"]').all()) await box.uncheck()
    expect(await page.getByTestId('group-count').count()).toBe(0)
    await page.getByTestId('groupby-room').check()
    await page.getByTestId('groups-source-listed').check()
    await page.getByLabel(/^Groups, one per line/).fill('A-101\nA-102\nB-101')
    expect(await page.getByTestId('group-count').innerText()).toBe(
      'This question asks about 3 groups (predicates), listed in the definition. Each is one yes/no answer.'
    )
    // Still shown while the rest of the question is incomplete (no threshold yet): it depends on the groups only.
    expect(await page.getByTestId('query-save-why').innerText()).not.toBe('')
  })

  it('the anomaly search names individuals by a column named like a person or an id, not by row number', async () => {
    await shell.goTo(page, 'Queries')
    await page.getByLabel('Dataset', { exact: true }).selectOption({ label: dataset })
    await page.getByRole('radio', { name: /Anomaly search/ }).check()
    expect(await page.getByTestId('search-id-column').inputValue()).toBe('person_id')
  })

  it('releases and the ledger name mechanisms and notions in words, with singular and plural right', async () => {
    await shell.goTo(page, 'Releases')
    const table = page.getByTestId('screen-releases')
    await table.getByText('TSLM (one shot)').first().waitFor()
    expect(await table.innerText()).not.toMatch(/\btslm\b/)
    await shell.goTo(page, 'Ledger')
    await page.getByTestId('ledger-spend').getByLabel('Dataset').selectOption({ label: dataset })
    const notions = await page.locator('.notion-list').innerText()
    expect(notions).toContain('ε-DP')
    expect(notions).not.toMatch(/eps-DP|\(eps,k\)|\b1 releases\b/)
    expect(notions).toMatch(/predicate-wise DP: ε [\d.]+ spent.*· \d+ releases?/)
    // The catalog names the notion in words too, without doubled brackets ("ε 3 ((eps,k)-sensitive privacy)" before).
    await shell.goTo(page, 'Datasets')
    expect(await page.getByTestId('catalog').getByTestId('spend-notion-predicate-wise-dp').first().innerText()).toMatch(
      /^ε [\d.]+ under predicate-wise DP$/
    )
  })
})

describe('officer guard rails', () => {
  it('a mistyped head hash is a format error, not a broken ledger; the service says so too', async () => {
    await shell.goTo(page, 'Ledger')
    await page.getByTestId('verify-expect-head').fill('deadbeef')
    expect(await page.getByTestId('verify-head-format').innerText()).toBe(
      'A head hash has 16 to 64 hexadecimal digits (this has 8): copy it as ledger verify printed it. Nothing was verified.'
    )
    expect(await page.getByTestId('verify-start').isDisabled()).toBe(true)
    await page.getByTestId('verify-expect-head').fill('not-a-hash')
    expect(await page.getByTestId('verify-head-format').innerText()).toMatch(/^A head hash has only the digits 0-9 and the letters a-f\./)
    const r = await page.evaluate(async () => {
      const token = sessionStorage.getItem('quiet-alarm-token') ?? ''
      const res = await fetch('/api/call/ledger%2Fverify', {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}` },
        body: JSON.stringify({ req: { expectHead: 'deadbeef' } })
      })
      return (await res.json()) as { ok: boolean; error?: { message: string } }
    })
    expect(r.ok).toBe(false)
    expect(r.error?.message).toMatch(/^The head hash must be at least 16 hexadecimal digits/)
    // A well-formed head that is not this ledger's is reported as that, not as a broken entry.
    await page.getByTestId('verify-expect-head').fill('0123456789abcdef')
    // While the call waits, the button says so (the call is held back here so that the wait is seen).
    let release: () => void = () => {}
    const held = new Promise<void>((r) => (release = r))
    await page.route('**/api/call/ledger%2Fverify', async (route) => {
      await held
      await route.continue()
    })
    await page.getByTestId('verify-start').click()
    await page.getByRole('button', { name: 'Verifying…' }).waitFor()
    expect(await page.getByTestId('verify-start').isDisabled()).toBe(true)
    release()
    const verdict = page.getByTestId('verify-result')
    await verdict.waitFor()
    await page.unroute('**/api/call/ledger%2Fverify')
    expect(await page.getByTestId('verify-start').innerText()).toBe('Verify')
    expect(await verdict.innerText()).toMatch(/^✘ Head not found — The head 0123456789abcdef… is not in this ledger: check that you copied it/)
    expect(await verdict.innerText()).not.toMatch(/Broken|FAILED|First broken entry/)
    await page.getByTestId('verify-expect-head').fill('')
    expect(await page.getByTestId('verify-start').isEnabled()).toBe(true)
  })

  it('a budget below the spend is refused (the button says why, the service refuses it); a freeze with a reason is taken', async () => {
    const dataset = 'occupancy with a rather long name for a dataset'
    await shell.goTo(page, 'Ledger')
    const form = page.getByTestId('budget-form')
    await form.getByLabel('Dataset').selectOption({ label: dataset })
    // Every disabled state says why.
    expect(await form.getByTestId('budget-why').innerText()).toBe('Give the budget ε (a number, 0 or more).')
    await form.getByLabel('Budget ε').fill('-1')
    expect(await form.getByTestId('budget-why').innerText()).toBe('The budget ε must be a number, 0 or more (got “-1”).')
    await form.getByLabel('Budget ε').fill('1')
    expect(await form.getByTestId('budget-why').innerText()).toMatch(
      /^ε 1 is below what is already spent \(ε 2\.30259\), and a spend cannot be undone/
    )
    expect(await form.getByTestId('budget-set').isDisabled()).toBe(true)
    await form.getByLabel('Budget ε').fill('4')
    expect(await form.getByTestId('budget-why').innerText()).toBe('Give a reason: it is recorded in the ledger.')
    await screenshot(page, 'ledger-budget-guard')
    // The service refuses it whatever the page does.
    const refused = await page.evaluate(async (name) => {
      const token = sessionStorage.getItem('quiet-alarm-token') ?? ''
      const call = async (method: string, req: unknown) =>
        (await (
          await fetch(`/api/call/${encodeURIComponent(method)}`, {
            method: 'POST',
            headers: { Authorization: `Bearer ${token}` },
            body: JSON.stringify({ req })
          })
        ).json()) as {
          ok: boolean
          value?: unknown
          error?: { message: string }
        }
      const list = (await call('datasets/list', {})).value as Array<{ id: number; name: string }>
      return call('budgets/set', {
        datasetId: list.find((d) => d.name === name)!.id,
        epsilon: '1',
        reason: 'lower it',
        officer: 'dpo',
        passphrase: 'correct horse battery staple'
      })
    }, dataset)
    expect(refused.ok).toBe(false)
    expect(refused.error?.message).toMatch(/^A budget of epsilon 1 is below what ".*" has already spent per row \(epsilon 2\.30259\)/)
    // Freeze: the budget becomes the spend, with the reason.
    await form.getByTestId('budget-freeze').getByRole('checkbox').check()
    expect(await form.getByLabel('Budget ε').inputValue()).toBe('2.302585093')
    expect(await form.getByTestId('budget-why').innerText()).toBe('Give the reason for the freeze: it is recorded in the ledger.')
    await form.getByLabel('Reason (recorded)').fill('incident under review')
    // The registered officers' names are not cut off in their select at 1024 px (it was a narrow field: "Privacy Officer (de").
    await page.setViewportSize(VIEWPORTS[0])
    const officer = form.getByLabel('Officer', { exact: true })
    await chooseOfficer(officer, OFFICER.name)
    const widestFits = await officer.evaluate((el) => {
      const select = el as HTMLSelectElement
      const probe = document.createElement('span')
      probe.style.font = getComputedStyle(select).font
      probe.style.whiteSpace = 'nowrap'
      probe.style.position = 'absolute'
      document.body.append(probe)
      const widths = Array.from(select.options, (o) => {
        probe.textContent = o.text
        return probe.getBoundingClientRect().width
      })
      probe.remove()
      return Math.max(...widths) <= select.clientWidth
    })
    expect(widestFits).toBe(true)
    await form.getByLabel('Passphrase').fill(OFFICER.passphrase)
    await form.getByRole('button', { name: 'Freeze' }).click()
    await page.getByTestId('budget-done').waitFor()
    expect(await page.getByTestId('ledger-per-unit').innerText()).toMatch(/Spent per row: ε 2\.30259 of ε 2\.30259, ε 0 left/)
  })
})

describe('reports', () => {
  it('the exported PDF is the previewed report (same data SHA-256), under 8 pages, experiments summarised without pending rows', async () => {
    await shell.goTo(page, 'Reports')
    await page.getByRole('button', { name: 'Preview' }).click()
    const panel = page.getByTestId('report-preview-panel')
    await panel.waitFor({ timeout: 60_000 })
    const previewSha = /Data SHA-256 ([0-9a-f]{64})/.exec(await panel.innerText())![1]
    // A new ledger entry after the preview does not change what is exported: the export keeps the preview's end of period.
    await page.waitForTimeout(1100)
    await panel.getByLabel('Export as').selectOption('pdf')
    await panel.getByRole('button', { name: 'Export' }).click()
    await panel.getByTestId('report-download').waitFor({ timeout: 120_000 })
    expect(await panel.getByTestId('report-export-data-sha').innerText()).toBe(previewSha)
    const [download] = await Promise.all([page.waitForEvent('download'), panel.getByTestId('report-download').click()])
    const pdf = join(opened.app.dir, 'report.pdf')
    writeFileSync(pdf, readFileSync((await download.path())!))
    const info = spawnSync('pdfinfo', [pdf], { encoding: 'utf8' })
    const pages = Number(/Pages:\s+(\d+)/.exec(info.stdout)![1])
    expect(pages).toBeGreaterThan(1)
    expect(pages).toBeLessThan(8)
    const text = spawnSync('pdftotext', [pdf, '-'], { encoding: 'utf8' }).stdout.replace(/\s+/g, ' ')
    // The cancelled sweep: summarised (headline cells), its pending cells left out, the full table pointed to.
    expect(text).toMatch(/Headline cells/)
    expect(text).toMatch(/cells of this cancelled run have no result and are left out/)
    expect(text).not.toMatch(/\bpending\b/)
    expect(text).toContain(previewSha.slice(0, 16))
  })
})
