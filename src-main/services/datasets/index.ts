/**
 * What other areas use from the datasets service (releases, ledger, sweeps): saved queries and their evaluation.
 * True counts and raw column values returned here are internal: never send them to the analyst.
 */
export { evaluateThresholdQuery, evaluateThresholdDefinition, type ThresholdEvaluation, type ThresholdPredicate } from './threshold-evaluation'
export {
  loadAnomalyIdentificationData,
  loadAnomalySearchData,
  type AnomalyIdentificationData,
  type AnomalySearchData,
  type AiqColumnData
} from './anomaly-loaders'
export { getQuery, getQueryIncludingDeleted, listQueries, saveQuery } from './query-store'
export { findDataset, getDataset, listDatasets, resolveDataset } from '../catalog/catalog'
export { dropOrphanStagingTables } from '../store/staging'
export { planImport, runImport, type ImportProgress } from './import-dataset'
