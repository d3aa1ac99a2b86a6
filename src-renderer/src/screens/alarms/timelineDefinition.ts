/**
 * The timeline's grid from an alarm's history: periods across (oldest first), predicates down (those that fired in a
 * period shown, in the order they first fired), and which cells fired. Pure: unit-tested under Node
 * (test/unit/renderer/alarm-timeline.test.ts).
 */
import type { AlarmPeriodView } from '../../../../src-main/contract'

export interface Timeline {
  periods: AlarmPeriodView[]
  predicates: string[]
  /** fired[row][column]: predicates[row] fired in periods[column]. */
  fired: boolean[][]
}

/** `periods` as alarms/history gives them (newest first, or any order): laid out oldest first. */
export function timelineOf(periods: readonly AlarmPeriodView[]): Timeline {
  const ordered = [...periods].sort((a, b) => a.period - b.period)
  const predicates: string[] = []
  for (const p of ordered) for (const label of p.fired) if (!predicates.includes(label)) predicates.push(label)
  const fired = predicates.map((label) => ordered.map((p) => p.fired.includes(label)))
  return { periods: ordered, predicates, fired }
}
