/**
 * Issue 16 in the app: "Connect to PostgreSQL" on the Datasets screen against a real throwaway PostgreSQL (the server's
 * password comes from its environment): a wrong URL is one sentence, a URL with a password is refused, the table picker
 * lists what the role may read, and linking puts the table in the catalog with PostgreSQL's estimate (not a count).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { closePg } from '../../src-main/services/sources/pg-sync'
import { type PgCluster, startPgCluster } from '../integration/sources/pg-cluster'
import { screenshot } from './app'
import { openAppForFile } from './open-app'
import { datasets } from './pages/datasets'
import { postgres } from './pages/postgres'

const PASSWORD = `e2e-${process.pid}-secret`
let cluster: PgCluster
const savedPassword = process.env.PGPASSWORD

// Before the app starts: the server inherits PGPASSWORD from this process.
beforeAll(async () => {
  cluster = await startPgCluster()
  await cluster.createRole('analyst_ro', PASSWORD)
  await cluster.admin('CREATE SCHEMA hr')
  await cluster.admin(`CREATE TABLE hr.badges AS SELECT 'p' || (i % 50) AS person, 'R' || (1 + i % 4) AS room, i % 3 AS floor FROM generate_series(0, 1999) AS t(i)`)
  await cluster.admin('ANALYZE hr.badges')
  await cluster.admin('CREATE TABLE hr.salaries (person text, amount integer)')
  await cluster.admin('GRANT USAGE ON SCHEMA hr TO analyst_ro')
  await cluster.admin('GRANT SELECT ON hr.badges TO analyst_ro')
  process.env.PGPASSWORD = PASSWORD
}, 120_000)
const opened = openAppForFile()
let page: Page
beforeAll(() => {
  page = opened.page
})
afterAll(async () => {
  await closePg()
  await cluster?.destroy()
  if (savedPassword === undefined) delete process.env.PGPASSWORD
  else process.env.PGPASSWORD = savedPassword
})

describe('Connect to PostgreSQL', () => {
  it('refuses a URL with a password and names a database that does not exist in one sentence', async () => {
    const withPassword = cluster.url('analyst_ro').replace('analyst_ro@', 'analyst_ro:hunter2@')
    const err = await postgres.connect(page, withPassword)
    expect(err).toMatch(/^The PostgreSQL URL contains a password; give the URL without it/)
    expect(err).not.toContain('hunter2')
    expect(await postgres.connect(page, cluster.url('analyst_ro').replace(/\/qa$/, '/nodb'))).toBe('The database named in this connection does not exist')
  })

  it('tests the connection, lists the readable tables, links one; the catalog lists it', async () => {
    expect(await postgres.connect(page, cluster.url('analyst_ro'))).toBe(null)
    expect(await postgres.tables(page)).toEqual(['hr.badges (table)'])
    await screenshot(page, 'datasets-postgres-connected')
    const linked = await postgres.link(page, { table: 'hr.badges', name: 'badges', personColumn: 'person' })
    expect(linked).toBe('Linked hr.badges as "badges" (3 columns; about 2,000 rows by PostgreSQL\'s estimate).')
    await datasets.catalogRow(page, 'badges').waitFor()
    const row = await datasets.catalogRow(page, 'badges').innerText()
    expect(row).toMatch(/unit: person \(person\)/)
    expect(row).toMatch(/about 2,000\s+PostgreSQL's estimate/)
  })
})
