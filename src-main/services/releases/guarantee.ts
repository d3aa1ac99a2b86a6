/** Words shared by the guarantee sentences (each kind's sentence is in its module under `kinds/`). */
import type { PrivacyUnit } from '../../contract/datasets'

export function pct(p: number): string {
  const x = p * 100
  if (x >= 10) return `${Number(x.toPrecision(3))}%`
  return `${Number(x.toPrecision(2))}%`
}

export function num(x: number): string {
  return Number(x.toPrecision(4)).toString()
}

/** Who a guarantee protects, in words: "each person (person column "p")" or "each row". */
export function protectedUnit(unit: PrivacyUnit): string {
  return unit.kind === 'person' ? `each person (person column "${unit.column}")` : 'each row (each row is a different person)'
}
