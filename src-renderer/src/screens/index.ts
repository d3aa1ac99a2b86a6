import type { ComponentType } from 'react'
import type { SectionId } from '../sections'
import { DatasetsScreen } from './DatasetsScreen'
import { QueriesScreen } from './QueriesScreen'
import { ReleasesScreen } from './ReleasesScreen'
import { ExperimentsScreen } from './ExperimentsScreen'
import { LedgerScreen } from './LedgerScreen'
import { ReportsScreen } from './ReportsScreen'
import { SettingsScreen } from './SettingsScreen'
import { AccountsScreen } from './AccountsScreen'
import { AlarmsScreen } from './AlarmsScreen'

export interface ScreenProps {
  /** What follows the section in the address ("#/releases/12" -> "12"). */
  param: string | null
}

export const screens: Record<SectionId, ComponentType<ScreenProps>> = {
  datasets: DatasetsScreen,
  queries: QueriesScreen,
  releases: ReleasesScreen,
  alarms: AlarmsScreen,
  experiments: ExperimentsScreen,
  ledger: LedgerScreen,
  accounts: AccountsScreen,
  reports: ReportsScreen,
  settings: SettingsScreen
}
