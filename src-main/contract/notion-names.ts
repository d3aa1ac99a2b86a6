/** A privacy notion's name where it is shown to a person (the app, the report), never its internal id; ε written as ε. */
import type { PrivacyNotion } from './ledger'

export const NOTION_NAME: Record<PrivacyNotion, string> = {
  'predicate-wise-dp': 'predicate-wise DP',
  'eps-dp': 'ε-DP',
  'eps-k-sensitive': '(ε,k)-sensitive privacy',
  'anomaly-restricted-dp': 'anomaly-restricted DP'
}

/** The name of a notion id; an unknown id as it is, nothing for none. */
export function notionName(n: string | null | undefined): string {
  return n ? (NOTION_NAME[n as PrivacyNotion] ?? n) : ''
}
