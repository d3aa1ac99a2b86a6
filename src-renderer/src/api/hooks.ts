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

/** Call a method on mount (and on `reload`). */
export function useQuery<M extends MethodName>(method: M, req: RequestOf<M>, deps: unknown[] = []): Query<ResponseOf<M>> {
  const client = useClient()
  const [state, setState] = useState<{ data: ResponseOf<M> | null; error: string | null; loading: boolean }>({
    data: null,
    error: null,
    loading: true
  })
  const [tick, setTick] = useState(0)
  useEffect(() => {
    let live = true
    setState((s) => ({ ...s, loading: true }))
    client.call(method, req).then(
      (data) => live && setState({ data, error: null, loading: false }),
      (e: Error) => live && setState({ data: null, error: e.message, loading: false })
    )
    return () => {
      live = false
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [client, method, tick, ...deps])
  const reload = useCallback(() => setTick((t) => t + 1), [])
  return { ...state, reload }
}

/** Follow one job's progress and final state through the contract events. */
export function useJob(jobId: string | null): { info: JobInfo | null; progress: JobProgress | null } {
  const client = useClient()
  const [info, setInfo] = useState<JobInfo | null>(null)
  const [progress, setProgress] = useState<JobProgress | null>(null)
  useEffect(() => {
    setInfo(null)
    setProgress(null)
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
    }
  }, [client, jobId])
  useEvent('job/progress', (p) => {
    if (p.jobId === jobId) setProgress(p)
  })
  useEvent('job/state', (j) => {
    if (j.jobId === jobId) {
      setInfo(j)
      if (j.progress) setProgress(j.progress)
    }
  })
  return { info, progress }
}
