import { useEffect, useEffectEvent } from 'react'

/**
 * Calls `apply` with the address each time it changes while the screen is open (the user edited it, went back, or
 * followed a link to another question, dataset or alarm): the screen then shows what it names, not what it opened on.
 * A screen's own `history.replaceState` (keeping the address in step with what it shows) fires no `hashchange`.
 */
export function useAddressChanges(apply: (hash: string) => void): void {
  const onChange = useEffectEvent(() => apply(window.location.hash))
  useEffect(() => {
    const listener = () => onChange()
    window.addEventListener('hashchange', listener)
    return () => window.removeEventListener('hashchange', listener)
  }, [])
}
