/** The release kinds: one module per kind, each owning its checks, price, guarantee, run and answer. */
import type { ReleaseParams } from '../../../contract/ledger'
import type { ReleaseKindModule } from './release-kind'
import { thresholdKind } from './threshold'
import { anomalyIdentificationKind } from './anomaly-identification'
import { anomalySearchKind } from './anomaly-search'

export type { ExecutionResult, PreparedRelease, ReleaseKindModule } from './release-kind'

/** The module of each requested kind (an alarm's releases are made by services/alarms/, not prepared here). */
export const RELEASE_KINDS: { [K in ReleaseParams['kind']]: ReleaseKindModule<Extract<ReleaseParams, { kind: K }>> } = {
  threshold: thresholdKind,
  'anomaly-identification': anomalyIdentificationKind,
  'anomaly-search': anomalySearchKind
}
