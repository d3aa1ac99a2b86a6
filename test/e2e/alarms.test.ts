/// <reference lib="dom" />
/**
 * The Alarms screen in the workbench (headless server, Chromium), every task without a terminal: the officer goes from a
 * saved threshold question on the Queries screen to the form and creates an alarm on it (the preview states the least ε and the accounting mode in words before the
 * officer signs), the due periods are evaluated, the timeline shows the planted hour's fired cell with its accuracy
 * sentence, the address follows the open alarm, and the alarm is paused with a reason and resumed. axe checks each
 * state (shell.goTo, screenshot). The set-up (a row-level stream of the last four closed hours, the officer, a budget,
 * the saved question) is made with the built CLI on the app's workspace.
 * Screenshots: test-results/screenshots/alarms-*.png.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ROOT, screenshot } from './app'
import { initOfficerWithCli, openAppForFile } from './open-app'
import { VIEWPORTS, cutSelects, measureOverflow } from './pages/layout'
import { shell } from './pages/shell'

const OFFICER = { name: 'Dana Ortiz', passphrase: 'correct horse battery staple' }
const HOUR = 3_600_000
/** The threshold of every room, and the planted hour's count: 50 over it (5 α), where a miss is far rarer than β. */
const THRESHOLD = 100
const PLANTED = { hour: 2, room: 'R1', rows: 150 }
const QUIET_ROWS = 5

const opened = openAppForFile()
const files = mkdtempSync(join(tmpdir(), 'qa-e2e-alarms-'))
afterAll(() => rmSync(files, { recursive: true, force: true }))

function cli(db: string, args: string[]): string {
  const r = spawnSync(process.execPath, [join(ROOT, 'out', 'main', 'cli.js'), ...args, '--db', db], {
    env: { ...process.env, QUIET_ALARM_PASSPHRASE: OFFICER.passphrase },
    encoding: 'utf8'
  })
  if (r.status !== 0) throw new Error(`${args.join(' ')} failed: ${r.stderr}`)
  return r.stdout
}

describe('Alarms screen', () => {
  it('creates an alarm from a saved question, shows its fired cell, pauses and resumes it', async () => {
    const { page, app } = opened
    // Four closed hours before the current one; rooms R1 and R2 quiet except the planted hour.
    const start = Math.floor(Date.now() / HOUR) * HOUR - 4 * HOUR
    const startIso = new Date(start).toISOString().replace('.000Z', 'Z')
    const lines = ['room,at']
    for (let h = 0; h < 4; h++)
      for (const room of ['R1', 'R2']) {
        const n = h === PLANTED.hour && room === PLANTED.room ? PLANTED.rows : QUIET_ROWS
        const at = new Date(start + h * HOUR + HOUR / 2).toISOString()
        for (let i = 0; i < n; i++) lines.push(`${room},${at}`)
      }
    const stream = join(files, 'visits.csv')
    writeFileSync(stream, lines.join('\n') + '\n')
    const spec = join(files, 'rooms.json')
    writeFileSync(
      spec,
      JSON.stringify({
        dataset: 'visits',
        name: 'Rooms over 100',
        definition: {
          kind: 'threshold',
          groupBy: ['room'],
          count: { kind: 'rows' },
          threshold: { kind: 'constant', value: THRESHOLD },
          groups: [['R1'], ['R2']]
        }
      })
    )
    cli(app.db, ['import', '--file', stream, '--row-level', '--name', 'visits', '--type', 'at=timestamp'])
    initOfficerWithCli(app.db, OFFICER)
    cli(app.db, ['budget', '--dataset', 'visits', '--epsilon', '20', '--reason', 'watching the rooms', '--officer', OFFICER.name])
    cli(app.db, ['query', 'save', '--spec', spec])

    await shell.goTo(page, 'Alarms')
    await page.getByText('No alarm watches a question yet.').waitFor()

    // From the saved question on the Queries screen to the form, by its link.
    await shell.goTo(page, 'Queries')
    await page.getByTestId('saved-query-Rooms over 100').click()
    await page.getByTestId('watch-query-Rooms over 100').click()
    await page.getByRole('heading', { level: 1, name: 'Alarms' }).waitFor()
    expect(await page.evaluate(() => window.location.hash)).toMatch(/^#\/alarms\?watch=\d+$/)

    // The form: the saved question, its timestamp column, the schedule and the accuracy asked; the preview before signing.
    const form = page.getByTestId('alarm-create')
    expect(await form.getByTestId('alarm-create-query').locator('option').allInnerTexts()).toEqual(['Rooms over 100'])
    expect(await form.getByTestId('alarm-create-time-column').inputValue()).toBe('at')
    await form.getByTestId('alarm-create-start').fill(startIso)
    await form.getByTestId('alarm-create-mode').selectOption('when-fires')
    await form.getByTestId('alarm-create-alpha').fill('10')
    await form.getByTestId('alarm-create-fires').fill('3')
    const charge = form.getByTestId('alarm-preview-charge')
    await charge.waitFor()
    expect(await charge.innerText()).toMatch(/^Least ε [\d.]+ per row for each instance/)
    expect(await form.getByTestId('alarm-preview-mode').innerText()).toMatch(/^Accounting \(when-fires\): \S/)
    expect(await form.getByTestId('alarm-create-submit').isDisabled()).toBe(true)
    expect(await form.getByTestId('alarm-create-why').innerText()).toBe('Give the reason (it is recorded).')
    await form.getByTestId('alarm-create-reason').fill('Tell the fire officer of any room over 100')
    await form.getByTestId('alarm-create-passphrase').fill(OFFICER.passphrase)
    await screenshot(page, 'alarms-create-preview')
    await form.getByTestId('alarm-create-submit').click()
    await form.getByTestId('alarm-created').waitFor()
    expect(await form.getByTestId('alarm-create-passphrase').inputValue()).toBe('')

    // The new alarm is listed and its timeline open, named in the address.
    const detail = page.getByTestId('alarm-detail')
    await detail.waitFor()
    expect(await page.evaluate(() => window.location.hash)).toBe('#/alarms?alarm=1')
    await expect.poll(() => page.getByTestId('alarm-status-1').innerText()).toBe('watching')

    // Evaluate the due periods (the app's own clock may have got there first: each period is evaluated once).
    await page.getByTestId('alarms-run-due').click()
    await page.getByTestId('alarms-run-due-done').waitFor()
    const fired = detail.getByTestId(`alarm-cell-fired-${PLANTED.hour}`)
    await fired.waitFor()
    expect(await fired.getAttribute('title')).toMatch(/\S/)
    expect(await detail.locator('td.fired').count()).toBe(1)
    expect(await detail.locator('tbody th[scope=row]').allInnerTexts()).toEqual([`room = ${PLANTED.room}`])
    const fire = detail.getByTestId(`alarm-fire-${PLANTED.hour}`)
    expect(await fire.innerText()).toContain(`room = ${PLANTED.room}`)
    expect(await detail.innerText()).not.toMatch(new RegExp(`\\b${PLANTED.rows}\\b`))
    await screenshot(page, 'alarms-timeline')
    // Nothing sticks out or is cut at either window size (the wide timeline scrolls in its own box).
    for (const v of VIEWPORTS) {
      await page.setViewportSize(v)
      const o = await measureOverflow(page)
      expect(o.scrollWidth, `${v.width}x${v.height}: ${o.culprits.join('; ')}`).toBeLessThanOrEqual(o.viewport)
      expect(await cutSelects(page), `${v.width}x${v.height}`).toEqual([])
    }

    // The address opens an alarm: away and back by the address alone.
    await page.evaluate(() => (window.location.hash = '#/alarms'))
    await detail.waitFor({ state: 'detached' })
    await page.evaluate(() => (window.location.hash = '#/alarms?alarm=1'))
    await detail.getByTestId(`alarm-cell-fired-${PLANTED.hour}`).waitFor()

    // Pause with a reason (shown beside the alarm), then resume.
    await detail.getByTestId('alarm-pause-reason').fill('sensors being replaced')
    await detail.getByTestId('alarm-pause').click()
    await page.getByTestId('alarm-resume').waitFor()
    await expect.poll(() => page.getByTestId('alarm-status-1').innerText()).toMatch(/^paused: .*sensors being replaced/)
    expect(await detail.getByTestId('alarm-detail-status').innerText()).toMatch(/^paused: .*sensors being replaced/)
    await screenshot(page, 'alarms-paused')
    await page.getByTestId('alarm-resume').click()
    await detail.getByTestId('alarm-pause').waitFor()
    await expect.poll(() => page.getByTestId('alarm-status-1').innerText()).toBe('watching')
  })
})
