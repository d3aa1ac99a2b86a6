/**
 * Sensible defaults chosen from column names and types: the person column is not simply the first column
 * (which was `timestamp`), the threshold table is not simply the first public dataset. Pure (unit-tested).
 */
import type { ColumnType } from '../../../../src-main/contract'

interface Col {
  name: string
  type: ColumnType
}

const PERSON_NAME =
  /(^|[_\s-])(person|people|user|patient|employee|staff|member|customer|client|student|badge|visitor|driver|subject|owner|resident)s?([_\s-]?(id|no|number|key|code))?$/i
const ID_NAME = /(^|[_\s-])(id|key|code|no|number)$/i

/**
 * The column most likely to name a person: a person-like name ("person_id", "user"), else an id-like text or whole-number
 * column, else the first column that is neither a time nor a decimal; null when there is none of these.
 */
export function preferredPersonColumn(cols: Col[]): string | null {
  const usable = cols.filter((c) => c.type === 'text' || c.type === 'integer')
  return (usable.find((c) => PERSON_NAME.test(c.name)) ?? usable.find((c) => ID_NAME.test(c.name)) ?? usable[0] ?? null)?.name ?? null
}

/**
 * The threshold table most likely meant: the public dataset holding every group-by column and a numeric column (the
 * threshold), preferring one with a column named like a limit; else the first with the group-by columns; else the first.
 */
export function preferredThresholdTable<D extends { id: number; columns: Col[] }>(sources: D[], groupBy: string[]): D | null {
  const hasGroups = (d: D) => groupBy.every((g) => d.columns.some((c) => c.name === g))
  const numeric = (d: D) => d.columns.filter((c) => (c.type === 'integer' || c.type === 'real') && !groupBy.includes(c.name))
  const limitLike = (d: D) => numeric(d).some((c) => /capacity|limit|threshold|max|quota/i.test(c.name))
  return (
    sources.find((d) => hasGroups(d) && limitLike(d)) ??
    sources.find((d) => hasGroups(d) && numeric(d).length > 0) ??
    sources.find(hasGroups) ??
    sources[0] ??
    null
  )
}

/** At import: a column whose name says it identifies a person ("person_id", "user", "patient_no"), to suggest as the privacy unit; else null. */
export function likelyPersonColumn(cols: Col[]): string | null {
  return cols.find((c) => (c.type === 'text' || c.type === 'integer') && PERSON_NAME.test(c.name))?.name ?? null
}

const PERSON_ID_NAME =
  /(^|[_\s-])(person|people|user|patient|employee|staff|member|customer|client|student|badge|visitor|driver|subject|owner|resident)s?[_\s-]?(id|no|number|key|code)$/i
const PERSON_WORD = /(^|[_\s-])(person|user|patient|employee|member|customer|client|student|badge|visitor|driver|subject|owner|resident)$/i

/**
 * At import, the privacy unit chosen for the user (they see why, and may change it): a column whose name says it
 * identifies a person, either with an id suffix ("person_id", "patient_no") or as one text word ("user", "badge"). A
 * plural or a number without a suffix ("persons", "visitors") more likely counts people, and is only suggested.
 */
export function preselectedPersonColumn(cols: Col[]): string | null {
  return (
    cols.find((c) => (c.type === 'text' || c.type === 'integer') && PERSON_ID_NAME.test(c.name))?.name ??
    cols.find((c) => c.type === 'text' && PERSON_WORD.test(c.name))?.name ??
    null
  )
}

const ENTITY_NAME = /(^|[_\s-])(id|key|code|name|host|hostname|machine|device|sensor|server|instance|account|node|station|unit)$/i

/**
 * The anomaly search's id column (the column naming the individuals): the person column of a person-level dataset, else a
 * text or whole-number column named like an id or an entity ("id", "user_id", "host", "machine"); else null, and the form
 * asks (never the row number: rows are not individuals).
 */
export function preferredIdColumn(cols: Col[], personColumn: string | null): string | null {
  if (personColumn && cols.some((c) => c.name === personColumn)) return personColumn
  const usable = cols.filter((c) => c.type === 'text' || c.type === 'integer')
  return (
    (usable.find((c) => PERSON_NAME.test(c.name)) ?? usable.find((c) => ID_NAME.test(c.name)) ?? usable.find((c) => ENTITY_NAME.test(c.name)))
      ?.name ?? null
  )
}
