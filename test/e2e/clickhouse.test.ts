/**
 * ClickHouse in the app (headless server, Chromium): "Connect to ClickHouse" on the Datasets screen, beside PostgreSQL,
 * against a real ClickHouse (Debian's 18.16, a throwaway 3-shard cluster; the server's password comes from its
 * environment, so testing a connection and linking are the officer's acts): a URL with a password is refused without
 * repeating it, a wrong passphrase is refused before any connection, the picker lists the local and Distributed
 * tables, the privacy unit is chosen among the table's columns with where its per-person stage runs, linking the
 * Distributed one puts it in the catalog with its rows not counted, and a threshold question on it is released and
 * charged like any other.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { CH_USER_PASSWORD, type ChCluster, startChCluster } from '../integration/sources/ch-cluster'
import { ROOT, screenshot } from './app'
import { openAppForFile } from './open-app'
import { datasets } from './pages/datasets'
import { clickhouse } from './pages/clickhouse'
import { ledger } from './pages/ledger'
import { queries } from './pages/queries'

const OFFICER = { name: 'dpo', passphrase: 'clickhouse e2e officer passphrase' }
let cluster: ChCluster
const savedPassword = process.env.CLICKHOUSE_PASSWORD

// Before the app starts: the server inherits CLICKHOUSE_PASSWORD from this process.
beforeAll(async () => {
  cluster = await startChCluster(3)
  await cluster.onEachShard('CREATE DATABASE hr')
  await cluster.onEachShard('CREATE TABLE hr.badges_local (person String, room String, floor Int32) ENGINE = MergeTree ORDER BY person')
  await cluster.admin(`CREATE TABLE hr.badges AS hr.badges_local ENGINE = Distributed(${cluster.name}, hr, badges_local, cityHash64(person))`)
  // Persons p0..p49 each in one room (R1..R4 by person: 13, 13, 12, 12 persons), 40 rows each.
  await cluster.admin(
    `INSERT INTO hr.badges SELECT concat('p', toString(number % 50)), concat('R', toString(1 + (number % 50) % 4)), toInt32(number % 3) FROM system.numbers LIMIT 2000`
  )
  process.env.CLICKHOUSE_PASSWORD = CH_USER_PASSWORD
}, 120_000)
const opened = openAppForFile()
let page: Page
beforeAll(() => {
  page = opened.page
  const r = spawnSync(process.execPath, [join(ROOT, 'out', 'main', 'cli.js'), 'officer', 'init', '--db', opened.app.db, '--name', OFFICER.name], {
    env: { ...process.env, QUIET_ALARM_PASSPHRASE: OFFICER.passphrase },
    encoding: 'utf8'
  })
  if (r.status !== 0) throw new Error(`officer init failed: ${r.stderr}`)
})
afterAll(() => {
  cluster?.destroy()
  if (savedPassword === undefined) delete process.env.CLICKHOUSE_PASSWORD
  else process.env.CLICKHOUSE_PASSWORD = savedPassword
})

describe('Connect to ClickHouse', () => {
  it('refuses a URL with a password without repeating it; a wrong passphrase is refused before any connection', async () => {
    const withPassword = cluster.url('reader').replace('reader@', 'reader:hunter2@')
    const err = await clickhouse.connect(page, withPassword, { passphrase: OFFICER.passphrase })
    expect(err).toMatch(/^The ClickHouse URL contains a password; give the URL without it/)
    expect(err).not.toContain('hunter2')
    expect(await clickhouse.connect(page, cluster.url('reader'), { passphrase: 'not the passphrase at all' })).toBe(
      'The passphrase of officer "dpo" is wrong; nothing was written'
    )
  })

  it('tests the connection, lists the tables (local and Distributed), links the Distributed one by its person; the catalog lists it', async () => {
    expect(await clickhouse.connect(page, cluster.url('reader'), { passphrase: OFFICER.passphrase })).toBe(null)
    expect(await clickhouse.tables(page)).toEqual(['hr.badges (Distributed)', 'hr.badges_local (MergeTree)'])
    // The unit is chosen among the table's columns; where the per-person stage runs follows from the sharding key.
    expect(await clickhouse.choose(page, { table: 'hr.badges' })).toBe(null)
    expect(await clickhouse.units(page)).toEqual([
      'Each row is a different person (row-level)',
      'A person is identified by “person” (person-level)',
      'A person is identified by “room” (person-level)',
      'A person is identified by “floor” (person-level)'
    ])
    expect(await clickhouse.choose(page, { table: 'hr.badges', personColumn: 'room' })).toBe(
      "Not sharded by room: a person's rows may lie on several shards, so their counts are merged first (exact, slower)."
    )
    expect(await clickhouse.choose(page, { table: 'hr.badges', personColumn: 'person' })).toBe(
      "Sharded by person: all of a person's rows are on one shard, so each shard counts its own persons."
    )
    expect(await clickhouse.choose(page, { table: 'hr.badges_local', personColumn: 'person' })).toBe(null)
    // The dataset's name follows the table until one is typed.
    expect(await clickhouse.panel(page).getByTestId('clickhouse-name').inputValue()).toBe('badges_local')
    await screenshot(page, 'datasets-clickhouse-connected')
    const linked = await clickhouse.link(page, { table: 'hr.badges', name: 'badges', personColumn: 'person' })
    expect(linked).toBe('Linked hr.badges as "badges" (3 columns as declared; rows not counted; signed by the officer).')
    // The passphrase is cleared after the act.
    expect(await clickhouse.panel(page).getByTestId('clickhouse-passphrase').inputValue()).toBe('')
    await datasets.catalogRow(page, 'badges').waitFor()
    const row = await datasets.catalogRow(page, 'badges').innerText()
    expect(row).toMatch(/unit: person \(person\)/)
    expect(row).toMatch(/not counted/)
    expect(row).toMatch(/linked ClickHouse/i)
    expect(row).not.toMatch(/2,000|2000/)
  })

  it('a threshold question on the linked Distributed table is priced, released and charged to the ledger', async () => {
    await ledger.setBudget(page, { dataset: 'badges', epsilon: 10, reason: 'badge review', officer: OFFICER.name, passphrase: OFFICER.passphrase })
    expect(await page.getByTestId('budget-done').innerText()).toMatch(/Budget of “badges” set to ε 10/)
    // Rooms with more than 5 persons: every room has 12 or 13, each person counted once in one room.
    await queries.defineThreshold(page, {
      dataset: 'badges',
      name: 'Crowded rooms',
      groupBy: ['room'],
      person: { column: 'person', cap: 1, maxGroups: 1 },
      threshold: { constant: 5 },
      groups: { listed: [['R1'], ['R2'], ['R3'], ['R4']] }
    })
    const price = await queries.price(page, { beta: 0.05, alpha: 1, mechanism: 'tslm' })
    expect(price.canRelease).toBe(true)
    const result = await queries.release(page)
    // Every room is 7 persons over: each is missed with probability at most 0.05 (beta), all four at most 0.05^4.
    expect(await result.innerText()).toMatch(/R[1-4]/)
    await screenshot(page, 'queries-clickhouse-release')
    const link = page.getByTestId('release-ledger-link')
    const seq = Number(/(\d+)$/.exec(await link.innerText())![1])
    await link.click()
    const entry = ledger.entry(page, seq)
    await entry.waitFor()
    expect(await entry.innerText()).toMatch(/charge[\s\S]*badges/)
  })
})
