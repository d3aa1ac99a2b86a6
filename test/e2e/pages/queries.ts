import type { Page } from 'playwright-core'
import { shell } from './shell'

export interface ThresholdQuery {
  dataset: string
  name: string
  groupBy: string[]
  /** Count persons: each at most `cap` times per group, and (person-level datasets) in at most `maxGroups` groups. */
  person?: { column: string; cap: number; maxGroups?: number }
  period?: { column?: string; from: string; to: string }
  threshold:
    | { constant: number }
    | { table: string; column: string }
    | { reference: { factor: number; aggregate: 'max' | 'mean'; bucket: 'hour' | 'day'; from: string; to: string } }
  /**
   * The groups (public): from a public dataset (`on` maps group-by columns whose name differs there), or listed, one
   * group per entry with its values in group-by order. Not given with a threshold table, whose rows are the groups.
   */
  groups?: { from: string; on?: Record<string, string> } | { listed: Array<Array<string | number>> }
}

export interface SearchQuery {
  dataset: string
  name: string
  idColumn: string
  /** The individuals (public): listed ids, or a public dataset's column. */
  individuals: { listed: string[] } | { from: string; column: string }
  scoreFloor?: number
  tLow: number
  tHigh: number
  eps?: number
  budget?: number
}

/** What an analyst does on the Queries screen: define, save, check the price, release. */
export const queries = {
  async defineThreshold(page: Page, q: ThresholdQuery) {
    await shell.goTo(page, 'Queries')
    await page.getByLabel('Dataset', { exact: true }).selectOption({ label: q.dataset })
    await page.getByRole('radio', { name: /Threshold query/ }).check()
    // The builder keeps its form while the dataset stays the same: untick what an earlier question grouped by.
    for (const box of await page.getByTestId('threshold-builder').locator('[data-testid^="groupby-"]').all()) {
      const name = ((await box.getAttribute('data-testid')) ?? '').slice('groupby-'.length)
      if (q.groupBy.includes(name)) await box.check()
      else await box.uncheck()
    }
    if (q.period) {
      await page.getByLabel('Only rows in a period').check()
      await page.getByLabel('From (inclusive)').fill(q.period.from)
      await page.getByLabel('To (exclusive)').fill(q.period.to)
    }
    if (q.person) {
      await page.getByLabel('What is counted').selectOption('persons')
      await page.getByLabel('Person column').selectOption(q.person.column)
      await page.getByLabel('Count each person at most').fill(String(q.person.cap))
      if (q.person.maxGroups !== undefined) await page.getByLabel('Groups one person may add to').fill(String(q.person.maxGroups))
    }
    if (q.groups && 'from' in q.groups) {
      await page.getByTestId('groups-source-dataset').check()
      await page.getByLabel('Group list dataset').selectOption({ label: q.groups.from })
      for (const [g, c] of Object.entries(q.groups.on ?? {})) await page.getByLabel(`Column matching ${g}`, { exact: true }).selectOption(c)
    } else if (q.groups) {
      await page.getByTestId('groups-source-listed').check()
      await page.getByLabel(/^Groups, one per line/).fill(q.groups.listed.map((g) => g.join(', ')).join('\n'))
    }
    if ('constant' in q.threshold) {
      await page.getByLabel('Threshold of each group').selectOption('constant')
      await page.getByLabel('Threshold', { exact: true }).fill(String(q.threshold.constant))
    } else if ('reference' in q.threshold) {
      const r = q.threshold.reference
      await page.getByLabel('Threshold of each group').selectOption('reference')
      await page.getByLabel('Factor', { exact: true }).fill(String(r.factor))
      await page.getByLabel('Of the', { exact: true }).selectOption(r.aggregate)
      await page.getByLabel('Per', { exact: true }).selectOption(r.bucket)
      await page.getByLabel('Reference from').fill(r.from)
      await page.getByLabel('Reference to').fill(r.to)
    } else {
      await page.getByLabel('Threshold of each group').selectOption('column')
      await page.getByLabel('Threshold table').selectOption({ label: q.threshold.table })
      await page.getByLabel('Threshold column').selectOption(q.threshold.column)
    }
    await queries.save(page, q.name)
  },

  /** Save the question defined on screen; fails with the save button's reason when it is disabled. */
  async save(page: Page, name: string) {
    await page.getByLabel('Name of the question').fill(name)
    if (!(await page.getByTestId('query-save').isEnabled()))
      throw new Error(`cannot save "${name}": ${await page.getByTestId('query-save-why').innerText()}`)
    await page.getByTestId('query-save').click()
    await page
      .getByTestId('release-panel')
      .getByRole('heading', { name: new RegExp(name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) })
      .waitFor()
  },

  /** Define an anomaly search and save it. */
  async defineSearch(page: Page, q: SearchQuery) {
    await shell.goTo(page, 'Queries')
    await page.getByLabel('Dataset', { exact: true }).selectOption({ label: q.dataset })
    await page.getByRole('radio', { name: /Anomaly search/ }).check()
    await page.getByLabel('Individuals are named by').selectOption(q.idColumn)
    if ('listed' in q.individuals) {
      await page.getByTestId('individuals-source-listed').check()
      await page.getByLabel(/^Ids, one per line/).fill(q.individuals.listed.join('\n'))
    } else {
      await page.getByTestId('individuals-source-dataset').check()
      await page.getByLabel('List of individuals').selectOption({ label: q.individuals.from })
      await page.getByLabel('Id column of the list').selectOption(q.individuals.column)
    }
    if (q.scoreFloor !== undefined) await page.getByLabel('Score floor L (optional)').fill(String(q.scoreFloor))
    await page.getByLabel('t-low (protected at or below)').fill(String(q.tLow))
    await page.getByLabel('t-high (the anomaly is above)').fill(String(q.tHigh))
    if (q.eps !== undefined) await page.getByLabel('ε per question').fill(String(q.eps))
    if (q.budget !== undefined) await page.getByLabel('Budget ε (total at most)').fill(String(q.budget))
    await queries.save(page, q.name)
  },

  async chooseSaved(page: Page, name: string) {
    await page.getByTestId(`saved-query-${name}`).click()
    await page.getByTestId('release-panel').waitFor()
  },

  /** Set the accuracy and read the price the app shows before anything is spent. */
  async price(page: Page, acc: { beta?: number; alpha?: number; mechanism?: 'tslm' | 'ppwlm' | 'dppwlm' }) {
    if (acc.mechanism) await page.getByTestId(`mechanism-${acc.mechanism}`).check()
    if (acc.beta !== undefined) await page.getByLabel(/^Miss a true violation/).fill(String(acc.beta))
    if (acc.alpha !== undefined) await page.getByLabel(/^Tolerance below the threshold/).fill(String(acc.alpha))
    const preview = page.getByTestId('release-preview')
    await preview.waitFor()
    // Wait until the preview matches the inputs (it is debounced).
    await page.locator('[data-testid="release-preview"][aria-busy="false"]').waitFor()
    return {
      epsilon: (await page.getByTestId('preview-epsilon').innerText()).trim(),
      explained: (await page.getByTestId('preview-explained').innerText()).trim(),
      guarantee: (await page.getByTestId('preview-guarantee').innerText()).trim(),
      budget: (await page.getByTestId('preview-budget').innerText()).trim(),
      denial: (await page.getByTestId('preview-denial').allInnerTexts()).map((t) => t.trim())[0] ?? null,
      canRelease: await page.getByTestId('release-run').isEnabled()
    }
  },

  async release(page: Page) {
    await page.getByTestId('release-run').click()
    await page.getByTestId('release-result').or(page.getByTestId('release-error')).first().waitFor({ timeout: 60_000 })
    if ((await page.getByTestId('release-error').count()) > 0)
      throw new Error(`release failed: ${await page.getByTestId('release-error').innerText()}`)
    return page.getByTestId('release-result')
  }
}
