/** Catalog entries (DatasetInfo) as the renderer's pure builders receive them, and the datasets their tests share. */
import type { DatasetInfo } from '../../../src-main/contract'

type ColumnType = DatasetInfo['columns'][number]['type']

/** A dataset of the catalog with these columns (name and type, in order); `more` sets any other field. */
export function datasetInfo(
  id: number,
  name: string,
  cols: Array<[string, ColumnType]>,
  isPublic: boolean,
  more: Partial<DatasetInfo> = {}
): DatasetInfo {
  return {
    id,
    name,
    rowCount: 10,
    skippedRows: 0,
    columns: cols.map(([n, type], i) => ({ position: i + 1, name: n, type, typeSource: 'inferred' })),
    sourceFile: `${name}.csv`,
    sourceBytes: 100,
    delimiter: ',',
    createdAt: '2026-01-01T00:00:00Z',
    public: isPublic,
    unit: { kind: 'row' },
    ...more
  }
}

/** The occupancy log's columns (private: counted). */
export const OCCUPANCY_COLUMNS: Array<[string, ColumnType]> = [
  ['timestamp', 'timestamp'],
  ['person_id', 'text'],
  ['building', 'text'],
  ['room', 'text'],
  ['minutes', 'integer']
]

/** A public threshold table: a capacity per building and room. */
export const capacities = datasetInfo(
  2,
  'capacities',
  [
    ['building', 'text'],
    ['room', 'text'],
    ['capacity', 'integer']
  ],
  true
)

/** A public group list whose key columns are named unlike the counted dataset's. */
export const rooms = datasetInfo(
  3,
  'room-list',
  [
    ['bldg', 'text'],
    ['room_name', 'text']
  ],
  true
)
