import { useEffect, useRef } from 'react'

/** How long a revealed result is kept in view while what is above it settles (a preview reloading, a list growing). */
const SETTLE_MS = 800

/**
 * A new result (a release, an opened dataset, a linked ledger entry) is scrolled into view and given the focus, once per
 * `key` (null: nothing to show yet). Attach the returned ref to the result's outer element. While the page above it
 * settles it is kept in view, unless the user scrolls or types meanwhile.
 */
export function useReveal<T extends HTMLElement>(key: string | number | null) {
  const ref = useRef<T>(null)
  useEffect(() => {
    const el = ref.current
    if (key === null || !el) return
    if (!el.hasAttribute('tabindex')) el.tabIndex = -1
    el.scrollIntoView({ block: 'start' })
    el.focus({ preventScroll: true })
    // Where we put the window: if it is moved from there by anything else (the user, a script), we stop keeping it.
    let ourY = window.scrollY
    let userMoved = false
    const onUser = () => (userMoved = true)
    const events = ['wheel', 'keydown', 'pointerdown', 'touchstart'] as const
    for (const e of events) window.addEventListener(e, onUser, { passive: true })
    const until = performance.now() + SETTLE_MS
    let frame = 0
    const keep = () => {
      if (userMoved || !el.isConnected || performance.now() > until || Math.abs(window.scrollY - ourY) > 2) return
      const top = el.getBoundingClientRect().top
      if (top < -1 || top > window.innerHeight / 2) {
        el.scrollIntoView({ block: 'start' })
        ourY = window.scrollY
      }
      frame = requestAnimationFrame(keep)
    }
    frame = requestAnimationFrame(keep)
    return () => {
      cancelAnimationFrame(frame)
      for (const e of events) window.removeEventListener(e, onUser)
    }
  }, [key])
  return ref
}
