/** A dataset's columns as a definition names them, and a user's value in a column's stored form. */
import { UserError } from '../platform/errors'
import type { CatalogColumn, CatalogDataset } from './catalog'
import { BAD_VALUE, type StoredValue, describeType, parseReal, parseTimestamp } from './column-types'

function bad(message: string): never {
  throw new UserError(message, 'bad-query')
}

export function findColumn(ds: CatalogDataset, name: unknown, role: string): CatalogColumn {
  if (typeof name !== 'string' || name === '') bad(`The ${role} must name a column of "${ds.info.name}"`)
  const c = ds.columns.find((x) => x.name === name)
  if (!c) bad(`Dataset "${ds.info.name}" has no column "${name.slice(0, 80)}" (used as the ${role})`)
  return c
}

/** A value given by the user for a column, converted to the column's stored form (bound as a parameter, never SQL). */
export function storedValueFor(col: CatalogColumn, v: unknown, what: string): StoredValue {
  if (v === null) return null
  switch (col.type) {
    case 'integer':
    case 'real': {
      const x = typeof v === 'number' ? v : typeof v === 'string' ? parseReal(v) : BAD_VALUE
      if (x === BAD_VALUE || !Number.isFinite(x)) bad(`${what} must be a number (column "${col.name}" holds ${describeType(col.type)})`)
      return x
    }
    case 'text':
      if (typeof v !== 'string' && typeof v !== 'number') bad(`${what} must be text or a number`)
      return String(v)
    case 'timestamp': {
      const t = typeof v === 'string' ? parseTimestamp(v) : BAD_VALUE
      if (t === BAD_VALUE) bad(`${what} must be a timestamp such as "2015-01-31T10:00:00Z" or "2015-01-31 10:00:00" (column "${col.name}")`)
      return t
    }
  }
}
