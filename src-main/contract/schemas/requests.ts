/**
 * One schema per contract method's request ("schemas at the doors"). Each gives the method's request type
 * (`z.infer`, used by contract/<area>.ts) and the run-time check that the HTTP server and the Electron main process make
 * before any handler runs (services/app/request-check.ts). Objects are strict: an unknown key is refused (a misspelt
 * option would otherwise be silently ignored). Ranges of release parameters come from RELEASE_PARAMS; limits that a
 * service owns (page sizes, the worker count) are checked by that service with its own sentence.
 */
import { z } from 'zod'
import { AIQ_RELEASE_MECHANISMS, RELEASE_PARAMS, THRESHOLD_RELEASE_MECHANISMS } from '../release-params'
import { LIMITS, emptyRequest, rangedNumber, storedId, text } from './common'
import { queryDefinitionSchema } from './query-definition'
import { alarmRequestSchemas } from './alarms'

const id = () => text(LIMITS.id, { nonEmpty: true })
const count = () => rangedNumber({ integer: true, ge: 0 })
const positiveCount = () => rangedNumber({ integer: true, ge: 1 })
const column = () => text(LIMITS.column, { nonEmpty: true })
const jobRequest = () => z.strictObject({ jobId: id() })
const experimentRequest = () => z.strictObject({ experimentId: id() })

// ---------------------------------------------------------------------------------------------------------------
// app

export const selfCheckRequestSchema = z.strictObject({
  /** Batches sent to the pool (spread over the workers). */
  batches: rangedNumber({ integer: true, ge: 1, le: 1000 }).optional(),
  /** Laplace samples per batch. */
  samplesPerBatch: rangedNumber({ integer: true, ge: 100, le: 1_000_000 }).optional()
})

/** The desktop app connects to a service: its https:// address, the account's credential, and the authority that signed its certificate. */
export const connectServiceRequestSchema = z.strictObject({
  url: text(LIMITS.url, { nonEmpty: true }),
  /** The account's credential as `account add` printed it (the text of the credential file). */
  credential: text(4096, { nonEmpty: true }),
  /** PEM of the authority that signed the service's certificate (absent: the system's authorities). */
  ca: text(256 * 1024).optional()
})

export const chooseFileRequestSchema = z.strictObject({
  /** Dialog title (default "Choose a file"). */
  title: text(LIMITS.name).optional(),
  /** File type filters, e.g. [{ name: 'CSV and TSV', extensions: ['csv', 'tsv', 'txt'] }]. */
  filters: z
    .array(z.strictObject({ name: text(LIMITS.name), extensions: z.array(text(16)).max(32) }))
    .max(32)
    .optional()
})

// ---------------------------------------------------------------------------------------------------------------
// datasets

export const COLUMN_TYPES = ['integer', 'real', 'text', 'timestamp'] as const
export const DELIMITERS = [',', '\t', ';', '|'] as const

export const previewFileRequestSchema = z.strictObject({
  /** A `FileHandle.fileId` from `app/choose-file` (desktop) or the upload route (headless); never a path. */
  fileId: id(),
  /** Detected from the header line when absent. */
  delimiter: z.enum(DELIMITERS).optional(),
  /** How many rows to return (default 20, at most 200). Types are always inferred from up to 1,000 rows. */
  rows: positiveCount().optional()
})

export const importRequestSchema = z.strictObject({
  /** A `FileHandle.fileId` from `app/choose-file` (desktop) or the upload route (headless); never a path. */
  fileId: id(),
  /** Default: the file name without its extension. Must not be used by another dataset. */
  name: text(LIMITS.name).optional(),
  delimiter: z.enum(DELIMITERS).optional(),
  /** Per-column type overrides, keyed by the column name from the header row. */
  types: z.record(text(LIMITS.column), z.enum(COLUMN_TYPES)).optional(),
  /** 'abort' (default): the first bad row stops the import, nothing is stored. 'skip': bad rows are left out and reported. */
  onBadRow: z.enum(['skip', 'abort']).optional(),
  /** How many bad rows to list in the result when skipping (default 20, at most 1,000); all are counted. */
  reportBadRows: count().optional(),
  /**
   * The privacy unit: the column identifying a person (person-level: a person may have many rows, guarantees cover all
   * of them). Absent: row-level, each row is a different person.
   */
  personColumn: column().optional(),
  /**
   * Person-level imports: columns declared to hold one value per person (a fact of the domain, e.g. a department). The
   * import checks every row and fails if a declared column has a person with several values. Cells over such columns
   * are accounted in parallel; every other column counts as several values per person.
   */
  perPersonColumns: z.array(column()).max(1000).optional()
})

const connectionFields = {
  /**
   * postgresql://user@host:port/database, or for ClickHouse http(s)://user@host:8123 (a URL with a password is
   * refused).
   */
  url: text(LIMITS.url, { nonEmpty: true }),
  /** The environment variable holding the password, ending in PGPASSWORD (default PGPASSWORD), or CLICKHOUSE_PASSWORD. */
  passwordEnv: text(LIMITS.name).nullable().optional(),
  /** An officer act from a door (the password is the server's): the registered officer and passphrase (never stored). */
  officer: text(LIMITS.name).optional(),
  passphrase: text(LIMITS.passphrase).optional()
}

/** A connection to a database server (PostgreSQL or ClickHouse: the same fields, the engine is the method). */
export const warehouseConnectionRequestSchema = z.strictObject(connectionFields)
export const postgresConnectionRequestSchema = warehouseConnectionRequestSchema
export const clickhouseConnectionRequestSchema = warehouseConnectionRequestSchema

/** Linking a table of a database server (PostgreSQL or ClickHouse: the same fields, the engine is the method). */
export const linkWarehouseRequestSchema = z.strictObject({
  ...connectionFields,
  name: text(LIMITS.name),
  /** PostgreSQL: schema.table (a table or view); ClickHouse: database.table (a bare name: the user's current database). */
  table: text(LIMITS.url, { nonEmpty: true }),
  /** The person column (person-level), or null/absent for row-level. */
  personColumn: column().nullable().optional(),
  /** Person-level: columns declared to hold one value per person (refused on a linked source). */
  perPersonColumns: z.array(column()).max(1000).optional()
})
export const linkPostgresRequestSchema = linkWarehouseRequestSchema
export const linkClickHouseRequestSchema = linkWarehouseRequestSchema

export const rowsRequestSchema = z.strictObject({
  datasetId: storedId(),
  /** 0-based index of the first row (default 0). */
  offset: count().optional(),
  /** Default 50, at most 1,000. */
  limit: positiveCount().optional()
})

const officerFields = {
  /** The registered officer (name or key id; optional when only one officer is registered). */
  officer: text(LIMITS.name).optional(),
  /** The officer's passphrase (never stored or logged). */
  passphrase: text(LIMITS.passphrase).optional()
}

// ---------------------------------------------------------------------------------------------------------------
// accounts (the service's roles)

export const ACCOUNT_ROLES = ['custodian', 'officer', 'analyst'] as const
/** Account names: what the ledger records with every act; letters, digits and . _ - only, so that a name is never markup or a path. */
export const ACCOUNT_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/
/** Longest validity of a credential, in days (a credential that never expires is not offered). */
export const MAX_ACCOUNT_DAYS = 730
export const DEFAULT_ACCOUNT_DAYS = 90

const accountName = () =>
  text(64, { nonEmpty: true }).regex(ACCOUNT_NAME_PATTERN, {
    error: 'must be 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit'
  })

export const addAccountRequestSchema = z.strictObject({
  name: accountName(),
  role: z.enum(ACCOUNT_ROLES),
  /** How long the credential works (default 90 days, at most 730). */
  days: rangedNumber({ integer: true, ge: 1, le: MAX_ACCOUNT_DAYS }).optional(),
  ...officerFields
})

export const revokeAccountRequestSchema = z.strictObject({
  name: accountName(),
  reason: text(LIMITS.reason, { nonEmpty: true }),
  ...officerFields
})

// ---------------------------------------------------------------------------------------------------------------
// ledger and releases

export const PRIVACY_NOTIONS = ['eps-dp', 'predicate-wise-dp', 'eps-k-sensitive', 'anomaly-restricted-dp'] as const

export const ledgerEntriesRequestSchema = z.strictObject({
  datasetId: storedId().optional(),
  /** Newest first; default 100, at most 1,000. */
  limit: positiveCount().optional(),
  offset: count().optional()
})

export const officerCredentialsRequestSchema = z.strictObject(officerFields)

/** A new privacy officer: the first one alone; every later one added by a registered officer (`by`), whose act it is. */
export const registerOfficerRequestSchema = z.strictObject({
  name: text(LIMITS.name),
  /** The new officer's passphrase (never stored: it wraps the new keys). The rules: contract/officer-passphrase.ts. */
  passphrase: text(LIMITS.passphrase),
  by: z.strictObject(officerFields).optional()
})

export const setBudgetRequestSchema = z.strictObject({
  datasetId: storedId(),
  /** Decimal text ("2.5") or a number; rounded down to a whole nano-epsilon. */
  epsilon: z.union([rangedNumber({ ge: 0 }), text(64, { nonEmpty: true })], {
    error: 'must be a number of at least 0, or decimal text such as "2.5"'
  }),
  /** Absent: the budget per unit (what one person, or row, may lose summed over notions). Given: an extra cap on that notion. */
  notion: z.enum(PRIVACY_NOTIONS).optional(),
  /** Required: why the budget is set or changed. */
  reason: text(LIMITS.reason),
  ...officerFields,
  /**
   * Freeze the dataset (or notion): no further releases. The budget becomes exactly what is already spent; `epsilon` is
   * not used. A budget below the spend is refused otherwise (a spend cannot be undone).
   */
  freeze: z.boolean().optional(),
  /**
   * An analyst account's id (service): the budget is that analyst's own on the dataset, held against the charges their
   * account makes, within the dataset's budgets (both bind). Absent: the dataset's own budget.
   */
  analyst: storedId().optional()
})

const T = RELEASE_PARAMS.threshold
const A = RELEASE_PARAMS.anomalyIdentification

/** Accuracy of a threshold-query release: the analyst states accuracy, the ledger charges the epsilon it costs. */
export const thresholdReleaseParamsSchema = z.strictObject({
  kind: z.literal('threshold'),
  /** tslm: one shot; ppwlm: in steps, spends less on clear cases; dppwlm: in steps chosen from the data. */
  mechanism: z.enum(THRESHOLD_RELEASE_MECHANISMS),
  /** Each predicate whose count truly exceeds its threshold is missed with probability at most beta. */
  beta: rangedNumber(T.beta.range),
  /** Sets the false-positive band: 2 alpha for TSLM and PPWLM, wider for DPPWLM (engine/mide/guarantee.ts). */
  alpha: rangedNumber(T.alpha.range),
  /** Deny when the charge would exceed this (no limit when absent: the budget decides). */
  epsMax: rangedNumber(T.epsMax.range).optional(),
  /** ppwlm / dppwlm: first step's epsilon, steps m, dppwlm fine steps (defaults: RELEASE_PARAMS.threshold). */
  eps1: rangedNumber(T.eps1.range).optional(),
  steps: rangedNumber(T.steps.range).optional(),
  fineSteps: rangedNumber(T.fineSteps.range).optional()
})

export const anomalyIdentificationReleaseParamsSchema = z.strictObject({
  kind: z.literal('anomaly-identification'),
  /** dp: optimal eps-DP mechanism; sp: (eps,k)-sensitively private (k from the saved query). */
  mechanism: z.enum(AIQ_RELEASE_MECHANISMS),
  /** Epsilon per queried record. */
  epsilon: rangedNumber(A.epsilon.range)
})

/** Anomaly search takes its parameters (epsilon per query, budget, oracle, stopping rule) from the saved query. */
export const anomalySearchReleaseParamsSchema = z.strictObject({ kind: z.literal('anomaly-search') })

export const releaseParamsSchema = z.discriminatedUnion('kind', [
  thresholdReleaseParamsSchema,
  anomalyIdentificationReleaseParamsSchema,
  anomalySearchReleaseParamsSchema
])

export const releaseRequestSchema = z.strictObject({
  queryId: storedId(),
  params: releaseParamsSchema,
  /** Who asks (recorded in the ledger). Default "analyst". */
  actor: text(LIMITS.name).optional()
})

// ---------------------------------------------------------------------------------------------------------------
// reports

export const REPORT_EDITIONS = ['analyst', 'officer'] as const
export const REPORT_FORMATS = ['pdf', 'csv', 'json', 'html'] as const
export const REPORT_TABLES = ['ledger', 'releases', 'denials', 'experiments'] as const
export const REPORT_PAGE_SIZES = ['A4', 'Letter'] as const

const reportFields = {
  /** Absent: the whole workspace. */
  datasetId: storedId().optional(),
  /** The period [from, to): ISO 8601 ("2025-01-31" or "2025-01-31T12:00:00Z"; without a zone = UTC). Absent from: the beginning. */
  from: text(LIMITS.date).optional(),
  /** Absent, or later than now: now (the report says which instant it used, so that it can be reproduced). */
  to: text(LIMITS.date).optional(),
  /** Default 'analyst'. */
  edition: z.enum(REPORT_EDITIONS).optional(),
  /** Officer edition only: who unlocks the sealed costs, and why (both recorded). */
  officer: text(LIMITS.name).optional(),
  reason: text(LIMITS.reason).optional(),
  /** Officer edition only: the officer's passphrase (it opens the sealed costs and signs the unlocks; never stored). */
  passphrase: text(LIMITS.passphrase).optional()
}

export const reportRequestSchema = z.strictObject(reportFields)

export const reportExportRequestSchema = z.strictObject({
  ...reportFields,
  format: z.enum(REPORT_FORMATS),
  /** csv: which table (default 'ledger'). */
  table: z.enum(REPORT_TABLES).optional(),
  /** pdf: default 'A4'. */
  pageSize: z.enum(REPORT_PAGE_SIZES).optional()
  // No output path: the file is kept by the service, then fetched with `reports/download` (headless) or saved
  // through the desktop's save dialog with `reports/save`.
})

// ---------------------------------------------------------------------------------------------------------------
// Every method's request schema. contract.ts checks at compile time that this map has exactly the contract's methods
// and that each schema's type is the method's request type.

/**
 * A ledger receipt (`ledger checkpoint --receipt F`), kept by the officer outside the workspace: the heads of the ledger
 * and of the audit log, signed by the officer, with the officer's public keys. `ledger verify --receipt` detects a
 * rollback or a rewrite of anything up to it.
 */
export const ledgerReceiptSchema = z.strictObject({
  v: z.literal(1),
  kind: z.literal('quiet-alarm/ledger-receipt'),
  at: text(LIMITS.date),
  ledgerSeq: z.number().int().min(0),
  ledgerHash: text(LIMITS.hash),
  auditId: z.number().int().min(0),
  auditHash: text(LIMITS.hash),
  officer: z.strictObject({ name: text(LIMITS.name), keyId: text(LIMITS.hash), signPublic: text(LIMITS.hash), sealPublic: text(LIMITS.hash) }),
  signature: text(LIMITS.hash)
})

export const requestSchemas = {
  // app
  'app/status': emptyRequest(),
  'jobs/list': emptyRequest(),
  'jobs/get': jobRequest(),
  'jobs/cancel': jobRequest(),
  'diagnostics/self-check': selfCheckRequestSchema,
  'app/choose-file': chooseFileRequestSchema,
  'app/set-workers': z.strictObject({ workers: rangedNumber({ integer: true, ge: 1 }) }),
  'app/connection': emptyRequest(),
  /** The desktop's open (or, with `create`, save) dialog picks the workspace file: the request names no path. */
  'app/open-workspace': z.strictObject({ create: z.boolean().optional() }),
  'app/connect-service': connectServiceRequestSchema,
  // datasets
  'datasets/preview-file': previewFileRequestSchema,
  'datasets/import': importRequestSchema,
  /** Appends a file's rows to an imported dataset: the same columns, all rows or none (the custodian's act). */
  'datasets/append': z.strictObject({
    /** A `FileHandle.fileId` from `app/choose-file` (desktop) or the upload route (headless); never a path. */
    fileId: id(),
    datasetId: storedId(),
    delimiter: z.enum(DELIMITERS).optional()
  }),
  'datasets/postgres-relations': postgresConnectionRequestSchema,
  'datasets/link-postgres': linkPostgresRequestSchema,
  'datasets/clickhouse-tables': clickhouseConnectionRequestSchema,
  'datasets/link-clickhouse': linkClickHouseRequestSchema,
  'datasets/link-file': z.strictObject({
    /** A `FileHandle.fileId` from `app/choose-file` (desktop) or the upload route (headless); never a path. */
    fileId: id(),
    name: text(LIMITS.name),
    /** The person column (person-level), or null/absent for row-level. */
    personColumn: column().nullable().optional(),
    /** Linking is an officer act: the officer signs what the link reads (trust/link-signature.ts). */
    ...officerFields
  }),
  'datasets/link-file-preview': z.strictObject({
    /** A `FileHandle.fileId` from `app/choose-file` (desktop) or the upload route (headless); never a path. */
    fileId: id()
  }),
  'datasets/list': emptyRequest(),
  'datasets/get': z.strictObject({ datasetId: storedId() }),
  'datasets/rows': rowsRequestSchema,
  'datasets/rename': z.strictObject({ datasetId: storedId(), name: text(LIMITS.name) }),
  'datasets/delete': z.strictObject({ datasetId: storedId() }),
  'datasets/declare-public': z.strictObject({ datasetId: storedId(), reason: text(LIMITS.reason), ...officerFields }),
  'queries/save': z.strictObject({
    datasetId: storedId(),
    name: text(LIMITS.name),
    definition: queryDefinitionSchema,
    replaces: storedId().optional()
  }),
  'queries/list': z.strictObject({ datasetId: storedId().optional() }),
  'queries/get': z.strictObject({ queryId: storedId() }),
  'queries/versions': z.strictObject({ queryId: storedId() }),
  'queries/delete': z.strictObject({ queryId: storedId() }),
  // ledger
  'ledger/entries': ledgerEntriesRequestSchema,
  'ledger/summary': z.strictObject({ datasetId: storedId().optional(), cellLimit: count().optional() }),
  'ledger/verify': z.strictObject({ expectHead: text(LIMITS.hash).optional(), receipt: ledgerReceiptSchema.optional() }),
  'budgets/set': setBudgetRequestSchema,
  'releases/preview': releaseRequestSchema,
  'releases/accuracy': releaseRequestSchema,
  'releases/run': releaseRequestSchema,
  'releases/list': z.strictObject({ datasetId: storedId().optional() }),
  'releases/get': z.strictObject({ releaseId: storedId() }),
  'officer/unlock-ex-post': z.strictObject({ releaseId: storedId(), reason: text(LIMITS.reason), ...officerFields }),
  'officer/list': emptyRequest(),
  'officer/register': registerOfficerRequestSchema,
  'ledger/checkpoint': officerCredentialsRequestSchema,
  // experiments: the spec is checked by the service, which reports every problem (ValidationOutcome), not only the first
  'experiments/presets': emptyRequest(),
  'experiments/validate': z.strictObject({ spec: z.unknown() }),
  'experiments/start': z.strictObject({ spec: z.unknown().optional(), preset: text(LIMITS.name, { nonEmpty: true }).optional() }),
  'experiments/resume': experimentRequest(),
  'experiments/list': emptyRequest(),
  'experiments/get': experimentRequest(),
  'experiments/export-csv': experimentRequest(),
  'experiments/delete': experimentRequest(),
  // reports
  'reports/preview': reportRequestSchema,
  'reports/export': reportExportRequestSchema,
  'reports/download': jobRequest(),
  'reports/save': jobRequest(),
  // accounts
  'accounts/whoami': emptyRequest(),
  'accounts/list': emptyRequest(),
  'accounts/add': addAccountRequestSchema,
  'accounts/revoke': revokeAccountRequestSchema,
  // alarms (contract/schemas/alarms.ts)
  ...alarmRequestSchemas
} as const

export type RequestSchemas = typeof requestSchemas
/** The request type of a method, from its schema. */
export type RequestFromSchema<M extends keyof RequestSchemas> = z.infer<RequestSchemas[M]>
