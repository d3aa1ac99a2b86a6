/**
 * Linked PostgreSQL tables in the app (headless server, Chromium): "Connect to PostgreSQL" on the Datasets screen against a real
 * throwaway PostgreSQL (the server's password comes from its environment, so testing a connection and linking are the
 * officer's acts, with the passphrase): a wrong URL is one sentence, a URL with a password is refused, the table picker
 * lists what the role may read, and linking puts the table in the catalog with its rows not counted. "Link a file (query
 * in place)": a Parquet file uploaded once, kept beside the workspace, linked, and listed in the catalog.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { closePg } from '../../src-main/services/sources/pg-sync'
import { duckAll, duckString } from '../../src-main/services/sources/duckdb-sync'
import { type PgCluster, startPgCluster } from '../integration/sources/pg-cluster'
import { screenshot } from './app'
import { initOfficerWithCli, openAppForFile } from './open-app'
import { datasets } from './pages/datasets'
import { linkFile } from './pages/link-file'
import { postgres } from './pages/postgres'

const OFFICER = { name: 'dpo', passphrase: 'postgres e2e officer passphrase' }

const PASSWORD = `e2e-${process.pid}-secret`
let cluster: PgCluster
const savedPassword = process.env.PGPASSWORD

// Before the app starts: the server inherits PGPASSWORD from this process.
beforeAll(async () => {
  cluster = await startPgCluster()
  await cluster.createRole('analyst_ro', PASSWORD)
  await cluster.admin('CREATE SCHEMA hr')
  await cluster.admin(
    `CREATE TABLE hr.badges AS SELECT 'p' || (i % 50) AS person, 'R' || (1 + i % 4) AS room, i % 3 AS floor FROM generate_series(0, 1999) AS t(i)`
  )
  await cluster.admin('ANALYZE hr.badges')
  await cluster.admin('CREATE TABLE hr.salaries (person text, amount integer)')
  await cluster.admin('GRANT USAGE ON SCHEMA hr TO analyst_ro')
  await cluster.admin('GRANT SELECT ON hr.badges TO analyst_ro')
  process.env.PGPASSWORD = PASSWORD
}, 120_000)
const opened = openAppForFile()
let page: Page
const files = mkdtempSync(join(tmpdir(), 'qa-e2e-link-'))
beforeAll(() => {
  page = opened.page
  initOfficerWithCli(opened.app.db, OFFICER)
})
afterAll(async () => {
  rmSync(files, { recursive: true, force: true })
  await closePg()
  await cluster?.destroy()
  if (savedPassword === undefined) delete process.env.PGPASSWORD
  else process.env.PGPASSWORD = savedPassword
})

describe('Connect to PostgreSQL', () => {
  it('refuses a URL with a password and names a database that does not exist in one sentence', async () => {
    const withPassword = cluster.url('analyst_ro').replace('analyst_ro@', 'analyst_ro:hunter2@')
    const err = await postgres.connect(page, withPassword, { passphrase: OFFICER.passphrase })
    expect(err).toMatch(/^The PostgreSQL URL contains a password; give the URL without it/)
    expect(err).not.toContain('hunter2')
    expect(await postgres.connect(page, cluster.url('analyst_ro').replace(/\/qa$/, '/nodb'), { passphrase: OFFICER.passphrase })).toBe(
      'The database named in this connection does not exist'
    )
  })

  it("testing a connection is the officer's act: a wrong passphrase is refused before any connection", async () => {
    expect(await postgres.connect(page, cluster.url('analyst_ro'), { passphrase: 'not the passphrase at all' })).toBe(
      'The passphrase of officer "dpo" is wrong; nothing was written'
    )
  })

  it('tests the connection, lists the readable tables, links one; the catalog lists it', async () => {
    expect(await postgres.connect(page, cluster.url('analyst_ro'), { passphrase: OFFICER.passphrase })).toBe(null)
    expect(await postgres.tables(page)).toEqual(['hr.badges (table)'])
    await screenshot(page, 'datasets-postgres-connected')
    const linked = await postgres.link(page, { table: 'hr.badges', name: 'badges', personColumn: 'person' })
    expect(linked).toBe('Linked hr.badges as "badges" (3 columns as declared; rows not counted; signed by the officer).')
    // The passphrase is cleared after the act.
    expect(await postgres.panel(page).getByTestId('postgres-passphrase').inputValue()).toBe('')
    await datasets.catalogRow(page, 'badges').waitFor()
    const row = await datasets.catalogRow(page, 'badges').innerText()
    expect(row).toMatch(/unit: person \(person\)/)
    expect(row).toMatch(/not counted/)
    expect(row).not.toMatch(/2,000|2000/)
  })
})

describe('Link a file (query in place)', () => {
  it('uploads a Parquet file once, keeps it beside the workspace and links it; the catalog lists it as a linked file', async () => {
    const pq = join(files, 'visits.parquet')
    duckAll(
      `COPY (SELECT 'p' || (i % 40) AS person, 'R' || (1 + i % 5) AS room, i % 3 AS floor FROM range(0, 1500) AS t(i)) TO ${duckString(pq)} (FORMAT parquet)`
    )
    // The officer was registered outside the app (CLI) after the page loaded: the link form reads the officers when it opens.
    const linked = await linkFile.link(page, pq, { name: 'visits', personColumn: 'person', passphrase: OFFICER.passphrase })
    expect(linked).toBe('Linked visits.parquet as "visits" (1,500 rows × 3 columns, queried in place; signed by the officer).')
    await screenshot(page, 'datasets-file-linked')
    await datasets.catalogRow(page, 'visits').waitFor()
    expect(await datasets.catalogRow(page, 'visits').innerText()).toMatch(/unit: person \(person\)/)
    // Kept beside the workspace (the server's upload folder is temporary).
    const kept = `${opened.app.db}.linked`
    expect(existsSync(kept)).toBe(true)
    expect(readdirSync(kept).flatMap((d) => readdirSync(join(kept, d)))).toEqual(['visits.parquet'])
    // A file that is neither Parquet nor CSV: one sentence, nothing kept.
    const txt = join(files, 'notes.txt')
    duckAll(`COPY (SELECT 1 AS x) TO ${duckString(txt)} (FORMAT csv)`)
    expect(await linkFile.link(page, txt, { name: 'notes', passphrase: OFFICER.passphrase })).toBe(
      'A linked file must be a Parquet file (.parquet) or a CSV file with a header row (.csv)'
    )
    expect(readdirSync(kept)).toHaveLength(1)
  })
})
