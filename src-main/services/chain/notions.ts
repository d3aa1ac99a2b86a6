/**
 * The privacy notions the ledger names on every charge.
 *
 * Every notion protects a *normal* unit (a person, or a row on a row-level dataset: one that is not anomalous, is
 * k-sensitive, has a score below t-low) with its epsilon, so a normal unit's loss is the SUM over notions (basic
 * composition; ALGORITHMS.md section 6). The notions differ in whom they leave unprotected (anomalies, by design), not in
 * adding up. The ledger keeps one account per notion as a breakdown beneath the per-unit figure, and an optional budget
 * per notion as an extra cap.
 */
import type { PrivacyNotion } from '../../contract/ledger'

export const NOTIONS: readonly PrivacyNotion[] = ['eps-dp', 'predicate-wise-dp', 'eps-k-sensitive', 'anomaly-restricted-dp']

export const NOTION_LABEL: Record<PrivacyNotion, string> = {
  'eps-dp': 'eps-DP',
  'predicate-wise-dp': 'predicate-wise DP',
  'eps-k-sensitive': '(eps,k)-sensitive privacy',
  'anomaly-restricted-dp': 'anomaly-restricted DP'
}

/**
 * What one unit of epsilon under the notion protects, and whom it leaves out, in words (for the ledger screen and the
 * CLI). Each spend adds to the same per-unit figure.
 */
export const NOTION_MEANING: Record<PrivacyNotion, string> = {
  'eps-dp': 'every person (or row), against any question about the dataset; adds to the spend per person',
  'predicate-wise-dp':
    'every person (or row) within each predicate; cells are accounted in parallel only where a person lies in one cell; adds to the spend per person',
  'eps-k-sensitive':
    'every normal person whose records are k-sensitive (could be made normal by k more records); anomalies are not hidden; for a normal person it adds to the spend per person',
  'anomaly-restricted-dp':
    'every normal person (score at most t-low); the anomaly itself is not hidden; for a normal person it adds to the spend per person'
}

export function isNotion(x: unknown): x is PrivacyNotion {
  return typeof x === 'string' && (NOTIONS as readonly string[]).includes(x)
}
