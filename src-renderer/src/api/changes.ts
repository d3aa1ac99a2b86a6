/**
 * What changed in the workspace, told across screens: a form that registers an officer (or imports, saves, releases)
 * announces it, and every view of that kind reloads. In-page only; the services stay the source of truth.
 */
import { useEffect, useState } from 'react'

export type ChangeTopic = 'officers' | 'datasets' | 'queries' | 'releases' | 'ledger'

const listeners = new Map<ChangeTopic, Set<() => void>>()

export function announceChange(topic: ChangeTopic): void {
  for (const l of listeners.get(topic) ?? []) l()
}

/** A number that grows each time `topic` is announced: put it in a query's dependencies to reload with it. */
export function useChanges(topic: ChangeTopic): number {
  const [version, setVersion] = useState(0)
  useEffect(() => {
    const set = listeners.get(topic) ?? new Set()
    listeners.set(topic, set)
    const l = () => setVersion((v) => v + 1)
    set.add(l)
    return () => {
      set.delete(l)
    }
  }, [topic])
  return version
}
