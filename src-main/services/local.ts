/**
 * The services' local surface: what a door that opens the workspace file itself may call, in-process and without the
 * worker pool. Only the CLI uses it (eslint.config.mjs lets the CLI import this module, `./index` and `app/door-guard`,
 * and nothing else of the services). The HTTP server and the Electron shell go through `createServices` and its
 * handler map only.
 *
 * Why the CLI does not route everything through the handler map: `createServices` starts the worker pool, which most
 * commands do not need, and the CLI takes paths (`--db`, `--file`, `--out`) that no contract method takes. The
 * commands that run pool work (`sweep`) do go through `createServices(...).handlers`.
 *
 * Adding a name here widens what the CLI may reach; keep it to functions whose checks live in the services (the CLI
 * only parses options and prints).
 */

// The workspace file
export { type Store, defaultDatabasePath, openStore, readSchemaVersion } from './store/store'
export { LATEST_SCHEMA_VERSION } from './store/migrations'
export { projectRoot } from './platform/worker-script'
export { defaultPoolSize } from './platform/worker-pool'
export { backupWorkspace, restoreWorkspace } from './ledger/backup'
export { defaultHeadRecordPath } from './ledger/head-record'

// Datasets and saved queries
export { datasetRows, deleteDataset, getDataset, listDatasets, lookupDataset, renameDataset, resolveDataset } from './catalog/catalog'
export { declarePublic } from './datasets/declare-public'
export { isColumnType } from './catalog/column-types'
export { unitName, unitText } from './catalog/unit-record'
export { type ImportProgress, planImport, runImport } from './datasets/import-dataset'
export { appendText, planAppend, runAppend } from './datasets/append-dataset'
export { type WebhookInfo, addWebhook, listWebhooks, removeWebhook } from './webhooks/webhook-store'
export { deliverDue, httpsSender, queueFires } from './webhooks/delivery'
export { deleteQuery, getQuery, listQueries, saveQuery } from './datasets/query-store'
export { dropOrphanStagingTables } from './store/staging'

// Linked sources (a path, and a database server's URL without a door's host limits, are taken by the CLI only)
export { linkFile } from './datasets/link-file'
export { WAREHOUSES, type WarehouseId } from './datasets/warehouses'

// Ledger, budgets, releases, officers
export { setBudget } from './ledger/budgets'
export { entriesText, previewText, releaseText, summaryText } from './ledger/ledger-text'
export { datasetLedger, ledgerSummary, listEntries } from './ledger/ledger-views'
export { NOTIONS } from './chain/notions'
export { verifyLedger } from './ledger/verify'
export { auditorExport } from './ledger/auditor-export'
export { asReportSignature } from './ledger/report-signature'
export { previewRelease, runRelease, unlockExPost } from './releases/release-service'
export { releaseAccuracy } from './releases/accuracy'
export { checkpoint, fingerprint, listOfficers, registerOfficer } from './trust/officers'
export { officerRows } from './trust/officer-registry'

// Accounts of the service (officer acts), credentials, the service's host hygiene
export { addAccount, listAccounts, revokeAccount } from './accounts/account-store'
export { credentialFromFileText } from './accounts/credentials'
export { assertPrivateWorkspace, workspaceExposure } from './accounts/host-hygiene'

// Experiments (specs are planned here; runs go through the handler map)
export { PRESETS, findPreset } from './experiments/presets'
export { planExperiment } from './experiments/spec'

// Audit reports (`--out` is the CLI's only)
export { checkWritable, produceReport, resolveExport, sha256Hex, writeAtomically } from './reports/build-report'
export { findDataset } from './reports/report-data'
export { REPORT_TABLES } from './reports/verification'
export { resolveDataPath } from './platform/bundled-files'

// Continual alarms (services/alarms/)
export { createAlarm } from './alarms/create'
export { planAlarm, parseInstant } from './alarms/plan'
export { alarmHistory, alarmRow, alarmView, listAlarms } from './alarms/alarm-store'
export { pauseAlarm, resumeAlarm } from './alarms/alarm-status'
export { runDueAlarms } from './alarms/evaluate'
