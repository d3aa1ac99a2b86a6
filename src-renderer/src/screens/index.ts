import type { ComponentType } from 'react'
import type { SectionId } from '../sections'
import { DatasetsScreen } from './DatasetsScreen'
import { QueriesScreen } from './QueriesScreen'
import { ExperimentsScreen } from './ExperimentsScreen'
import { LedgerScreen } from './LedgerScreen'
import { ReportsScreen } from './ReportsScreen'
import { SettingsScreen } from './SettingsScreen'

export const screens: Record<SectionId, ComponentType> = {
  datasets: DatasetsScreen,
  queries: QueriesScreen,
  experiments: ExperimentsScreen,
  ledger: LedgerScreen,
  reports: ReportsScreen,
  settings: SettingsScreen
}
