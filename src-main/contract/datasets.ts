/**
 * Contract methods of the datasets area: import CSV/TSV files, the dataset catalog, and saved query
 * definitions (threshold queries, anomaly identification, anomaly search) over a dataset.
 *
 * Types only (plus the run-time allow-list): the renderer imports this file. Request types and the saved definitions
 * come from their schemas (contract/schemas/*: one schema each gives the type and the doors' run-time check).
 */
import type { z } from 'zod'
import type {
  anomalyIdentificationDefinitionSchema,
  anomalySearchDefinitionSchema,
  filterConditionSchema,
  queryDefinitionSchema,
  thresholdCountSchema,
  thresholdQueryDefinitionSchema,
  thresholdSpecSchema,
  timePeriodSchema
} from './schemas/query-definition'
import type {
  COLUMN_TYPES,
  DELIMITERS,
  RequestFromSchema,
  importRequestSchema,
  clickhouseConnectionRequestSchema,
  linkClickHouseRequestSchema,
  linkPostgresRequestSchema,
  postgresConnectionRequestSchema,
  previewFileRequestSchema,
  rowsRequestSchema
} from './schemas/requests'

/** How a column's values are stored. Timestamps are stored as UTC milliseconds and shown as "YYYY-MM-DD HH:MM:SS" (contract/shown-values.ts). */
export type ColumnType = (typeof COLUMN_TYPES)[number]

export type Delimiter = (typeof DELIMITERS)[number]

export interface DatasetColumn {
  /** 1-based position in the file. */
  position: number
  /** The name from the header row (data, never SQL). */
  name: string
  type: ColumnType
  /** Whether the type was inferred from the preview or set by the user. */
  typeSource: 'inferred' | 'override'
  /**
   * Person-level datasets: whether the column was declared at import to hold one value per person (and checked). Cells
   * over such columns are accounted in parallel; over others a person may lie in many cells. Absent for row-level datasets.
   */
  perPerson?: boolean
}

/**
 * What a dataset's guarantees protect (declared at import, fixed): each row is a different person (row-level), or a
 * person column identifies the person, who may have many rows (person-level).
 */
export type PrivacyUnit = { kind: 'row' } | { kind: 'person'; column: string }

export interface DatasetInfo {
  id: number
  name: string
  /**
   * The number of rows, the bad rows skipped at import and the source's size in bytes. Absent in the service for an
   * analyst reading a dataset that is not public: an exact count of private records is an answer with no noise.
   */
  rowCount?: number
  skippedRows?: number
  columns: DatasetColumn[]
  sourceFile: string
  sourceBytes?: number
  delimiter: Delimiter
  createdAt: string
  /**
   * Declared public by the privacy officer (a ledger entry with a reason). Only a public dataset may supply values that
   * reach a release (thresholds, group lists, the individuals of a search) and only its rows can be paged.
   */
  public: boolean
  /** The privacy unit: row-level, or person-level with its person column. */
  unit: PrivacyUnit
  /**
   * Where the rows are: 'imported' (a copy in the workspace), 'linked-file' (a Parquet or CSV file queried in place
   * by DuckDB; its path is never sent through the contract, `sourceFile` is its base name) or 'linked-postgres' (a
   * PostgreSQL table or materialized view queried where it lives; `sourceFile` is schema.table, and `rowCount` is 0: its rows are
   * neither counted nor estimated for the analyst) or 'linked-clickhouse' (a ClickHouse table, local or Distributed,
   * queried where it lives; `sourceFile` is database.table, `rowCount` 0 likewise). Absent means imported.
   */
  source?: 'imported' | 'linked-file' | 'linked-postgres' | 'linked-clickhouse'
}

/** A dataset as its holder reads it (the workbench, the custodian, the officer, a public dataset): with its counts. */
export type CountedDatasetInfo = DatasetInfo & Required<Pick<DatasetInfo, 'rowCount' | 'skippedRows' | 'sourceBytes'>>

/** A value as shown to the user: numbers, text, timestamps as "YYYY-MM-DD HH:MM:SS" (UTC wall clock, no zone written), or null for an empty field. */
export type CellValue = string | number | null

export interface BadRow {
  /** Physical line of the file (1 = the header line) where the row starts. */
  line: number
  reason: string
}

/** First rows of a file before importing it (fields: schemas/requests.ts). */
export type PreviewFileRequest = z.infer<typeof previewFileRequestSchema>

export interface PreviewFileResponse {
  delimiter: Delimiter
  hasBom: boolean
  fileBytes: number
  columns: Array<{ position: number; name: string; inferredType: ColumnType }>
  /** The first rows as they appear in the file (raw text fields). */
  rows: string[][]
  /** Rows the types were inferred from. */
  inferredFromRows: number
  /** Problems found in the previewed rows (the import would report them too). */
  badRows: BadRow[]
}

/** What to import and how (fields: schemas/requests.ts). */
export type ImportRequest = z.infer<typeof importRequestSchema>

/** The `result` of a finished import job (kind "import", unit "rows"). */
export interface ImportResult {
  dataset: CountedDatasetInfo
  badRowCount: number
  badRows: BadRow[]
  bytes: number
  seconds: number
}

/** What an append added (`datasets/append`): the rows of one file, all of them, in one transaction. */
export interface AppendResult {
  datasetId: number
  name: string
  /** Rows this append added. */
  appended: number
  /** The dataset's rows after it. */
  rows: number
  bytes: number
  seconds: number
}

export type RowsRequest = z.infer<typeof rowsRequestSchema>

export interface RowsResponse {
  columns: DatasetColumn[]
  rows: CellValue[][]
  offset: number
  total: number
}

// ---------------------------------------------------------------------------------------------------------------
// Saved query definitions. Columns are referred to by their names from the header row.

export type FilterOperator = FilterCondition['op']

/** One condition; a filter is the AND of its conditions. Timestamps as ISO 8601 text. */
export type FilterCondition = z.infer<typeof filterConditionSchema>

/** A time period [from, to) on a timestamp column (ISO 8601 or "YYYY-MM-DD HH:MM:SS", naive = UTC). */
export type TimePeriod = z.infer<typeof timePeriodSchema>

/**
 * `rows`: each row counts 1 (row-level privacy, sensitivity 1). `persons`: each person counts at most `cap` rows per
 * group: count = sum over persons of min(rows, cap). On a person-level dataset the person column must be the dataset's,
 * and `maxGroups` bounds the groups one person may add to in one release (persons in more are kept in a random subset of
 * that many; default: every predicate, i.e. no truncation). One person then moves at most `maxGroups` counts by at most
 * `cap` each.
 */
export type ThresholdCount = z.infer<typeof thresholdCountSchema>

/**
 * `constant`; `column`: the threshold of a group is `column` in another (public) dataset, on the row whose key columns
 * equal the group's keys (`on` maps each group-by column to the other dataset's column, default: the same name);
 * `reference`: factor x an aggregate of the group's count per time bucket over a reference period of the same dataset
 * (same filter and count), e.g. max over the days of January and February x 0.8.
 */
export type ThresholdSpec = z.infer<typeof thresholdSpecSchema>

/**
 * A threshold query. The predicate set, when thresholds do not define it (constant and reference thresholds): explicit
 * key tuples in groupBy order (`groups`), or the distinct key tuples of a public dataset (`groupsFrom`). Exactly one of
 * `groups`, `groupsFrom` or a column threshold gives the predicates: a key list read from private data is refused (it
 * would release which keys exist).
 */
export type ThresholdQueryDefinition = z.infer<typeof thresholdQueryDefinitionSchema>

/**
 * Anomaly identification, as written (a query.json, a request): `maxNeighbours` or its former name `beta`, and the
 * former person bound `maxRowsPerPerson`, are all accepted; stored and loaded definitions are normalised
 * (`AnomalyIdentificationDefinition`).
 */
export type AnomalyIdentificationDefinitionInput = z.infer<typeof anomalyIdentificationDefinitionSchema>

/**
 * Anomaly identification: `binWidths` one per column (numeric columns only; null for text columns, which are
 * categorical); a record is an anomaly when at most `maxNeighbours` records lie within `radius` (its own included);
 * `records` to ask about, values in `columns` order; on person-level datasets the person bound `rowsPerBin` and
 * `binsPerPerson` (defaults AIQ_PERSON_BOUND_DEFAULT), by whose product the charge is multiplied.
 */
export type AnomalyIdentificationDefinition = Omit<AnomalyIdentificationDefinitionInput, 'beta' | 'maxNeighbours' | 'maxRowsPerPerson'> & {
  maxNeighbours: number
}

/**
 * Anomaly search: the individuals searched are public (the paper's model of n+1 known individuals), listed in
 * `individuals` (ids as the catalog shows them in `idColumn`) or from a public dataset's column (`individualsFrom`). An
 * individual with no row has the score `scoreFloor` (L, default 0); one with several rows, the largest. Scores are
 * clipped to [L, inf); the noise scale is (tLow - L) / eps. Stop when the largest posterior exceeds `tau` (default 0.5),
 * or when the max log-odds exceed log(1/`delta`); `top` is |S| (default 4).
 */
export type AnomalySearchDefinition = z.infer<typeof anomalySearchDefinitionSchema>

/** A saved definition as stored and loaded (normalised: no former field names). */
export type QueryDefinition = ThresholdQueryDefinition | AnomalyIdentificationDefinition | AnomalySearchDefinition
/** A definition as written (the doors' and query.json's schema): former field names included. */
export type QueryDefinitionInput = z.infer<typeof queryDefinitionSchema>
export type QueryKind = QueryDefinition['kind']

export interface SavedQuery {
  id: number
  datasetId: number
  name: string
  kind: QueryKind
  definition: QueryDefinition
  createdAt: string
  /** 1 for a query as first saved; each edit saves the next version as a new query (its own id, what releases name). */
  version: number
  /** The id of the query's first version: the same for all its versions. */
  firstVersionId: number
}

/** A PostgreSQL connection from a door: a URL WITHOUT a password; the password is read from the server's environment. */
export type PostgresConnectionRequest = z.infer<typeof postgresConnectionRequestSchema>

export interface PostgresRelation {
  schema: string
  table: string
  kind: string
}

export type LinkPostgresRequest = z.infer<typeof linkPostgresRequestSchema>

/** A ClickHouse connection from a door: an HTTP(S) URL WITHOUT a password; the password is read from the server's environment. */
export type ClickHouseConnectionRequest = z.infer<typeof clickhouseConnectionRequestSchema>

export interface ClickHouseTable {
  database: string
  table: string
  /** MergeTree, Distributed, View, ... */
  engine: string
  /** Its columns as the server declares them, in order. */
  columns: string[]
  /**
   * The columns a Distributed table is sharded by (all of a person's rows on one shard: the per-person stage runs on
   * the shards); empty for a local table, or one sharded otherwise (the stage runs on the initiator: exact, slower).
   */
  shardedBy: string[]
}

export type LinkClickHouseRequest = z.infer<typeof linkClickHouseRequestSchema>

/** What a file to link holds (its own linker's file): its columns with the type each would get, and its first rows as text. */
export interface LinkFilePreview {
  format: 'parquet' | 'csv'
  columns: Array<{ name: string; type: ColumnType }>
  rows: string[][]
}

export interface DatasetMethods {
  /** First rows and inferred types of a file, before importing it. */
  'datasets/preview-file': { req: PreviewFileRequest; res: PreviewFileResponse }
  /** Starts an import job (kind "import"); its result is an `ImportResult`. */
  'datasets/import': { req: ImportRequest; res: { jobId: string } }
  /**
   * Appends the rows of a file to an imported dataset (a dataset that grows, e.g. watched by an alarm): the header names
   * the dataset's columns, every value fits its column's type; all rows or none, in one transaction.
   */
  'datasets/append': { req: RequestFromSchema<'datasets/append'>; res: AppendResult }
  /**
   * Tests a PostgreSQL connection and lists the tables and materialized views its role may read (for the table picker). From a door
   * the host must be this machine or listed in the server's QA_PG_HOSTS.
   */
  'datasets/postgres-relations': { req: PostgresConnectionRequest; res: { relations: PostgresRelation[] } }
  /** Links a PostgreSQL table or materialized view as a dataset queried where it lives (source 'linked-postgres'). */
  'datasets/link-postgres': { req: LinkPostgresRequest; res: CountedDatasetInfo }
  /**
   * Tests a ClickHouse connection and lists the tables its user can see (for the table picker). An officer act from a
   * door; the host must be this machine or listed in the server's QA_CLICKHOUSE_HOSTS.
   */
  'datasets/clickhouse-tables': { req: ClickHouseConnectionRequest; res: { tables: ClickHouseTable[] } }
  /** Links a ClickHouse table (local or Distributed) as a dataset queried where it lives (source 'linked-clickhouse'). */
  'datasets/link-clickhouse': { req: LinkClickHouseRequest; res: CountedDatasetInfo }
  /**
   * Links a Parquet or CSV file as a dataset queried in place by DuckDB (source 'linked-file'): the desktop dialog's file
   * where it lies, or a headless upload kept beside the workspace. Not an officer act: the linker holds the file.
   */
  'datasets/link-file': { req: RequestFromSchema<'datasets/link-file'>; res: CountedDatasetInfo }
  /** The columns and first rows of a file chosen to link (the privacy unit is chosen among its columns); nothing is stored. */
  'datasets/link-file-preview': { req: RequestFromSchema<'datasets/link-file-preview'>; res: LinkFilePreview }
  'datasets/list': { req: RequestFromSchema<'datasets/list'>; res: DatasetInfo[] }
  'datasets/get': { req: RequestFromSchema<'datasets/get'>; res: DatasetInfo }
  'datasets/rows': { req: RowsRequest; res: RowsResponse }
  'datasets/rename': { req: RequestFromSchema<'datasets/rename'>; res: CountedDatasetInfo }
  /** Drops the data and its saved queries; ledger history about the dataset stays (ids are never reused). */
  'datasets/delete': { req: RequestFromSchema<'datasets/delete'>; res: { deleted: true } }
  /** The privacy officer declares a dataset public (a ledger entry with a reason): its values may then reach releases. */
  'datasets/declare-public': { req: RequestFromSchema<'datasets/declare-public'>; res: CountedDatasetInfo }
  /**
   * Validates the definition against the dataset's columns and saves it. Saved queries are immutable: with `replaces`
   * (the id of a query's latest version) it is saved as that query's next version (same dataset and kind); lists then
   * show the new version, and releases keep naming the version they ran.
   */
  'queries/save': { req: RequestFromSchema<'queries/save'>; res: SavedQuery }
  'queries/list': { req: RequestFromSchema<'queries/list'>; res: SavedQuery[] }
  'queries/get': { req: RequestFromSchema<'queries/get'>; res: SavedQuery }
  /** Every version of a saved query (given any version's id), oldest first: the releases name the version they ran. */
  'queries/versions': { req: RequestFromSchema<'queries/versions'>; res: SavedQuery[] }
  /** Hides the query (kept for the history of releases that ran it). */
  'queries/delete': { req: RequestFromSchema<'queries/delete'>; res: { deleted: true } }
}

export const datasetsMethodNames: Record<keyof DatasetMethods, true> = {
  'datasets/preview-file': true,
  'datasets/import': true,
  'datasets/append': true,
  'datasets/postgres-relations': true,
  'datasets/link-postgres': true,
  'datasets/clickhouse-tables': true,
  'datasets/link-clickhouse': true,
  'datasets/link-file': true,
  'datasets/link-file-preview': true,
  'datasets/list': true,
  'datasets/get': true,
  'datasets/rows': true,
  'datasets/rename': true,
  'datasets/delete': true,
  'datasets/declare-public': true,
  'queries/save': true,
  'queries/list': true,
  'queries/get': true,
  'queries/versions': true,
  'queries/delete': true
}
