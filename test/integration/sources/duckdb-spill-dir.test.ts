/**
 * DuckDB spills what does not fit its memory limit (rows of linked files, a release's table of persons among them) to a
 * folder of the service's account only. The attack: another local account on the custodian's host creates the
 * predictable folder <tmp>/qa-duckdb-<pid> first (or waits for DuckDB to create it with the umask's 0755 and its spill
 * files 0644) and reads persons' values from the spill while a release runs. And each DuckDB instance of the process
 * (every thread that loads duckdb-sync.ts starts one: the services thread, the release runner's thread) spills to a
 * folder of its own: DuckDB names its spill files by block size only, so two instances spilling into one folder write
 * each other's blocks (a crash after a release's charge, or another instance's rows read as its own).
 */
import { afterAll, beforeAll, expect, it } from 'vitest'
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { Worker } from 'node:worker_threads'
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

/** The spill folder of the DuckDB a second thread of this process starts (as the release runner's thread does). */
function otherThreadSpillDir(): Promise<string> {
  const module = resolve(__dirname, '../../../src-main/services/sources/duckdb-sync.ts')
  const code =
    `require('tsx/cjs/api').register()\n` +
    `const { parentPort } = require('node:worker_threads')\n` +
    `const { duckAll, closeDuckDb } = require(${JSON.stringify(module)})\n` +
    `parentPort.postMessage(String(duckAll("SELECT current_setting('temp_directory')").rows[0][0]))\n` +
    `closeDuckDb()\n`
  return new Promise((ok, fail) => {
    const w = new Worker(code, { eval: true })
    w.once('message', (m) => {
      ok(String(m))
      void w.terminate()
    })
    w.once('error', fail)
  })
}

it('two DuckDB instances of one process (services thread, release runner) spill to folders of their own', { timeout: 120_000 }, async () => {
  const here = String(duckAll(`SELECT current_setting('temp_directory')`).rows[0][0])
  const there = await otherThreadSpillDir()
  expect(there).not.toBe(here)
  expect(there.startsWith(join(tmpdir(), 'qa-duckdb-'))).toBe(true)
})
