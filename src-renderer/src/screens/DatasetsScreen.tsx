import { useEffect, useState } from 'react'
import { useQuery } from '../api/hooks'
import { ErrorText } from '../components/Fields'
import { Loading } from '../components/Loading'
import { Catalog } from './datasets/Catalog'
import { DatasetDetail } from './datasets/DatasetDetail'
import { FirstRunGuide } from './datasets/FirstRunGuide'
import { ForRoles } from '../components/ForRoles'
import { useWho } from '../api/who'
import { ImportPanel } from './datasets/ImportPanel'
import { LinkFilePanel } from './datasets/LinkFilePanel'
import { PostgresPanel } from './datasets/PostgresPanel'
import { ClickHousePanel } from './datasets/ClickHousePanel'
import type { ScreenProps } from '.'
import { href, routeFromHash } from '../sections'
import { useAddressChanges } from '../components/useAddressChanges'

const datasetIdIn = (param: string | null): number | null => (param && /^[1-9]\d{0,15}$/.test(param) ? Number(param) : null)

/** `#/datasets/<id>` opens that dataset's detail, and a changed address while open opens the one it names. */
export function DatasetsScreen(props: ScreenProps) {
  const who = useWho()
  const [version, setVersion] = useState(0)
  const list = useQuery('datasets/list', {}, [version])
  const summary = useQuery('ledger/summary', { cellLimit: 1 }, [version])
  const [selected, setSelectedState] = useState<number | null>(() => datasetIdIn(props.param))
  // The address names the dataset open (without a new history entry), so a reload or a copied address opens it again.
  const setSelected = (id: number | null) => {
    setSelectedState(id)
    const next = id === null ? href('datasets') : href('datasets', id)
    if (window.location.hash !== next) window.history.replaceState(null, '', next)
  }
  useAddressChanges((hash) => {
    const route = routeFromHash(hash)
    if (route.section !== 'datasets') return
    setSelectedState(datasetIdIn(route.param))
  })
  const reload = () => setVersion((v) => v + 1)
  const datasets = list.data ?? []
  const current = datasets.find((d) => d.id === selected) ?? null
  useEffect(() => {
    if (selected !== null && list.data && !list.data.some((d) => d.id === selected)) setSelectedState(null)
  }, [list.data, selected])
  return (
    <div className="stack" data-testid="screen-datasets">
      {/* The first run's steps are the workbench's; a service is set up by its custodian and officer on the host. */}
      {who.kind === 'workbench' && <FirstRunGuide version={version} />}
      <ForRoles roles={['custodian', 'officer']}>
        <ForRoles roles={['custodian']}>
          <ImportPanel onImported={reload} />
        </ForRoles>
        <LinkFilePanel onLinked={reload} />
        <PostgresPanel onLinked={reload} />
        <ClickHousePanel onLinked={reload} />
      </ForRoles>
      <ErrorText error={list.error} />
      {list.data === null && list.loading && (
        <section className="panel" aria-label="Catalog">
          <Loading what="the datasets" testId="catalog-loading" />
        </section>
      )}
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
