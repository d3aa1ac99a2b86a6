import { useEffect, useState } from 'react'
import { useQuery } from '../api/hooks'
import { ErrorText } from '../components/Fields'
import { Catalog } from './datasets/Catalog'
import { DatasetDetail } from './datasets/DatasetDetail'
import { ImportPanel } from './datasets/ImportPanel'
import { LinkFilePanel } from './datasets/LinkFilePanel'
import { PostgresPanel } from './datasets/PostgresPanel'
import type { ScreenProps } from '.'

export function DatasetsScreen(_props: ScreenProps) {
  const list = useQuery('datasets/list', {})
  const summary = useQuery('ledger/summary', { cellLimit: 1 })
  const [selected, setSelected] = useState<number | null>(null)
  const reload = () => {
    list.reload()
    summary.reload()
  }
  const datasets = list.data ?? []
  const current = datasets.find((d) => d.id === selected) ?? null
  useEffect(() => {
    if (selected !== null && list.data && !list.data.some((d) => d.id === selected)) setSelected(null)
  }, [list.data, selected])
  return (
    <div className="stack" data-testid="screen-datasets">
      <ImportPanel onImported={reload} />
      <LinkFilePanel onLinked={reload} />
      <PostgresPanel onLinked={reload} />
      <ErrorText error={list.error} />
      {list.data && (
        <Catalog
          datasets={datasets}
          summary={summary.data}
          summaryError={summary.error}
          selected={selected}
          onSelect={setSelected}
          onChanged={reload}
        />
      )}
      {current && <DatasetDetail key={current.id} dataset={current} onClose={() => setSelected(null)} onChanged={reload} />}
    </div>
  )
}
