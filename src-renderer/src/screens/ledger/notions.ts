import type { PrivacyNotion } from '../../../../src-main/contract'

/** Notion names for selects (the ledger summary carries its own labels and meanings too). */
export const NOTION_OPTIONS: Array<{ value: PrivacyNotion; label: string }> = [
  { value: 'predicate-wise-dp', label: 'predicate-wise DP (threshold queries)' },
  { value: 'eps-dp', label: 'ε-DP (anomaly identification, DP mechanism)' },
  { value: 'eps-k-sensitive', label: '(ε,k)-sensitive privacy (anomaly identification, SP mechanism)' },
  { value: 'anomaly-restricted-dp', label: 'anomaly-restricted DP (anomaly search)' }
]

/** A notion's plain name where it is shown next to figures (not its internal id). */
export const NOTION_NAME: Record<PrivacyNotion, string> = {
  'predicate-wise-dp': 'predicate-wise DP',
  'eps-dp': 'ε-DP',
  'eps-k-sensitive': '(ε,k)-sensitive privacy',
  'anomaly-restricted-dp': 'anomaly-restricted DP'
}

export function notionName(n: PrivacyNotion | null | undefined): string {
  return n ? (NOTION_NAME[n] ?? n) : ''
}
