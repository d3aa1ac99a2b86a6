/**
 * Integers above 2^53 are never rounded (the ids 12345678901234567 and 12345678901234568 stay two values). Import
 * keeps every value exactly: such a column is text (exact, typed so), a user type that
 * would round it is a bad row with the reason, and values a double holds exactly stay numbers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { ImportResult } from '../../../src-main/contract/datasets'
import { inferType, parseReal, toStored } from '../../../src-main/services/catalog/column-types'
import { type Harness, harness } from './harness'

let h: Harness
beforeAll(() => {
  h = harness()
})
afterAll(() => h?.cleanup())

function file(name: string, text: string): string {
  const p = join(h.dir, name)
  writeFileSync(p, text)
  return p
}

describe('import keeps every value exactly', () => {
  it('stores ids that differ only in the last digit beyond 2^53 as two different ids, typed text', async () => {
    const p = file('ids.csv', 'id,amount\n12345678901234567,1\n12345678901234568,2\n-98765432109876543210,3\n')
    const info = await h.importAndWait({ path: p, name: 'ids' })
    expect(info.state, info.error ?? '').toBe('done')
    const r = info.result as ImportResult
    expect(r.dataset.columns.map((c) => [c.name, c.type])).toEqual([
      ['id', 'text'],
      ['amount', 'integer']
    ])
    const rows = (await h.storedRows({ datasetId: r.dataset.id })).rows
    expect(rows).toEqual([
      ['12345678901234567', 1],
      ['12345678901234568', 2],
      ['-98765432109876543210', 3]
    ])
    expect(new Set(rows.map((x) => x[0])).size).toBe(3)
    // The stored values themselves, not only what the catalog shows.
    const table = (h.store.db.prepare('SELECT table_name t FROM datasets WHERE id = ?').get(r.dataset.id) as { t: string }).t
    expect(h.store.db.prepare(`SELECT typeof(c1) t, c1 v FROM "${table}" ORDER BY rowid`).all()).toEqual([
      { t: 'text', v: '12345678901234567' },
      { t: 'text', v: '12345678901234568' },
      { t: 'text', v: '-98765432109876543210' }
    ])
  })

  it('keeps the largest exact integers as integers', async () => {
    const p = file('safe.csv', 'n\n9007199254740991\n-9007199254740991\n0\n')
    const r = (await h.importAndWait({ path: p, name: 'safe' })).result as ImportResult
    expect(r.dataset.columns[0].type).toBe('integer')
    expect((await h.storedRows({ datasetId: r.dataset.id })).rows).toEqual([[9007199254740991], [-9007199254740991], [0]])
  })

  it('refuses to round when the user types such a column as a number, saying why', async () => {
    const p = file('ids-typed.csv', 'id\n12345678901234567\n12345678901234568\n')
    for (const type of ['integer', 'real'] as const) {
      const info = await h.importAndWait({ path: p, name: `typed ${type}`, types: { id: type } })
      expect(info.state).toBe('failed')
      expect(info.error).toMatch(
        /^Line 2: column "id" is set to a (whole )?number but has "12345678901234567" \(a whole number beyond \+-9007199254740991 cannot be stored exactly as a number: make the column text\)/
      )
    }
    expect(h.tables().filter((t) => t.startsWith('import_staging_'))).toEqual([])
  })

  it('a late huge id in a column inferred as whole numbers is a bad row with the reason, never a rounded value', async () => {
    const lines = Array.from({ length: 1100 }, (_, i) => String(i + 1))
    lines.push('12345678901234567')
    const p = file('late.csv', `id\n${lines.join('\n')}\n`)
    const info = await h.importAndWait({ path: p, name: 'late' })
    expect(info.state).toBe('failed')
    expect(info.error).toMatch(
      /^Line 1102: column "id" looked like a whole number in the first rows but has "12345678901234567" \(a whole number beyond/
    )
  })

  it('decimals a double cannot hold make the column text; ordinary decimals stay reals', () => {
    expect(inferType(['0.1', '2.5', '1e3'])).toBe('real')
    expect(inferType(['0.1', '12345678901234567'])).toBe('text')
    expect(inferType(['0.12345678901234567891'])).toBe('text')
    expect(inferType(['1.500000000000000000000'])).toBe('real')
    expect(parseReal('1e-400')).toBe(toStored('real', '1e-400'))
    expect(typeof parseReal('1e-400')).toBe('symbol')
    expect(parseReal('0.30000000000000004')).toBe(0.30000000000000004)
    expect(parseReal('123456789012345.6')).toBe(123456789012345.6)
  })
})
