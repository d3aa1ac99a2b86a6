import { afterEach, describe, expect, it } from 'vitest'
import { WorkerPool, type Batch } from '../../src-main/services/platform/worker-pool'
import { resolveWorkerScript } from '../../src-main/services/platform/worker-script'
import { CancelledError } from '../../src-main/services/platform/errors'
import { waitFor } from './helpers'
import { join } from 'node:path'
import { tmpdir } from 'node:os'

const script = resolveWorkerScript({ ...process.env, QA_DIAGNOSTICS: '1' })
let pool: WorkerPool | undefined
afterEach(async () => {
  await pool?.shutdown()
  pool = undefined
})

const laplaceBatches = (n: number, samples: number): Array<Batch<'self-check/laplace'>> =>
  Array.from({ length: n }, (_, i) => ({ kind: 'self-check/laplace', payload: { seed: 's', batchIndex: i, samples, scale: 1 }, units: samples }))

describe('worker pool', () => {
  it('types each batch by its kind (TaskMap): a payload of another kind or an unknown kind does not compile', () => {
    // @ts-expect-error the self-check's payload has no "ms" (typecheck fails here if batches were loosely typed)
    const wrongPayload: Batch = { kind: 'self-check/laplace', payload: { ms: 1 }, units: 1 }
    // @ts-expect-error not a task kind
    const unknownKind: Batch = { kind: 'no/such-kind', payload: {}, units: 1 }
    expect([wrongPayload.kind, unknownKind.kind]).toEqual(['self-check/laplace', 'no/such-kind'])
  })

  it('runs batches on two workers, reports progress up to the total, and is deterministic', async () => {
    pool = new WorkerPool(script, 2)
    const seen: number[] = []
    const out = await pool.run(laplaceBatches(6, 40_000), {
      onProgress: (d, t) => {
        expect(t).toBe(240_000)
        seen.push(d)
      }
    })
    expect(out.every((o) => o.ok)).toBe(true)
    const values = out.map((o) => (o.ok ? o.value : null)!)
    expect(new Set(values.map((v) => v.threadTag)).size).toBe(2)
    expect(values.map((v) => v.batchIndex)).toEqual([0, 1, 2, 3, 4, 5])
    expect(seen[seen.length - 1]).toBe(240_000)
    // Same seeds on a one-worker pool give identical samples.
    const single = new WorkerPool(script, 1)
    try {
      const again = await single.run(laplaceBatches(6, 40_000))
      expect(again.map((o) => (o.ok ? o.value.sorted : []))).toEqual(values.map((v) => v.sorted))
    } finally {
      await single.shutdown()
    }
  })

  it("counts a batch's warm-up cost once per worker and key: on both workers' first batch of a key, not on a warm worker", async () => {
    pool = new WorkerPool(script, 2)
    const withWarmUp = (key: string) => laplaceBatches(6, 10_000).map((b) => ({ ...b, cost: 100, warmUp: { key, cost: 1_000 } }))
    const totals = async (batches: Array<Batch<'self-check/laplace'>>) => {
      let last = { done: 0, total: 0 }
      const out = await pool!.run(batches, { onProgress: (_d, _t, work) => (last = work) })
      expect(out.every((o) => o.ok)).toBe(true)
      return last
    }
    // Both idle workers take a first batch at once, so each counts the warm-up of key "a" once.
    expect(await totals(withWarmUp('a'))).toEqual({ done: 2_600, total: 2_600 })
    expect(await totals(withWarmUp('a'))).toEqual({ done: 600, total: 600 })
    expect(await totals(withWarmUp('b'))).toEqual({ done: 2_600, total: 2_600 })
  })

  it('replaces a worker killed mid-batch and retries the batch once', async () => {
    pool = new WorkerPool(script, 1)
    const run = pool.run([{ kind: 'diag/sleep', payload: { ms: 1500, value: 42 }, units: 1 }])
    await waitFor(() => pool!.status().busy === 1, 'the batch to start')
    expect(await pool.killBusyWorker()).toBe(true)
    const out = await run
    expect(out).toEqual([{ ok: true, value: 42 }])
    expect(pool.status().restarts).toBe(1)
  })

  it('fails a batch whose worker dies twice, with a clear error, within seconds', async () => {
    pool = new WorkerPool(script, 2)
    const died = pool.run([{ kind: 'diag/exit', payload: { code: 70 }, units: 1 }])
    await expect(died).rejects.toThrow(/Batch 1 of 1 \(diag\/exit\) failed twice: the worker stopped unexpectedly \(exit code 70\)/)
    await expect(died).rejects.toMatchObject({ failure: { kind: 'worker-lost', reason: 'the worker stopped unexpectedly (exit code 70)' } })
    // The pool is whole again and keeps working.
    await waitFor(() => pool!.status().size === 2 && pool!.status().busy === 0, 'the pool to be idle')
    const ok = await pool.run(laplaceBatches(2, 1000))
    expect(ok.every((o) => o.ok)).toBe(true)
  })

  it('with failFast off, reports a failed batch and finishes the others', async () => {
    pool = new WorkerPool(script, 2)
    const out = await pool.run([...laplaceBatches(2, 1000), { kind: 'diag/throw', payload: { message: 'bad cell' }, units: 1 }], {
      failFast: false
    })
    expect(out[0].ok && out[1].ok).toBe(true)
    // The cause is structured (callers word it without parsing the sentence).
    expect(out[2]).toEqual({
      ok: false,
      error: expect.stringMatching(/Batch 3 of 3 \(diag\/throw\) failed: bad cell/),
      failure: { kind: 'task-threw', message: 'bad cell' }
    })
  })

  it('cancels a running job promptly and stays usable', async () => {
    pool = new WorkerPool(script, 2)
    const ac = new AbortController()
    const run = pool.run(
      Array.from({ length: 6 }, () => ({ kind: 'diag/sleep', payload: { ms: 20_000 }, units: 1 })),
      { signal: ac.signal }
    )
    await waitFor(() => pool!.status().busy === 2, 'both workers to be busy')
    const t0 = Date.now()
    ac.abort()
    await expect(run).rejects.toBeInstanceOf(CancelledError)
    // The batches sleep 20 s: a cancel that did not stop them could not finish within 5 s (a wide margin on busy machines).
    expect(Date.now() - t0).toBeLessThan(5000)
    expect(pool.status().queuedBatches).toBe(0)
    const ok = await pool.run(laplaceBatches(2, 1000))
    expect(ok.every((o) => o.ok)).toBe(true)
  })

  it('treats a batch over its timeout as a crash', async () => {
    pool = new WorkerPool(script, 1)
    await expect(pool.run([{ kind: 'diag/sleep', payload: { ms: 10_000 }, units: 1 }], { batchTimeoutMs: 300 })).rejects.toThrow(
      /failed twice: it ran longer than its time limit of 300 ms and was stopped/
    )
  })

  it('stops respawning workers that cannot even load, and refuses work with the reason', async () => {
    pool = new WorkerPool({ path: join(tmpdir(), 'qa-no-such-worker.js') }, 2)
    await waitFor(() => pool!.status().state === 'stopped', 'the pool to give up on workers that cannot start')
    const restarts = pool.status().restarts
    await expect(pool.run(laplaceBatches(1, 10))).rejects.toThrow(/^The worker threads cannot start \(the worker failed: Cannot find module/)
    // No endless respawn loop: the count stays put.
    await new Promise((r) => setTimeout(r, 300))
    expect(pool.status().restarts).toBe(restarts)
    expect(restarts).toBeLessThanOrEqual(3)
  })
})
