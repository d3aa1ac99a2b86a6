import type { ReactNode } from 'react'

/**
 * A box that scrolls (a wide or long table): a named region in the tab order, so a keyboard user can reach it and
 * scroll it with the arrow keys, and a screen reader announces what it holds.
 */
export function ScrollRegion(props: { label: string; short?: boolean; testId?: string; children: ReactNode }) {
  return (
    <div
      className={props.short ? 'table-scroll short' : 'table-scroll'}
      tabIndex={0}
      role="region"
      aria-label={props.label}
      data-testid={props.testId}
    >
      {props.children}
    </div>
  )
}
