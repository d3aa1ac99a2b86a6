import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServices, type Services } from '../../src-main/services'
import type { JobProgress, SelfCheckResult } from '../../src-main/contract'
import { tempWorkspace, waitFor } from './helpers'

let services: Services
let ws: ReturnType<typeof tempWorkspace>

beforeAll(() => {
  ws = tempWorkspace()
  services = createServices({ mode: 'headless', dbPath: ws.db, poolSize: 2 })
})
afterAll(async () => {
  await services?.close()
  ws?.cleanup()
})

describe('services: engine work on two workers, progress, store', () => {
  it('runs the self-check on both workers with progress events and records it in the store', async () => {
    const progress: JobProgress[] = []
    const off = services.events.on((name, payload) => {
      if (name === 'job/progress') progress.push(payload as JobProgress)
    })
    const { jobId } = await services.call('diagnostics/self-check', { batches: 6, samplesPerBatch: 60_000 })
    const done = await services.context.jobs.settled(jobId)
    off()
    expect(done?.state).toBe('done')
    const result = done!.result as SelfCheckResult
    expect(result.workersUsed).toBe(2)
    expect(result.samples).toBe(360_000)
    expect(result.passed).toBe(true)
    expect(progress.length).toBeGreaterThan(1)
    expect(progress.every((p) => p.jobId === jobId && p.total === 360_000 && p.unit === 'samples')).toBe(true)
    for (let i = 1; i < progress.length; i++) expect(progress[i].done).toBeGreaterThanOrEqual(progress[i - 1].done)
    expect(progress[progress.length - 1].done).toBe(360_000)
    // Written to and read back from the workspace.
    const status = await services.call('app/status', {})
    expect(status.lastSelfCheck).toEqual(result)
    expect(status.pool).toMatchObject({ size: 2, busy: 0, state: 'idle' })
  })

  it('cancels a job: state cancelled, the pool is free again at once', async () => {
    const { jobId } = await services.call('diagnostics/self-check', { batches: 200, samplesPerBatch: 1_000_000 })
    await waitFor(() => services.context.pool.status().busy === 2, 'both workers to be busy')
    const t0 = Date.now()
    expect(await services.call('jobs/cancel', { jobId })).toEqual({ cancelled: true })
    const info = await services.context.jobs.settled(jobId)
    expect(info?.state).toBe('cancelled')
    // 200 batches of a million samples would take minutes: finishing within 5 s means the cancel stopped them.
    expect(Date.now() - t0).toBeLessThan(5000)
    expect(services.context.pool.status()).toMatchObject({ busy: 0, queuedBatches: 0 })
    expect(await services.call('jobs/cancel', { jobId })).toEqual({ cancelled: false })
  })

  it('changes the worker count when idle, refuses while a job runs, and remembers it for the next start', async () => {
    const { jobId } = await services.call('diagnostics/self-check', { batches: 200, samplesPerBatch: 1_000_000 })
    await expect(services.call('app/set-workers', { workers: 1 })).rejects.toThrow(/A job is running/)
    await services.call('jobs/cancel', { jobId })
    await services.context.jobs.settled(jobId)
    await expect(services.call('app/set-workers', { workers: 0 })).rejects.toThrow(/whole number from 1 to 32/)
    expect(await services.call('app/set-workers', { workers: 1 })).toMatchObject({ size: 1, busy: 0 })
    const { jobId: again } = await services.call('diagnostics/self-check', { batches: 2, samplesPerBatch: 1000 })
    const done = await services.context.jobs.settled(again)
    expect(done?.state).toBe('done')
    expect((done!.result as SelfCheckResult).workersUsed).toBe(1)
    // A fresh start on the same workspace (no explicit size) uses the remembered count.
    await services.close()
    services = createServices({ mode: 'headless', dbPath: ws.db })
    expect(services.context.pool.size).toBe(1)
    await services.close()
    services = createServices({ mode: 'headless', dbPath: ws.db, poolSize: 2 })
    expect(services.context.pool.size).toBe(2)
  })

  it('answers bad requests with one clear sentence through dispatch', async () => {
    expect(await services.dispatch('diagnostics/self-check', { batches: 0 })).toEqual({
      ok: false,
      error: { message: 'batches must be a whole number from 1 to 1,000', code: 'bad-input' }
    })
    expect(await services.dispatch('jobs/get', { jobId: 'nope' })).toMatchObject({ ok: false, error: { code: 'not-found' } })
    expect(await services.dispatch('no/such', {})).toMatchObject({ ok: false, error: { code: 'unknown-method' } })
  })

  it('checks every request inside dispatch: handlers that take the checked request never see one that does not fit', async () => {
    // The ledger handlers pass datasetId/limit on as they are: only the schema check stands between these and the SQL.
    const wrongType = await services.dispatch('ledger/entries', { limit: 'all; DROP TABLE ledger_entries' })
    expect(wrongType).toMatchObject({ ok: false, error: { code: 'bad-input' } })
    expect(await services.dispatch('releases/list', { datasetId: 1.5 })).toMatchObject({ ok: false, error: { code: 'bad-input' } })
    // A field the schema does not know (strict objects) and a parameter naming a file are refused before any handler.
    expect(await services.dispatch('ledger/summary', { cellLimit: 3, extra: true })).toMatchObject({ ok: false, error: { code: 'bad-input' } })
    expect(await services.dispatch('datasets/list', { path: '/etc/passwd' })).toMatchObject({ ok: false, error: { code: 'bad-input' } })
    // And what fits still runs.
    expect(await services.dispatch('ledger/entries', { limit: 5 })).toMatchObject({ ok: true })
  })
})
