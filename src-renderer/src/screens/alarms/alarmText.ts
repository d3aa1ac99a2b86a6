/** Sentences about an alarm shared by its row in the list and its detail (public fields only). */
import type { AlarmView } from '../../../../src-main/contract'
import { formatExact } from '../../format'

/** What watching has burned, against the cap: "ε 1.2 of a lifetime cap of ε 10" (no cap: the dataset's budgets bind). */
export function burnedText(a: AlarmView): string {
  const spent = `ε ${formatExact(a.spentExact)}`
  if (a.lifetimeExact === null) return `${spent}; no lifetime cap of its own (the dataset’s budgets bind)`
  // Spends round up and caps down (format-epsilon.ts): a spend equal to its cap is said in words, never as two figures
  // that read as over the cap.
  if (a.spentExact === a.lifetimeExact) return `${spent}: all of its lifetime cap`
  return `${spent} of a lifetime cap of ε ${formatExact(a.lifetimeExact, 'down')}`
}

/** "watching", or "paused: <why>" / "ended: <why>". */
export function statusText(a: AlarmView): string {
  return a.status === 'watching' ? 'watching' : `${a.status}${a.statusReason ? `: ${a.statusReason}` : ''}`
}
