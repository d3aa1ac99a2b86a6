import { createContext, useCallback, useContext, useEffect, useRef, useState } from 'react'
import type { EventName, Events, JobInfo, JobProgress, MethodName, RequestOf, ResponseOf } from '../../../src-main/contract'
import type { Client } from './client'

export const ClientContext = createContext<Client | null>(null)

export function useClient(): Client {
  const c = useContext(ClientContext)
  if (!c) throw new Error('useClient outside ClientContext')
  return c
}

export function useEvent<E extends EventName>(name: E, listener: (payload: Events[E]) => void): void {
  const client = useClient()
  const ref = useRef(listener)
  ref.current = listener
  useEffect(() => client.on(name, (p) => ref.current(p)), [client, name])
}

export interface Query<T> {
  data: T | null
  error: string | null
  loading: boolean
  reload: () => void
}

/**
 * Call a method on mount (and on `reload`, and when `deps` change). Keeps the last data while reloading.
 * `loading` is true from the very render in which the request changes until its answer arrives (derived from the key the
 * data was loaded for, not set in an effect), so no render ever shows old data as current.
 */
export function useQuery<M extends MethodName>(method: M, req: RequestOf<M> | null, deps: unknown[] = []): Query<ResponseOf<M>> {
  const client = useClient()
  const [tick, setTick] = useState(0)
  const skip = req === null
  const key = JSON.stringify([method, tick, skip, deps])
  const [state, setState] = useState<{ data: ResponseOf<M> | null; error: string | null; loadedKey: string | null }>({
    data: null,
    error: null,
    loadedKey: null
  })
  const reqRef = useRef(req)
  reqRef.current = req
  useEffect(() => {
    if (skip) {
      setState({ data: null, error: null, loadedKey: key })
      return
    }
    let live = true
    client.call(method, reqRef.current as RequestOf<M>).then(
      (data) => live && setState({ data, error: null, loadedKey: key }),
      (e: Error) => live && setState({ data: null, error: e.message, loadedKey: key })
    )
    return () => {
      live = false
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [client, key])
  const reload = useCallback(() => setTick((t) => t + 1), [])
  return { data: state.data, error: state.error, loading: !skip && state.loadedKey !== key, reload }
}

/** Progress re-renders at most this often (a sweep sends many progress events). */
export const PROGRESS_RENDER_MS = 250

/** Follow one job's progress and final state through the contract events. Progress renders are throttled. */
export function useJob(jobId: string | null): { info: JobInfo | null; progress: JobProgress | null } {
  const client = useClient()
  const [info, setInfo] = useState<JobInfo | null>(null)
  const [progress, setProgress] = useState<JobProgress | null>(null)
  const pending = useRef<JobProgress | null>(null)
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null)
  useEffect(() => {
    setInfo(null)
    setProgress(null)
    pending.current = null
    if (!jobId) return
    let live = true
    client.call('jobs/get', { jobId }).then(
      (j) => {
        if (!live) return
        setInfo((cur) => cur ?? j)
        if (j.progress) setProgress((cur) => cur ?? j.progress)
      },
      () => undefined
    )
    return () => {
      live = false
      if (timer.current) clearTimeout(timer.current)
      timer.current = null
    }
  }, [client, jobId])
  useEvent('job/progress', (p) => {
    if (p.jobId !== jobId) return
    pending.current = p
    if (timer.current) return
    timer.current = setTimeout(() => {
      timer.current = null
      if (pending.current) setProgress(pending.current)
    }, PROGRESS_RENDER_MS)
  })
  useEvent('job/state', (j) => {
    if (j.jobId === jobId) {
      setInfo(j)
      if (j.progress) {
        pending.current = j.progress
        setProgress(j.progress)
      }
    }
  })
  return { info, progress }
}

/** A value that follows `value` after it stopped changing for `ms`. */
export function useDebounced<T>(value: T, ms: number): T {
  const [v, setV] = useState(value)
  useEffect(() => {
    const t = setTimeout(() => setV(value), ms)
    return () => clearTimeout(t)
  }, [value, ms])
  return v
}

/** Run an action with a busy flag and one error sentence. */
export function useAction(): {
  busy: boolean
  error: string | null
  setError: (e: string | null) => void
  run: <T>(fn: () => Promise<T>) => Promise<T | undefined>
} {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const run = useCallback(async <T>(fn: () => Promise<T>) => {
    setBusy(true)
    setError(null)
    try {
      return await fn()
    } catch (e) {
      setError((e as Error).message)
      return undefined
    } finally {
      setBusy(false)
    }
  }, [])
  return { busy, error, setError, run }
}
