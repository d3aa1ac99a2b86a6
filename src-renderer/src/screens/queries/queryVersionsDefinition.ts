/**
 * A saved question's versions with the releases that ran each (pure: no React, unit-tested in
 * test/unit/renderer/query-versions.test.ts). A release names the exact version it ran (its query id), so every answer
 * can be read against the question as it was then.
 */
import type { QueryDefinition, ReleaseRecord, SavedQuery } from '../../../../src-main/contract'

export interface QueryVersionRow {
  /** The version's own query id (what its releases name). */
  id: number
  version: number
  createdAt: string
  /** What this version changed from the one before ('' for the first). */
  changed: string
  /** The releases that ran this version, newest first. */
  releases: Array<Pick<ReleaseRecord, 'releaseId' | 'createdAt' | 'statusText'>>
}

/** The definition's fields that differ between two versions, in words ("groups, threshold"). */
export function changedFields(before: QueryDefinition, after: QueryDefinition): string {
  const a = before as unknown as Record<string, unknown>
  const b = after as unknown as Record<string, unknown>
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])]
  const changed = keys.filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]))
  return changed.length === 0 ? 'the same definition' : `changed ${changed.join(', ')}`
}

/** Newest version first, each with its releases (matched by the version's query id). */
export function queryVersionRows(versions: readonly SavedQuery[], releases: readonly ReleaseRecord[]): QueryVersionRow[] {
  const sorted = [...versions].sort((x, y) => x.version - y.version)
  const rows = sorted.map((v, i) => ({
    id: v.id,
    version: v.version,
    createdAt: v.createdAt,
    changed: i === 0 ? '' : changedFields(sorted[i - 1].definition, v.definition),
    releases: releases
      .filter((r) => r.queryId === v.id)
      .sort((x, y) => y.releaseId - x.releaseId)
      .map((r) => ({ releaseId: r.releaseId, createdAt: r.createdAt, statusText: r.statusText }))
  }))
  return rows.reverse()
}
