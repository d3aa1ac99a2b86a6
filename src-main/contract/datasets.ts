/**
 * Contract methods of the datasets area (issue 6): import CSV/TSV files, the dataset catalog, and saved query
 * definitions (threshold queries, anomaly identification, anomaly search) over a dataset.
 *
 * Types only (plus the run-time allow-list): the renderer imports this file.
 */

/** How a column's values are stored. Timestamps are stored as UTC milliseconds and shown as ISO 8601. */
export type ColumnType = 'integer' | 'real' | 'text' | 'timestamp'

export type Delimiter = ',' | '\t' | ';' | '|'

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
  rowCount: number
  /** Bad rows skipped at import. */
  skippedRows: number
  columns: DatasetColumn[]
  sourceFile: string
  sourceBytes: number
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
   * PostgreSQL table or view queried where it lives; `sourceFile` is schema.table, and `rowCount` is NOT a count but
   * the planner's estimate when linked, 0 when PostgreSQL had none). Absent means imported.
   */
  source?: 'imported' | 'linked-file' | 'linked-postgres'
}

/** A value as shown to the user: numbers, text, ISO 8601 timestamps, or null for an empty field. */
export type CellValue = string | number | null

export interface BadRow {
  /** Physical line of the file (1 = the header line) where the row starts. */
  line: number
  reason: string
}

export interface PreviewFileRequest {
  /** A `FileHandle.fileId` from `app/choose-file` (desktop) or the upload route (headless); never a path. */
  fileId: string
  /** Detected from the header line when absent. */
  delimiter?: Delimiter
  /** How many rows to return (default 20, at most 200). Types are always inferred from up to 1,000 rows. */
  rows?: number
}

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

export interface ImportRequest {
  /** A `FileHandle.fileId` from `app/choose-file` (desktop) or the upload route (headless); never a path. */
  fileId: string
  /** Default: the file name without its extension. Must not be used by another dataset. */
  name?: string
  delimiter?: Delimiter
  /** Per-column type overrides, keyed by the column name from the header row. */
  types?: Record<string, ColumnType>
  /** 'abort' (default): the first bad row stops the import, nothing is stored. 'skip': bad rows are left out and reported. */
  onBadRow?: 'skip' | 'abort'
  /** How many bad rows to list in the result when skipping (default 20, at most 1,000); all are counted. */
  reportBadRows?: number
  /**
   * The privacy unit: the column identifying a person (person-level: a person may have many rows, guarantees cover all
   * of them). Absent: row-level, each row is a different person.
   */
  personColumn?: string
  /**
   * Person-level imports: columns declared to hold one value per person (a fact of the domain, e.g. a department). The
   * import checks every row and fails if a declared column has a person with several values. Cells over such columns
   * are accounted in parallel; every other column counts as several values per person.
   */
  perPersonColumns?: string[]
}

/** The `result` of a finished import job (kind "import", unit "rows"). */
export interface ImportResult {
  dataset: DatasetInfo
  badRowCount: number
  badRows: BadRow[]
  bytes: number
  seconds: number
}

export interface RowsRequest {
  datasetId: number
  /** 0-based index of the first row (default 0). */
  offset?: number
  /** Default 50, at most 1,000. */
  limit?: number
}

export interface RowsResponse {
  columns: DatasetColumn[]
  rows: CellValue[][]
  offset: number
  total: number
}

// ---------------------------------------------------------------------------------------------------------------
// Saved query definitions. Columns are referred to by their names from the header row.

export type FilterOperator = '=' | '!=' | '<' | '<=' | '>' | '>=' | 'in' | 'not in' | 'is null' | 'is not null'

/** One condition; a filter is the AND of its conditions. Timestamps as ISO 8601 text. */
export interface FilterCondition {
  column: string
  op: FilterOperator
  /** A single value, a list for 'in' / 'not in', absent for 'is null' / 'is not null'. */
  value?: string | number | Array<string | number>
}

/** A time period [from, to) on a timestamp column (ISO 8601 or "YYYY-MM-DD HH:MM:SS", naive = UTC). */
export interface TimePeriod {
  column: string
  from: string
  to: string
}

export type ThresholdCount =
  /** Each row counts 1 (row-level privacy, sensitivity 1). */
  | { kind: 'rows' }
  /**
   * Each person counts at most `cap` rows per group: count = sum over persons of min(rows, cap). On a person-level
   * dataset the person column must be the dataset's, and `maxGroups` bounds the groups one person may add to in one
   * release (persons in more are kept in a random subset of that many; default: every predicate, i.e. no truncation).
   * One person then moves at most `maxGroups` counts by at most `cap` each.
   */
  | { kind: 'persons'; personColumn: string; cap: number; maxGroups?: number }

export type ThresholdSpec =
  | { kind: 'constant'; value: number }
  /**
   * The threshold of a group is `column` in another dataset, on the row whose key columns equal the group's keys.
   * `on` maps each group-by column to the other dataset's column (default: the same name).
   */
  | { kind: 'column'; datasetId: number; column: string; on?: Record<string, string> }
  /**
   * factor x an aggregate of the group's count per time bucket over a reference period of the same dataset
   * (same filter and count), e.g. max over the days of January and February x 0.8.
   */
  | { kind: 'reference'; factor: number; aggregate: 'max' | 'mean'; bucket: 'hour' | 'day'; column?: string; from: string; to: string }

export interface ThresholdQueryDefinition {
  kind: 'threshold'
  filter?: FilterCondition[]
  period?: TimePeriod
  /** At least one column; each distinct combination of their values is one predicate. */
  groupBy: string[]
  count: ThresholdCount
  threshold: ThresholdSpec
  /**
   * The predicate set, when thresholds do not define it (constant and reference thresholds): explicit key tuples in
   * groupBy order. Exactly one of `groups`, `groupsFrom` or a column threshold gives the predicates: a key list read
   * from private data is refused (it would release which keys exist).
   */
  groups?: Array<Array<string | number | null>>
  /**
   * The predicate set from a public dataset: its distinct key tuples. `on` maps each group-by column to that dataset's
   * column (default: the same name).
   */
  groupsFrom?: { datasetId: number; on?: Record<string, string> }
}

export interface AnomalyIdentificationDefinition {
  kind: 'anomaly-identification'
  columns: string[]
  /** One per column; numeric columns only (ignored, may be null, for text columns, which are categorical). */
  binWidths: Array<number | null>
  metric: 'l1' | 'linf' | 'l2' | 'hamming'
  radius: number
  beta: number
  k: number
  /** Records to ask about: values in `columns` order. */
  records?: Array<Array<string | number>>
  /**
   * Person-level datasets: the most rows one person adds to the histogram (persons with more are kept in a random subset
   * of that many rows). One person is then at most this many records away: the charge is multiplied by it. Default 1.
   */
  maxRowsPerPerson?: number
}

export interface AnomalySearchDefinition {
  kind: 'anomaly-search'
  scoreColumn: string
  /** The column naming the individuals; a release needs it (the individuals are matched on it). */
  idColumn?: string
  /**
   * The individuals searched (public, the paper's model of n+1 known individuals): ids as the catalog shows them in
   * `idColumn`. An individual with no row has the score `scoreFloor`; one with several rows, the largest.
   */
  individuals?: string[]
  /** The individuals from a public dataset's column (its distinct values), instead of `individuals`. */
  individualsFrom?: { datasetId: number; column: string }
  /** L: scores are clipped to [L, inf) before the search; the noise scale is (tLow - L) / eps (default 0). */
  scoreFloor?: number
  tLow: number
  tHigh: number
  epsilonPerQuery: number
  budget: number
  oracle: 'rr' | 'binary' | 'direct'
  /** Stop when the largest posterior exceeds tau (default 0.5). */
  tau?: number
  /** Alternatively stop when the max log-odds exceed log(1/delta). */
  delta?: number
  /** |S| (default 4). */
  top?: number
}

export type QueryDefinition = ThresholdQueryDefinition | AnomalyIdentificationDefinition | AnomalySearchDefinition
export type QueryKind = QueryDefinition['kind']

export interface SavedQuery {
  id: number
  datasetId: number
  name: string
  kind: QueryKind
  definition: QueryDefinition
  createdAt: string
}

/** A PostgreSQL connection from a door: a URL WITHOUT a password; the password is read from the server's environment. */
export interface PostgresConnectionRequest {
  /** postgresql://user@host:port/database (a URL with a password is refused). */
  url: string
  /** The environment variable holding the password, ending in PGPASSWORD (default PGPASSWORD). */
  passwordEnv?: string | null
}

export interface PostgresRelation {
  schema: string
  table: string
  kind: string
}

export interface LinkPostgresRequest extends PostgresConnectionRequest {
  name: string
  /** schema.table */
  table: string
  /** The person column (person-level), or null/absent for row-level. */
  personColumn?: string | null
  /** Person-level: columns declared to hold one value per person (checked over every row). */
  perPersonColumns?: string[]
}

export interface DatasetMethods {
  /** First rows and inferred types of a file, before importing it. */
  'datasets/preview-file': { req: PreviewFileRequest; res: PreviewFileResponse }
  /** Starts an import job (kind "import"); its result is an `ImportResult`. */
  'datasets/import': { req: ImportRequest; res: { jobId: string } }
  /**
   * Tests a PostgreSQL connection and lists the tables and views its role may read (for the table picker). From a door
   * the host must be this machine or listed in the server's QA_PG_HOSTS.
   */
  'datasets/postgres-relations': { req: PostgresConnectionRequest; res: { relations: PostgresRelation[] } }
  /** Links a PostgreSQL table or view as a dataset queried where it lives (source 'linked-postgres'). */
  'datasets/link-postgres': { req: LinkPostgresRequest; res: DatasetInfo }
  'datasets/list': { req: Record<string, never>; res: DatasetInfo[] }
  'datasets/get': { req: { datasetId: number }; res: DatasetInfo }
  'datasets/rows': { req: RowsRequest; res: RowsResponse }
  'datasets/rename': { req: { datasetId: number; name: string }; res: DatasetInfo }
  /** Drops the data and its saved queries; ledger history about the dataset stays (ids are never reused). */
  'datasets/delete': { req: { datasetId: number }; res: { deleted: true } }
  /** The privacy officer declares a dataset public (a ledger entry with a reason): its values may then reach releases. */
  'datasets/declare-public': { req: { datasetId: number; reason: string; officer?: string; passphrase?: string }; res: DatasetInfo }
  /** Validates the definition against the dataset's columns and saves it (saved queries are immutable). */
  'queries/save': { req: { datasetId: number; name: string; definition: QueryDefinition }; res: SavedQuery }
  'queries/list': { req: { datasetId?: number }; res: SavedQuery[] }
  'queries/get': { req: { queryId: number }; res: SavedQuery }
  /** Hides the query (kept for the history of releases that ran it). */
  'queries/delete': { req: { queryId: number }; res: { deleted: true } }
}

export const datasetsMethodNames: Record<keyof DatasetMethods, true> = {
  'datasets/preview-file': true,
  'datasets/import': true,
  'datasets/postgres-relations': true,
  'datasets/link-postgres': true,
  'datasets/list': true,
  'datasets/get': true,
  'datasets/rows': true,
  'datasets/rename': true,
  'datasets/delete': true,
  'datasets/declare-public': true,
  'queries/save': true,
  'queries/list': true,
  'queries/get': true,
  'queries/delete': true
}
