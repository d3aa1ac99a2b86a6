/**
 * Experiments as an attack between analysts of the service: bob cannot list, read, export, resume (take over) or
 * delete the sweep ana started; nothing is written; ana's resume keeps her the owner; the custodian reads it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createServices, type Services } from '../../../src-main/services'
import type { Principal } from '../../../src-main/contract/accounts'
import { addAccount } from '../../../src-main/services/accounts/account-store'
import { officerAct } from '../officer-fixture'
import { tempWorkspace } from '../helpers'
import { thresholdSpec, writeThresholdWorkload } from '../experiments/harness'

let ws: ReturnType<typeof tempWorkspace>
let s: Services

beforeEach(() => {
  ws = tempWorkspace()
  s = createServices({ mode: 'headless', deployment: 'service', dbPath: ws.db, poolSize: 1 })
})
afterEach(async () => {
  await s.close()
  ws.cleanup()
})

const db = () => s.context.store.db

function account(name: string, role: 'analyst' | 'custodian'): Principal {
  const { credential } = addAccount(db(), { name, role, days: 30 }, officerAct(db()))
  const auth = s.accounts.authenticate(credential, '10.0.0.1')
  if (!auth.ok) throw new Error(auth.error.message)
  return auth.principal
}

describe("another analyst's experiment", () => {
  it('is not listed, read, exported, resumed or deleted by bob; ana resumes it as its owner; the custodian reads it', async () => {
    const ana = account('ana', 'analyst')
    const bob = account('bob', 'analyst')
    const carl = account('carl', 'custodian')
    const path = writeThresholdWorkload(ws.dir)
    const spec = thresholdSpec(path, { mechanisms: ['tslm'], grid: { alpha: [1] }, trials: 4 })
    const { jobId, experimentId } = await s.call('experiments/start', { spec }, ana)
    await s.context.jobs.settled(jobId)
    const stored = () => JSON.stringify(db().prepare('SELECT * FROM experiments').all())
    const before = stored()

    expect((await s.call('experiments/list', {}, bob)).experiments).toEqual([])
    for (const method of ['experiments/get', 'experiments/export-csv', 'experiments/resume', 'experiments/delete'] as const) {
      await expect(s.call(method, { experimentId }, bob), method).rejects.toThrow(`There is no experiment with id "${experimentId}"`)
    }
    expect(stored()).toBe(before)

    expect((await s.call('experiments/list', {}, ana)).experiments.map((e) => e.id)).toEqual([experimentId])
    expect((await s.call('experiments/get', { experimentId }, carl)).id).toBe(experimentId)
    const resumed = await s.call('experiments/resume', { experimentId }, ana)
    await s.context.jobs.settled(resumed.jobId)
    expect(db().prepare('SELECT account_id FROM experiments WHERE id = ?').get(experimentId)).toEqual({ account_id: ana.accountId })
    expect(await s.call('experiments/delete', { experimentId }, ana)).toEqual({ deleted: true })
  })
})
