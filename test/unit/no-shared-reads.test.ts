/**
 * Tests and benchmarks read fixtures in the repository (test/fixtures, resources/), never the design folder beside it:
 * a fresh clone must pass without it. A path in code is a string literal starting with ../shared/.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = resolve(__dirname, '../..')

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return name === 'node_modules' || name === 'fixtures' ? [] : filesUnder(path)
    return /\.(ts|tsx|mjs|cjs|js|py|sh)$/.test(name) ? [path] : []
  })
}

describe('tests and benchmarks', () => {
  it('never read ../shared', () => {
    const offenders = filesUnder(resolve(ROOT, 'test'))
      .filter((f) => /['"`](\.\.\/)+shared\//.test(readFileSync(f, 'utf8')))
      .map((f) => relative(ROOT, f))
    expect(offenders).toEqual([])
  })
})
