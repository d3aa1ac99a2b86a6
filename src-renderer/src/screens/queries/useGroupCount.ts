import { useEffect, useState } from 'react'
import type { DatasetInfo, ThresholdQueryDefinition } from '../../../../src-main/contract'
import { useClient } from '../../api/hooks'
import { GROUP_LIST_ROWS_READ, type GroupCount, distinctTuples, groupCountOf, groupCountSentence } from './groupCountDefinition'

const PAGE = 1000

/**
 * The sentence saying how many groups a threshold definition asks about (groupCountDefinition.ts): a public group list's
 * distinct key tuples are counted by paging that public dataset's rows (at most GROUP_LIST_ROWS_READ); nothing else is read.
 */
export function useGroupCount(def: ThresholdQueryDefinition | string, datasets: readonly DatasetInfo[]): string | null {
  const client = useClient()
  const gc: GroupCount | null = typeof def === 'string' ? null : groupCountOf(def, datasets)
  const distinctKey = gc?.kind === 'distinct' ? JSON.stringify([gc.dataset.id, gc.dataset.rowCount, gc.columns]) : null
  const [counted, setCounted] = useState<{ key: string; groups: number; complete: boolean } | null>(null)
  useEffect(() => {
    if (distinctKey === null || gc?.kind !== 'distinct') return
    let live = true
    const { dataset, columns } = gc
    void (async () => {
      const seen = new Set<string>()
      let offset = 0
      let total = Infinity
      while (offset < Math.min(total, GROUP_LIST_ROWS_READ)) {
        const page = await client.call('datasets/rows', { datasetId: dataset.id, offset, limit: PAGE })
        if (!live) return
        const positions = columns.map((c) => page.columns.findIndex((x) => x.name === c))
        if (positions.some((p) => p < 0)) return
        distinctTuples(page.rows, positions, seen)
        total = page.total
        offset += page.rows.length
        if (page.rows.length === 0) break
      }
      if (live) setCounted({ key: distinctKey, groups: seen.size, complete: offset >= total })
    })().catch(() => live && setCounted(null))
    return () => {
      live = false
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [client, distinctKey])
  if (gc === null) return null
  return groupCountSentence(gc, counted && counted.key === distinctKey ? counted : null)
}
