/**
 * DuckDB spills what does not fit its memory limit (rows of linked files, a release's table of persons among them) to a
 * folder of the service's account only. The attack: another local account on the custodian's host creates the
 * predictable folder <tmp>/qa-duckdb-<pid> first (or waits for DuckDB to create it with the umask's 0755 and its spill
 * files 0644) and reads persons' values from the spill while a release runs.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { closeDuckDb, duckAll } from '../../../src-main/services/sources/duckdb-sync'

const predictable = join(tmpdir(), `qa-duckdb-${process.pid}`)
let madeByAttacker = false

beforeAll(async () => {
  await closeDuckDb()
  if (!existsSync(predictable)) {
    mkdirSync(predictable, { mode: 0o777 })
    madeByAttacker = true
  }
})

afterAll(async () => {
  await closeDuckDb()
  if (madeByAttacker) rmSync(predictable, { recursive: true, force: true })
})

it("DuckDB's spill of persons' values is in a folder only the service's account can enter, removed when DuckDB closes", async () => {
  const dir = String(duckAll(`SELECT current_setting('temp_directory')`).rows[0][0])
  expect(dir).not.toBe(predictable)
  // A table of persons larger than the memory limit: DuckDB evicts its blocks to the spill folder.
  duckAll(`SET memory_limit = '48MB'`)
  duckAll(
    `CREATE TEMP TABLE spilled AS SELECT 'secret-person-' || CAST(k AS VARCHAR) || '-' || md5(CAST(k AS VARCHAR)) AS p FROM range(1500000) t(k)`
  )
  const spill = readdirSync(dir).filter((f) => readFileSync(join(dir, f)).includes('secret-person-'))
  // The attack's premise: persons' values are in the spill.
  expect(spill.length).toBeGreaterThan(0)
  expect(statSync(dir).uid).toBe(process.getuid!())
  expect(statSync(dir).mode & 0o077).toBe(0)
  expect(readdirSync(predictable)).toEqual([])
  await closeDuckDb()
  expect(existsSync(dir)).toBe(false)
})
