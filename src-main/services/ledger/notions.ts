/**
 * The privacy notions the ledger keeps apart. An epsilon under one notion protects a different neighbour relation than
 * an epsilon under another, so they are never added together: the ledger keeps one account (and one budget) per notion.
 */
import type { PrivacyNotion } from '../../contract/ledger'

export const NOTIONS: readonly PrivacyNotion[] = ['eps-dp', 'predicate-wise-dp', 'eps-k-sensitive', 'anomaly-restricted-dp']

export const NOTION_LABEL: Record<PrivacyNotion, string> = {
  'eps-dp': 'eps-DP',
  'predicate-wise-dp': 'predicate-wise DP',
  'eps-k-sensitive': '(eps,k)-sensitive privacy',
  'anomaly-restricted-dp': 'anomaly-restricted DP'
}

/** What one unit of epsilon under the notion protects, in words (for the ledger screen and the CLI). */
export const NOTION_MEANING: Record<PrivacyNotion, string> = {
  'eps-dp': 'any one person, against any question about the dataset',
  'predicate-wise-dp': 'any one person within each predicate (partition cell); disjoint cells are accounted in parallel',
  'eps-k-sensitive': 'any one person whose record is k-sensitive (could be made normal by k more records); anomalies are not hidden',
  'anomaly-restricted-dp': 'any one normal person (score at most t-low); the anomaly itself is not hidden'
}

export function isNotion(x: unknown): x is PrivacyNotion {
  return typeof x === 'string' && (NOTIONS as readonly string[]).includes(x)
}
