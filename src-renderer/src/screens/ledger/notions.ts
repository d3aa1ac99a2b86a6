import type { PrivacyNotion } from '../../../../src-main/contract'

/** Notion names for selects (the ledger summary carries its own labels and meanings too). */
export const NOTION_OPTIONS: Array<{ value: PrivacyNotion; label: string }> = [
  { value: 'predicate-wise-dp', label: 'predicate-wise DP (threshold queries)' },
  { value: 'eps-dp', label: 'ε-DP (anomaly identification, DP mechanism)' },
  { value: 'eps-k-sensitive', label: '(ε,k)-sensitive privacy (anomaly identification, SP mechanism)' },
  { value: 'anomaly-restricted-dp', label: 'anomaly-restricted DP (anomaly search)' }
]

/** A notion's plain name where it is shown next to figures (not its internal id): the app and the report say the same. */
export { NOTION_NAME, notionName } from '../../../../src-main/contract/notion-names'

/**
 * The one name of the budget that holds every notion's spend together: "budget per person" on a person-level dataset,
 * "budget per row" on a row-level one ("budget per person (or row)" when the dataset is not known, e.g. deleted).
 */
export function budgetName(unitKind: 'person' | 'row' | null | undefined): string {
  return unitKind ? `budget per ${unitKind}` : 'budget per person (or row)'
}
