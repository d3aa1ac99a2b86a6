/** Small text helpers the kinds' specs share. */
import { shownKeyPart } from '../shown-values'

/** A key part as answers print it: "(empty)" for null, timestamps as the question wrote them. */
export function keyText(v: string | number | null): string {
  return v === null ? '(empty)' : String(shownKeyPart(v))
}

export function padEnd(s: string, n: number): string {
  return s.length >= n ? s : s + ' '.repeat(n - s.length)
}
