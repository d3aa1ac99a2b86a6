/**
 * A panel an address or a button leads to ("#/ledger/checkpoint"): while `on`, it is scrolled to and focused (the
 * panel holds tabIndex -1), and again each time `asked` grows (a second click, when the address did not change). The
 * element is taken through a callback ref, so a panel drawn only once its data has loaded is focused when it appears.
 */
import { useEffect, useState } from 'react'

export function useFocusTarget<T extends HTMLElement>(on: boolean, asked = 0): { ref: (el: T | null) => void } {
  const [el, setEl] = useState<T | null>(null)
  useEffect(() => {
    if (!el || !(on || asked > 0)) return
    el.scrollIntoView({ block: 'start' })
    el.focus()
  }, [el, on, asked])
  return { ref: setEl }
}
